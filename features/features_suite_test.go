// Package features_test is formd's acceptance suite: user stories that drive
// the built formd binary over HTTP, with a real PostgreSQL database and an
// in-process SMTP server catching every email it sends.
//
// Run it with
//
//	FORMD_TEST_DATABASE_URL='postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable' \
//	    go tool ginkgo -p --procs=4 ./features
//
// The binary is built once (process 1) and shared. Every Ginkgo process then
// starts one formd of its own (shared, see harness_test.go) that specs use with
// unique email addresses (its Telegram and Google services are fakes that
// nothing checks); a spec that needs a formd nobody else touches (other
// configuration, or global state) starts a dedicated one with StartFormd.
package features_test

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"

	"github.com/formd/formd/adapters/clamav/clamdtest"
)

// TestFeatures runs the Ginkgo suite under go test.
func TestFeatures(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "formd acceptance")
}

// suiteServices are what process 1 starts once for every process: the
// formd binary and a real clamd (with the EICAR test signature only).
type suiteServices struct {
	Binary string
	Clamd  string
}

// suiteClamd is process 1's clamd, stopped after every process finished.
var suiteClamd *clamdtest.Clamd

// suiteConnections is process 1's watch on the test databases' connections.
var suiteConnections *connectionWatch

var _ = SynchronizedBeforeSuite(func() []byte {
	By("building ./cmd/formd once for every parallel process, statically, as the container image has it")
	path, err := gexec.BuildWithEnvironment("github.com/formd/formd/cmd/formd", []string{"CGO_ENABLED=0"}, "-trimpath")
	Expect(err).NotTo(HaveOccurred())
	By("starting one clamd for every parallel process (its database: the EICAR test signature)")
	dir, err := os.MkdirTemp("", "formd-clamd-")
	Expect(err).NotTo(HaveOccurred())
	suiteClamd, err = clamdtest.Start(dir, 64<<20)
	Expect(err).NotTo(HaveOccurred())
	out, err := json.Marshal(suiteServices{Binary: path, Clamd: suiteClamd.TCP})
	Expect(err).NotTo(HaveOccurred())
	suiteConnections = watchConnections()
	return out
}, func(raw []byte) {
	var services suiteServices
	Expect(json.Unmarshal(raw, &services)).To(Succeed())
	formdBinary, clamdAddr = services.Binary, services.Clamd
	By("starting this process's shared formd, configured for every integration and with the malware scanner")
	var credentials string
	sharedServices, credentials = startFakeServices()
	shared = StartFormd(append(sharedServices.Env(credentials), "FORMD_CLAMD_ADDR="+clamdAddr)...)
	expectContractLoaded(shared)
})

var _ = SynchronizedAfterSuite(func() {
	closeBrowser()
}, func() {
	if suiteClamd != nil {
		suiteClamd.Stop()
	}
	gexec.CleanupBuildArtifacts()
	if suiteConnections != nil {
		peak, at, err := suiteConnections.Peak()
		Expect(err).NotTo(HaveOccurred(), "watch the test databases' connections")
		Expect(peak).To(BeNumerically("<=", connectionBudget),
			"the test databases held %d connections at %s: four processes of this suite share PostgreSQL's 100 (see harness_connections_test.go)",
			peak, at.Format(time.RFC3339Nano))
		fmt.Fprintf(GinkgoWriter, "peak connections to the test databases: %d of a budget of %d\n", peak, connectionBudget)
	}
})

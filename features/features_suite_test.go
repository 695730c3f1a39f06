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
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
)

// TestFeatures runs the Ginkgo suite under go test.
func TestFeatures(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "formd acceptance")
}

var _ = SynchronizedBeforeSuite(func() []byte {
	By("building ./cmd/formd once for every parallel process")
	path, err := gexec.Build("github.com/formd/formd/cmd/formd")
	Expect(err).NotTo(HaveOccurred())
	return []byte(path)
}, func(path []byte) {
	formdBinary = string(path)
	By("starting this process's shared formd, configured for every integration")
	sharedServices, credentials := startFakeServices()
	shared = StartFormd(sharedServices.Env(credentials)...)
	expectContractLoaded(shared)
})

var _ = SynchronizedAfterSuite(func() {
	closeBrowser()
}, func() {
	gexec.CleanupBuildArtifacts()
})

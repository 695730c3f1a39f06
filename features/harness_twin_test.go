package features_test

// A second formd process on the same database: how formd runs behind a load
// balancer (README "Architecture", DESIGN.md "Running several instances").

import (
	"fmt"
	"net/http"
	"net/url"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// StartTwin starts another formd process sharing f's database, SMTP server
// (so f.Mail is its inbox too), secret key and data directory, on a free port
// of its own. extraEnv ("NAME=value") overrides that configuration. It returns
// once GET /healthz answers 200; the process is stopped by DeferCleanup at the
// end of the node it was called in. The twin never drops the database: f owns
// it (and its cleanup runs after the twin's, as it was registered earlier).
func (f *Formd) StartTwin(extraEnv ...string) *Formd {
	GinkgoHelper()
	Expect(f).NotTo(BeIdenticalTo(shared), "a twin of the shared formd would take part in every other spec of this process")
	twin := &Formd{
		DatabaseURL: f.DatabaseURL,
		DataDir:     f.DataDir,
		Mail:        f.Mail,
		drop:        func() { Fail("a twin does not own its database: drop it through the first formd") },
		client: &http.Client{
			Timeout:       f.client.Timeout,
			CheckRedirect: f.client.CheckRedirect,
			Transport:     newContractTransport(),
		},
	}
	DeferCleanup(twin.client.CloseIdleConnections)
	// As in StartFormd: the free port may be taken before formd binds it.
	for attempt := 1; ; attempt++ {
		port := freePort()
		twin.URL = "http://127.0.0.1:" + port
		// os/exec keeps the last value of a repeated variable.
		twin.Env = append(append(append([]string(nil), f.Env...), "FORMD_LISTEN_ADDR=127.0.0.1:"+port), extraEnv...)
		if twin.start() || attempt == 3 {
			break
		}
		fmt.Fprintf(GinkgoWriter, "formd twin exited before it was healthy on port %s; trying another port\n", port)
	}
	Expect(twin.Session.ExitCode()).To(Equal(-1), "the formd twin exited before it answered GET /healthz (its output is above)")
	return twin
}

// On returns link (an absolute URL, such as one from an email) aimed at f
// instead of the process that wrote it: the same path and query on f.URL.
func (f *Formd) On(link string) string {
	GinkgoHelper()
	u, err := url.Parse(link)
	Expect(err).NotTo(HaveOccurred(), "parse %s", link)
	base, err := url.Parse(f.URL)
	Expect(err).NotTo(HaveOccurred())
	u.Scheme, u.Host = base.Scheme, base.Host
	return u.String()
}

package features_test

// Configuration (issue 9, item 1): a display-name sender works end to end,
// and a bad FORMD_* value stops `formd serve` with one line before it
// connects to the database or listens.

import (
	"context"
	"net"
	"os/exec"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"

	"github.com/formd/formd/adapters/postgres/pgtest"
)

var _ = Describe("Configuration", func() {
	It("sends formd's mails from a sender with a display name", func() {
		f := StartFormd("FORMD_MAIL_FROM=Acme Forms <forms@acme.example>")
		email := UniqueEmail("sender")
		f.Register(email, DefaultPassword)
		m := f.Mail.WaitForMail(email)
		from, err := m.Header.AddressList("From")
		Expect(err).NotTo(HaveOccurred())
		Expect(from).To(HaveLen(1))
		Expect(from[0].Address).To(Equal("forms@acme.example"))
		Expect(from[0].Name).To(Equal("Acme Forms"), "the operator's name, not formd's")
	})

	DescribeTable("refuses to serve with a bad value, saying in one line which variable and what is wrong",
		func(variable, value string, want []string, hidden string) {
			port := freePort()
			cmd := exec.Command(formdBinary, "serve")
			cmd.Env = append(baseEnv(),
				"FORMD_LISTEN_ADDR=127.0.0.1:"+port,
				// Nothing answers here: a formd that went on would fail on the
				// database instead, with another message.
				"FORMD_DATABASE_URL=postgres://postgres@127.0.0.1:1/formd?sslmode=disable&connect_timeout=2",
				"FORMD_DATA_DIR="+GinkgoT().TempDir(),
				"FORMD_SECRET_KEY="+randomHex(32),
				"FORMD_AUDIT_SIGNING_KEY="+testAuditSigningKey,
				"FORMD_LOG_LEVEL=debug",
				variable+"="+value)
			s, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
			Expect(err).NotTo(HaveOccurred())
			// While it runs, nothing may accept connections on its port.
			Consistently(func() bool {
				c, err := net.DialTimeout("tcp", "127.0.0.1:"+port, 100*time.Millisecond)
				if err != nil {
					return false
				}
				c.Close()
				return true
			}).WithTimeout(time.Second).WithPolling(20*time.Millisecond).Should(BeFalse(), "something listened on the port")
			Eventually(s).WithTimeout(20 * time.Second).Should(gexec.Exit())
			Expect(s.ExitCode()).NotTo(Equal(0))
			out := strings.TrimSpace(string(s.Err.Contents()))
			Expect(strings.Split(out, "\n")).To(HaveLen(1), "one line: %s", out)
			Expect(out).To(HavePrefix("formd: "+variable), "the line names the variable first")
			for _, w := range want {
				Expect(out).To(ContainSubstring(w))
			}
			if hidden != "" {
				Expect(out).NotTo(ContainSubstring(hidden), "no secret in the message")
			}
			Expect(string(s.Out.Contents())).To(BeEmpty(), "nothing logged: it stopped before starting anything")
		},
		Entry("a sender that is not an address", "FORMD_MAIL_FROM", "Acme Forms", []string{"one email address"}, ""),
		Entry("an SMTP URL with an unknown TLS mode", "FORMD_SMTP_URL", "smtp://u:hunter2@127.0.0.1:2525?tls=ssl", []string{"none, starttls or tls"}, "hunter2"),
		Entry("too many delivery workers", "FORMD_DELIVERY_WORKERS", "1000", []string{"0 to 256"}, ""),
		Entry("a misspelt variable", "FORMD_SMTP_ULR", "smtp://u:hunter2@127.0.0.1:2525", []string{"did you mean FORMD_SMTP_URL?"}, "hunter2"),
		Entry("an unwritable data folder", "FORMD_DATA_DIR", "/dev/null/data", []string{"cannot create the folder"}, ""),
		Entry("no audit signing key outside development mode", "FORMD_AUDIT_SIGNING_KEY", "",
			[]string{"is not set", "formd audit key generate", "FORMD_DEV=true"}, ""),
		Entry("a malformed audit signing key", "FORMD_AUDIT_SIGNING_KEY", "PRIVATE+KEY+forms.example.com/audit+not-the-key",
			[]string{"not a note signing key", "formd audit key generate"}, "not-the-key"),
		Entry("a verifier key given as the audit signing key", "FORMD_AUDIT_SIGNING_KEY", testAuditVerifierKey,
			[]string{"not a note signing key", "formd audit key generate"}, ""),
	)

	// A formd that could not bind its address used to start its workers on
	// a working database, close its pool and hang, while whatever held the
	// port answered its health checks (the harness once registered an
	// account with another spec's formd that way).
	It("stops at once, starting nothing, when its address is taken", func() {
		taken, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(taken.Close)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		dbURL, drop, err := pgtest.NewDatabase(ctx)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(drop)
		cmd := exec.Command(formdBinary, "serve")
		cmd.Env = append(baseEnv(), "FORMD_LISTEN_ADDR="+taken.Addr().String(), "FORMD_DATABASE_URL="+dbURL,
			"FORMD_DATA_DIR="+GinkgoT().TempDir(), "FORMD_SECRET_KEY="+randomHex(32),
			"FORMD_AUDIT_SIGNING_KEY="+testAuditSigningKey, "FORMD_LOG_LEVEL=debug")
		s, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { s.Kill().Wait(5 * time.Second) })
		Eventually(s).WithTimeout(20 * time.Second).Should(gexec.Exit())
		Expect(s.ExitCode()).NotTo(Equal(0))
		out := strings.TrimSpace(string(s.Err.Contents()))
		Expect(strings.Split(out, "\n")).To(HaveLen(1), "one line: %s", out)
		Expect(out).To(HavePrefix("formd: FORMD_LISTEN_ADDR " + taken.Addr().String()))
		Expect(out).To(ContainSubstring("address already in use"))
		Expect(string(s.Out.Contents())).To(BeEmpty(), "nothing logged: it stopped before starting anything")
	})
})

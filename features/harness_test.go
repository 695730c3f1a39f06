package features_test

// The harness: start formd (this file), talk to it over HTTP
// (harness_http_test.go), read the mail it sends (harness_mail_test.go).
//
// Typical use in a spec:
//
//	f := shared                                   // or StartFormd("FORMD_X=y") for isolation
//	token, _ := f.RegisteredVerifiedUser()        // a fresh account whose email is verified
//	form, accessKey := f.CreateForm(token, map[string]any{
//		"name": "Contact", "recipientEmail": UniqueEmail("inbox"),
//	})
//	f.VerifyRecipient(form["recipientEmail"].(string))
//	r := f.Post("", "/submit/"+accessKey, map[string]any{"message": "hi"}, Header("Origin", "https://example.com"))
//	Expect(r.Status).To(Equal(200))
//	m := f.Mail.WaitForMail(form["recipientEmail"].(string))
//
// Every helper calls GinkgoHelper, so a failure is reported at the spec's line.
// Every email address a spec uses should come from UniqueEmail: the shared
// formd of a Ginkgo process serves every spec that process runs.

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"

	"github.com/formd/formd/adapters/postgres/pgtest"
)

// formdBinary is the path of the formd binary built once for the suite.
var formdBinary string

// clamdAddr is the suite's clamd (process 1 runs it), for FORMD_CLAMD_ADDR.
var clamdAddr string

// shared is the formd of this Ginkgo process, started before any spec runs.
// Specs that use it must not depend on global state: they use UniqueEmail
// addresses, so what they create is theirs alone.
var shared *Formd

// DefaultPassword is the password the harness registers accounts with.
const DefaultPassword = "correct horse battery staple"

// testAuditSigningKey signs the audit checkpoints of every formd the suite
// starts, so no spec depends on development mode; it signs nothing but test
// data. testAuditVerifierKey is its verifier key, which a spec pins as an
// auditor would.
const (
	testAuditSigningKey  = "PRIVATE+KEY+formd-test/audit+79eaa294+Ad0sObRAeu0w2337L5lJcBtX1mWZHqvFRGcYVfiJu056"
	testAuditVerifierKey = "formd-test/audit+79eaa294+AdNDQYBsRc3QfViwO2xZM62fXUTxMCpJH06Q9T2UufXU"
)

// MailTimeout is how long WaitForMail waits for an email to arrive.
const MailTimeout = 10 * time.Second

// Formd is one running formd process with its own database, data directory and
// SMTP server. StartFormd makes one; it is stopped when the spec (or, for the
// shared one, the suite) ends.
type Formd struct {
	// URL is the base URL, http://127.0.0.1:<port>, without a trailing slash.
	URL string
	// DatabaseURL is the URL of formd's own fresh database.
	DatabaseURL string
	// DataDir is formd's FORMD_DATA_DIR, a temporary directory.
	DataDir string
	// Env is the environment formd was started with (FORMD_* variables only);
	// Run passes it to other formd commands.
	Env []string
	// Mail receives every email formd sends.
	Mail *Inbox
	// Session is the running formd process.
	Session *gexec.Session

	client *http.Client
	drop   func()
}

// StartFormd starts a formd of its own: a fresh database cloned from the
// migrated template (pgtest.NewDatabase, which honours FORMD_TEST_DATABASE_URL),
// a free loopback port, a temporary data directory, an in-process SMTP server,
// a random secret key and the suite's audit signing key. extraEnv ("NAME=value") is appended to (and so
// overrides) that configuration. It returns once GET /healthz answers 200.
// Everything is stopped and dropped by DeferCleanup at the end of the node it
// was called in.
func StartFormd(extraEnv ...string) *Formd {
	GinkgoHelper()
	Expect(formdBinary).NotTo(BeEmpty(), "the formd binary is built in SynchronizedBeforeSuite")

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dbURL, drop, err := pgtest.NewDatabase(ctx)
	Expect(err).NotTo(HaveOccurred(), "create a test database")
	DeferCleanup(drop) // runs last: after formd has stopped

	return startFormdOn(dbURL, drop, extraEnv...)
}

// startFormdOn starts a formd on dbURL with an SMTP server, data directory and
// loopback port of its own; drop is what DropDatabase does with the database.
func startFormdOn(dbURL string, drop func(), extraEnv ...string) *Formd {
	GinkgoHelper()
	inbox, smtpAddr := startSMTP()
	dataDir := GinkgoT().TempDir()
	f := &Formd{
		DatabaseURL: dbURL,
		DataDir:     dataDir,
		Mail:        inbox,
		drop:        drop,
		client: &http.Client{
			Timeout: 15 * time.Second,
			// Redirects are answers to assert on, not to follow.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
			Transport:     newContractTransport(),
		},
	}
	DeferCleanup(f.client.CloseIdleConnections)

	// The free port is only probably still free when formd binds it: another
	// process may take it in between. formd then exits at once, and the harness
	// tries again with another port; it also does when another process answered
	// GET /healthz on the port (listensOn).
	for attempt := 1; ; attempt++ {
		port := freePort()
		f.URL = "http://127.0.0.1:" + port
		f.Env = append([]string{
			"FORMD_LISTEN_ADDR=127.0.0.1:" + port,
			// A small pool: four processes each run a shared formd and
			// dedicated ones at once, under PostgreSQL's 100 connections.
			"FORMD_DATABASE_URL=" + withPoolSize(dbURL, 8),
			"FORMD_SMTP_URL=smtp://" + smtpAddr + "?tls=none",
			"FORMD_MAIL_FROM=formd@test.local",
			"FORMD_DATA_DIR=" + dataDir,
			"FORMD_SECRET_KEY=" + randomHex(32),
			"FORMD_AUDIT_SIGNING_KEY=" + testAuditSigningKey,
			"FORMD_LOG_LEVEL=warn",
			// Specs share one formd per process and all post from 127.0.0.1: the
			// per-IP limits are tested on a dedicated formd that sets its own,
			// and so is the per-form flood limit (specs post bursts to a form).
			"FORMD_SUBMIT_RATE=0",
			"FORMD_AUTH_RATE=0",
			"FORMD_REGISTER_RATE=0",
			"FORMD_FORM_SUBMIT_RATE=0",
		}, extraEnv...)
		if f.start() || attempt == 3 {
			break
		}
		fmt.Fprintf(GinkgoWriter, "formd exited before it was healthy on port %s; trying another port\n", port)
	}
	Expect(f.Session.ExitCode()).To(Equal(-1), "formd exited before it answered GET /healthz (its output is above)")
	return f
}

// start starts the process and waits until GET /healthz answers 200; it
// reports false when formd exited first.
func (f *Formd) start() bool {
	GinkgoHelper()
	cmd := exec.Command(formdBinary, "serve")
	cmd.Env = append(baseEnv(), f.Env...)
	session, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
	Expect(err).NotTo(HaveOccurred(), "start formd")
	f.Session = session
	DeferCleanup(func() {
		// formd drains at SIGTERM: an idle keep-alive connection is left to
		// its client for a moment, so the harness closes its own first.
		f.client.CloseIdleConnections()
		session.Terminate()
		if !waitExit(session, 20*time.Second) {
			session.Kill()
			waitExit(session, 5*time.Second)
		}
	})
	exited := false
	Eventually(func(g Gomega) {
		if session.ExitCode() != -1 {
			exited = true
			return
		}
		resp, err := f.client.Get(f.URL + "/healthz")
		g.Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		g.Expect(resp.StatusCode).To(Equal(http.StatusOK))
	}).WithTimeout(60*time.Second).WithPolling(50*time.Millisecond).Should(Succeed(), "formd answers GET /healthz")
	if exited || session.ExitCode() != -1 {
		return false
	}
	_, port, err := net.SplitHostPort(strings.TrimPrefix(f.URL, "http://"))
	Expect(err).NotTo(HaveOccurred())
	ours, err := listensOn(session.Command.Process.Pid, port)
	Expect(err).NotTo(HaveOccurred(), "find who listens on port %s", port)
	if !ours { // another process answered: this formd is exiting (it could not bind) or will
		session.Kill()
		waitExit(session, 5*time.Second)
		return false
	}
	return true
}

// waitExit waits up to d for the process to exit and reports whether it did.
func waitExit(s *gexec.Session, d time.Duration) bool {
	select {
	case <-s.Exited:
		return true
	case <-time.After(d):
		return false
	}
}

// baseEnv is the test process's environment without any FORMD_* variable, so
// a developer's own configuration never leaks into the formd under test.
func baseEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "FORMD_") {
			env = append(env, kv)
		}
	}
	return env
}

// DropDatabase drops formd's database while formd keeps running (to see how
// it copes with losing it). Only for a dedicated formd, never the shared one.
func (f *Formd) DropDatabase() {
	Expect(f).NotTo(BeIdenticalTo(shared), "DropDatabase would break every spec of this process")
	f.drop()
}

// Run runs another formd command (`formd grant …`, `formd migrate`) against
// this formd's database and configuration and returns its exited session. It
// fails the spec unless the command exits with code 0.
func (f *Formd) Run(args ...string) *gexec.Session {
	GinkgoHelper()
	cmd := exec.Command(formdBinary, args...)
	cmd.Env = append(baseEnv(), f.Env...)
	s, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
	Expect(err).NotTo(HaveOccurred())
	Eventually(s).WithTimeout(30*time.Second).Should(gexec.Exit(0), "formd %s", strings.Join(args, " "))
	return s
}

// Grant grants an account a paid/manual entitlement, as an operator does:
// `formd grant <email> <feature>`.
func (f *Formd) Grant(email, feature string) {
	GinkgoHelper()
	f.Run("grant", email, feature)
}

// SetPlan moves an account to a plan, as an operator does:
// `formd plan set <email> <plan>`.
func (f *Formd) SetPlan(email, plan string) {
	GinkgoHelper()
	f.Run("plan", "set", email, plan)
}

// RunFailing runs another formd command that must fail (exit code 1), and
// returns its exited session: its error line is in Err.
func (f *Formd) RunFailing(args ...string) *gexec.Session {
	GinkgoHelper()
	cmd := exec.Command(formdBinary, args...)
	cmd.Env = append(baseEnv(), f.Env...)
	s, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
	Expect(err).NotTo(HaveOccurred())
	Eventually(s).WithTimeout(30*time.Second).Should(gexec.Exit(1), "formd %s", strings.Join(args, " "))
	return s
}

func freePort() string {
	GinkgoHelper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	defer l.Close()
	_, port, err := net.SplitHostPort(l.Addr().String())
	Expect(err).NotTo(HaveOccurred())
	return port
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

var emailCounter atomic.Int64

// UniqueEmail returns an address no other spec of the run uses, such as
// owner-p2-17-3f9a1c@example.test. The label says what the address is for.
func UniqueEmail(label string) string {
	return fmt.Sprintf("%s-p%d-%d-%s@example.test", label, GinkgoParallelProcess(), emailCounter.Add(1), randomHex(3))
}

// HashPrefixOf reports whether id is a prefix of the hex SHA-256 of secret
// (how the audit trail names the session behind a change).
func HashPrefixOf(secret, id string) bool {
	sum := sha256.Sum256([]byte(secret))
	return id != "" && strings.HasPrefix(hex.EncodeToString(sum[:]), id)
}

// Register registers (or signs in to) an account with POST /agent/auth and
// returns the session token. password may be empty. It expects 200.
func (f *Formd) Register(email, password string) (token string) {
	GinkgoHelper()
	body := map[string]any{"email": email, "type": "user_claimed"}
	if password != "" {
		body["password"] = password
	}
	r := f.Post("", "/agent/auth", body)
	Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
	token, _ = r.JSON["credential"].(string)
	Expect(token).NotTo(BeEmpty(), "%s", r)
	return token
}

// VerifyAccount reads the next email to email, follows its verification link
// (opens it and confirms with the page's button) and expects 200.
func (f *Formd) VerifyAccount(email string) {
	GinkgoHelper()
	f.followLink(email)
}

// VerifyRecipient reads the next email to a form recipient, follows its
// verification link (opens it and confirms with the page's button) and
// expects 200.
func (f *Formd) VerifyRecipient(email string) {
	GinkgoHelper()
	f.followLink(email)
}

func (f *Formd) followLink(email string) *Response {
	GinkgoHelper()
	m := f.Mail.WaitForMail(email)
	r := f.FollowLink(Link(m))
	Expect(r.Status).To(Equal(http.StatusOK), "following %s: %s", Link(m), r)
	return r
}

// OpenLink opens a link from a mail as a mail scanner or a browser does
// (GET), expects its confirmation page (200, a form that posts back) and
// returns it. Opening a link changes nothing.
func (f *Formd) OpenLink(link string) *Response {
	GinkgoHelper()
	r := f.Get("", link)
	Expect(r.Status).To(Equal(http.StatusOK), "opening %s: %s", link, r)
	Expect(string(r.Body)).To(ContainSubstring(`<form method="post"`), "the page of %s", link)
	return r
}

// ConfirmLink sends what the button of a link's page sends: a POST of the
// page's form to the link, with fields as name, value pairs (a password
// reset's "password"). It returns the answer, whatever its status.
func (f *Formd) ConfirmLink(link string, fields ...string) *Response {
	GinkgoHelper()
	form := url.Values{}
	for i := 0; i+1 < len(fields); i += 2 {
		form.Add(fields[i], fields[i+1])
	}
	return f.Post("", link, RawBody{ContentType: "application/x-www-form-urlencoded", Data: []byte(form.Encode())})
}

// FollowLink opens a link and presses its page's button, as the person who
// reads the mail does, and returns the answer to the button.
func (f *Formd) FollowLink(link string, fields ...string) *Response {
	GinkgoHelper()
	f.OpenLink(link)
	return f.ConfirmLink(link, fields...)
}

// RegisteredVerifiedUser registers a new account under a UniqueEmail with
// DefaultPassword and verifies its email. It returns the session token and
// the account's email.
func (f *Formd) RegisteredVerifiedUser() (token string, email string) {
	GinkgoHelper()
	email = UniqueEmail("owner")
	token = f.Register(email, DefaultPassword)
	f.VerifyAccount(email)
	return token, email
}

// CreateForm creates a form with POST /v1/forms, expects 201 and returns the
// created form and its access key.
func (f *Formd) CreateForm(token string, body map[string]any) (form map[string]any, accessKey string) {
	GinkgoHelper()
	r := f.Post(token, "/v1/forms", body)
	Expect(r.Status).To(Equal(http.StatusCreated), "%s", r)
	form = r.Object("form")
	accessKey, _ = form["accessKey"].(string)
	Expect(accessKey).NotTo(BeEmpty(), "%s", r)
	return form, accessKey
}

// Forms lists the caller's forms (GET /v1/forms, expecting 200).
func (f *Formd) Forms(token string) []map[string]any {
	GinkgoHelper()
	r := f.Get(token, "/v1/forms")
	Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
	var out []map[string]any
	for _, v := range r.Array("forms") {
		out = append(out, v.(map[string]any))
	}
	return out
}

// FormByID returns the caller's form id as GET /v1/forms lists it, failing the
// spec when it is not listed.
func (f *Formd) FormByID(token, id string) map[string]any {
	GinkgoHelper()
	for _, form := range f.Forms(token) {
		if form["id"] == id {
			return form
		}
	}
	Fail("form " + id + " is not listed by GET /v1/forms")
	return nil
}

// Events returns a form's audit trail (GET /v1/forms/{id}/events, expecting 200).
func (f *Formd) Events(token, id string) []map[string]any {
	GinkgoHelper()
	r := f.Get(token, "/v1/forms/"+id+"/events")
	Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
	var out []map[string]any
	for _, v := range r.Array("events") {
		out = append(out, v.(map[string]any))
	}
	return out
}

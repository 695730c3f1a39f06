package features_test

// The harness: start formd, talk to it over HTTP, read the mail it sends.
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
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/http"
	"net/mail"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/emersion/go-smtp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"

	"github.com/formd/formd/adapters/postgres/pgtest"
)

// formdBinary is the path of the formd binary built once for the suite.
var formdBinary string

// shared is the formd of this Ginkgo process, started before any spec runs.
// Specs that use it must not depend on global state: they use UniqueEmail
// addresses, so what they create is theirs alone.
var shared *Formd

// DefaultPassword is the password the harness registers accounts with.
const DefaultPassword = "correct horse battery staple"

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
}

// StartFormd starts a formd of its own: a fresh database cloned from the
// migrated template (pgtest.NewDatabase, which honours FORMD_TEST_DATABASE_URL),
// a free loopback port, a temporary data directory, an in-process SMTP server
// and a random secret key. extraEnv ("NAME=value") is appended to (and so
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
	DeferCleanup(drop)

	inbox, smtpAddr := startSMTP()
	port := freePort()
	dataDir := GinkgoT().TempDir()

	f := &Formd{
		URL:         "http://127.0.0.1:" + port,
		DatabaseURL: dbURL,
		DataDir:     dataDir,
		Mail:        inbox,
		client: &http.Client{
			Timeout: 15 * time.Second,
			// Redirects are answers to assert on, not to follow.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
			Transport:     &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 16},
		},
	}
	f.Env = append([]string{
		"FORMD_LISTEN_ADDR=127.0.0.1:" + port,
		"FORMD_DATABASE_URL=" + dbURL,
		"FORMD_SMTP_URL=smtp://" + smtpAddr + "?tls=none",
		"FORMD_MAIL_FROM=formd@test.local",
		"FORMD_DATA_DIR=" + dataDir,
		"FORMD_SECRET_KEY=" + randomHex(32),
		"FORMD_LOG_LEVEL=warn",
	}, extraEnv...)

	cmd := exec.Command(formdBinary, "serve")
	cmd.Env = append(baseEnv(), f.Env...)
	f.Session, err = gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
	Expect(err).NotTo(HaveOccurred(), "start formd")
	DeferCleanup(func() {
		f.Session.Terminate()
		if !waitExit(f.Session, 20*time.Second) {
			f.Session.Kill()
			waitExit(f.Session, 5*time.Second)
		}
		f.client.CloseIdleConnections()
	})

	Eventually(func(g Gomega) {
		if f.Session.ExitCode() != -1 {
			StopTrying(fmt.Sprintf("formd exited with code %d before it was healthy", f.Session.ExitCode())).Now()
		}
		resp, err := f.client.Get(f.URL + "/healthz")
		g.Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		g.Expect(resp.StatusCode).To(Equal(http.StatusOK))
	}).WithTimeout(60*time.Second).WithPolling(50*time.Millisecond).Should(Succeed(), "formd answers GET /healthz")
	return f
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

// ---------------------------------------------------------------------------
// HTTP

// Response is a formd answer, read completely.
type Response struct {
	// Status is the HTTP status code.
	Status int
	// Header holds the response headers.
	Header http.Header
	// Body is the raw body.
	Body []byte
	// JSON is the body decoded as a JSON object; nil when it is not one.
	JSON map[string]any
}

// RequestID is the X-Request-Id response header.
func (r *Response) RequestID() string { return r.Header.Get("X-Request-Id") }

// Object returns the JSON object under key of the body, failing the spec when
// it is missing or not an object.
func (r *Response) Object(key string) map[string]any {
	GinkgoHelper()
	Expect(r.JSON).To(HaveKey(key), "response body: %s", r.Body)
	o, ok := r.JSON[key].(map[string]any)
	Expect(ok).To(BeTrue(), "%q is not a JSON object in %s", key, r.Body)
	return o
}

// Array returns the JSON array under key of the body, failing the spec when it
// is missing or not an array.
func (r *Response) Array(key string) []any {
	GinkgoHelper()
	Expect(r.JSON).To(HaveKey(key), "response body: %s", r.Body)
	a, ok := r.JSON[key].([]any)
	Expect(ok).To(BeTrue(), "%q is not a JSON array in %s", key, r.Body)
	return a
}

// String returns the status and body, for failure messages.
func (r *Response) String() string { return fmt.Sprintf("HTTP %d: %s", r.Status, r.Body) }

// RawBody is a request body sent as it is (for malformed JSON, forms or
// multipart bodies), with its content type.
type RawBody struct {
	ContentType string
	Data        []byte
}

// RawJSON is a body sent verbatim as application/json, valid or not.
func RawJSON(s string) RawBody {
	return RawBody{ContentType: "application/json", Data: []byte(s)}
}

// Bearer returns the header that authenticates with a bearer token.
func Bearer(token string) http.Header {
	return http.Header{"Authorization": {"Bearer " + token}}
}

// SessionCookie returns the header that authenticates with the
// auth.session_token cookie.
func SessionCookie(token string) http.Header {
	return http.Header{"Cookie": {(&http.Cookie{Name: "auth.session_token", Value: token}).String()}}
}

// Header returns a header with one value, e.g. Header("Origin", "https://example.com").
func Header(name, value string) http.Header {
	h := http.Header{}
	h.Set(name, value)
	return h
}

// Do sends a request and reads the whole response. path is relative to f.URL
// (or an absolute http://127.0.0.1 URL, such as a link from an email). body is
// nil (no body), a RawBody (sent verbatim), or any other value, sent as JSON.
// headers are merged into the request in order. Do fails the spec only when
// formd cannot be reached, never because of the status code.
func (f *Formd) Do(method, path string, body any, headers ...http.Header) *Response {
	GinkgoHelper()
	target := path
	if !strings.HasPrefix(path, "http://") && !strings.HasPrefix(path, "https://") {
		target = f.URL + path
	}
	u, err := url.Parse(target)
	Expect(err).NotTo(HaveOccurred())
	Expect(u.Hostname()).To(Equal("127.0.0.1"), "the harness only talks to formd on 127.0.0.1")

	var reader io.Reader
	contentType := ""
	switch b := body.(type) {
	case nil:
	case RawBody:
		reader, contentType = bytes.NewReader(b.Data), b.ContentType
	default:
		data, err := json.Marshal(b)
		Expect(err).NotTo(HaveOccurred())
		reader, contentType = bytes.NewReader(data), "application/json"
	}
	req, err := http.NewRequest(method, target, reader)
	Expect(err).NotTo(HaveOccurred())
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "application/json")
	for _, h := range headers {
		for k, vs := range h {
			req.Header.Del(k)
			for _, v := range vs {
				req.Header.Add(k, v)
			}
		}
	}
	resp, err := f.client.Do(req)
	Expect(err).NotTo(HaveOccurred(), "%s %s", method, path)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	r := &Response{Status: resp.StatusCode, Header: resp.Header, Body: data}
	var obj map[string]any
	if json.Unmarshal(data, &obj) == nil {
		r.JSON = obj
	}
	return r
}

func auth(token string, headers []http.Header) []http.Header {
	if token == "" {
		return headers
	}
	return append([]http.Header{Bearer(token)}, headers...)
}

// Get sends GET path with the bearer token (none when token is empty).
func (f *Formd) Get(token, path string, headers ...http.Header) *Response {
	GinkgoHelper()
	return f.Do(http.MethodGet, path, nil, auth(token, headers)...)
}

// Post sends POST path with body (see Do) and the bearer token (none when empty).
func (f *Formd) Post(token, path string, body any, headers ...http.Header) *Response {
	GinkgoHelper()
	return f.Do(http.MethodPost, path, body, auth(token, headers)...)
}

// Patch sends PATCH path with body (see Do) and the bearer token (none when empty).
func (f *Formd) Patch(token, path string, body any, headers ...http.Header) *Response {
	GinkgoHelper()
	return f.Do(http.MethodPatch, path, body, auth(token, headers)...)
}

// ExpectError asserts that r is the spec's ErrorResponse with the given
// status: success false, a message containing every one of fragments, and the
// requestId of the X-Request-Id header.
func ExpectError(r *Response, status int, fragments ...string) {
	GinkgoHelper()
	Expect(r.Status).To(Equal(status), "%s", r)
	Expect(r.JSON).NotTo(BeNil(), "error bodies are JSON: %s", r)
	Expect(r.JSON).To(HaveKeyWithValue("success", false), "%s", r)
	Expect(r.JSON).To(HaveKeyWithValue("message", Not(BeEmpty())), "%s", r)
	for _, fragment := range fragments {
		Expect(r.JSON["message"]).To(ContainSubstring(fragment), "%s", r)
	}
	Expect(r.RequestID()).NotTo(BeEmpty(), "X-Request-Id header")
	Expect(r.JSON).To(HaveKeyWithValue("requestId", r.RequestID()), "%s", r)
}

// ---------------------------------------------------------------------------
// Accounts and forms

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
// and expects 200.
func (f *Formd) VerifyAccount(email string) {
	GinkgoHelper()
	f.followLink(email)
}

// VerifyRecipient reads the next email to a form recipient, follows its
// verification link and expects 200.
func (f *Formd) VerifyRecipient(email string) {
	GinkgoHelper()
	f.followLink(email)
}

func (f *Formd) followLink(email string) *Response {
	GinkgoHelper()
	m := f.Mail.WaitForMail(email)
	r := f.Get("", Link(m))
	Expect(r.Status).To(Equal(http.StatusOK), "following %s: %s", Link(m), r)
	return r
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

// ---------------------------------------------------------------------------
// Mail

// Mail is one email received by the test SMTP server.
type Mail struct {
	// From is the envelope sender (MAIL FROM).
	From string
	// To are the envelope recipients (RCPT TO).
	To []string
	// Raw is the message as received.
	Raw []byte
	// Header holds the message's headers, undecoded.
	Header mail.Header
	// Subject is the decoded Subject header.
	Subject string
	// Text is the first text/plain part, transfer-decoded.
	Text string
	// HTML is the first text/html part, transfer-decoded.
	HTML string
	// Attachments are the other parts.
	Attachments []Attachment
}

// Attachment is a non-body part of a received email.
type Attachment struct {
	// Filename is the part's file name, if any.
	Filename string
	// ContentType is the part's media type, e.g. image/png.
	ContentType string
	// Data is the transfer-decoded content.
	Data []byte
}

// Inbox records every email the SMTP server receives.
type Inbox struct {
	mu       sync.Mutex
	messages []Mail
	taken    map[int]bool
}

// All returns every email received so far, in order.
func (in *Inbox) All() []Mail {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]Mail(nil), in.messages...)
}

// To returns every email received so far for the envelope recipient to, in
// order, whether or not WaitForMail returned it already.
func (in *Inbox) To(to string) []Mail {
	in.mu.Lock()
	defer in.mu.Unlock()
	var out []Mail
	for _, m := range in.messages {
		if m.isFor(to) {
			out = append(out, m)
		}
	}
	return out
}

// WaitForMail waits up to MailTimeout for an email to the envelope recipient
// to that no earlier WaitForMail call returned, and returns the oldest such
// email. Successive calls so return successive emails to one address.
func (in *Inbox) WaitForMail(to string) Mail {
	GinkgoHelper()
	var found Mail
	Eventually(func() bool {
		in.mu.Lock()
		defer in.mu.Unlock()
		for i, m := range in.messages {
			if !in.taken[i] && m.isFor(to) {
				in.taken[i] = true
				found = m
				return true
			}
		}
		return false
	}).WithTimeout(MailTimeout).WithPolling(20*time.Millisecond).Should(BeTrue(), "an email to %s", to)
	return found
}

func (m Mail) isFor(to string) bool {
	for _, r := range m.To {
		if strings.EqualFold(r, to) {
			return true
		}
	}
	return false
}

var verifyLink = regexp.MustCompile(`http://[^\s"'<>]+/verify/[A-Za-z0-9_-]+`)

// Link returns the first http://…/verify/<token> URL in the email's text,
// failing the spec when there is none.
func Link(m Mail) string {
	GinkgoHelper()
	link := verifyLink.FindString(m.Text)
	Expect(link).NotTo(BeEmpty(), "a verification link in %q", m.Text)
	return link
}

func (in *Inbox) add(m Mail) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.messages = append(in.messages, m)
}

// startSMTP starts an SMTP server on 127.0.0.1:0 without authentication or
// TLS, and stops it at the end of the calling node.
func startSMTP() (*Inbox, string) {
	GinkgoHelper()
	inbox := &Inbox{taken: map[int]bool{}}
	server := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) {
		return &smtpSession{inbox: inbox}, nil
	}))
	server.Domain = "localhost"
	server.ReadTimeout = 30 * time.Second
	server.WriteTimeout = 30 * time.Second
	server.MaxMessageBytes = 50 << 20
	server.ErrorLog = ginkgoLogger{}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	go func() { _ = server.Serve(l) }()
	DeferCleanup(func() { _ = server.Close() })
	return inbox, l.Addr().String()
}

// ginkgoLogger sends the SMTP server's log to GinkgoWriter.
type ginkgoLogger struct{}

func (ginkgoLogger) Printf(format string, v ...any) {
	fmt.Fprintf(GinkgoWriter, "smtp: "+format+"\n", v...)
}

func (ginkgoLogger) Println(v ...any) {
	fmt.Fprintln(GinkgoWriter, append([]any{"smtp:"}, v...)...)
}

type smtpSession struct {
	inbox *Inbox
	from  string
	to    []string
}

func (s *smtpSession) Reset()        { s.from, s.to = "", nil }
func (s *smtpSession) Logout() error { return nil }

func (s *smtpSession) Mail(from string, _ *smtp.MailOptions) error {
	s.from = from
	return nil
}

func (s *smtpSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.to = append(s.to, to)
	return nil
}

func (s *smtpSession) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	m, err := parseMail(s.from, append([]string(nil), s.to...), raw)
	if err != nil {
		fmt.Fprintf(GinkgoWriter, "smtp: unparsable message (%v):\n%s\n", err, raw)
		m = Mail{From: s.from, To: append([]string(nil), s.to...), Raw: raw}
	}
	s.inbox.add(m)
	return nil
}

func parseMail(from string, to []string, raw []byte) (Mail, error) {
	m := Mail{From: from, To: to, Raw: raw}
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return m, err
	}
	m.Header = msg.Header
	dec := new(mime.WordDecoder)
	if m.Subject, err = dec.DecodeHeader(msg.Header.Get("Subject")); err != nil {
		m.Subject = msg.Header.Get("Subject")
	}
	err = m.readPart(msg.Header.Get("Content-Type"), msg.Header.Get("Content-Transfer-Encoding"),
		msg.Header.Get("Content-Disposition"), msg.Body)
	return m, err
}

// readPart decodes one MIME entity, descending into multipart ones.
func (m *Mail) readPart(contentType, encoding, disposition string, body io.Reader) error {
	if contentType == "" {
		contentType = "text/plain"
	}
	mediaType, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return err
	}
	if strings.HasPrefix(mediaType, "multipart/") {
		mr := multipart.NewReader(body, params["boundary"])
		for {
			p, err := mr.NextPart()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			// multipart.Reader already undoes quoted-printable (and drops the header).
			if err := m.readPart(p.Header.Get("Content-Type"), p.Header.Get("Content-Transfer-Encoding"),
				p.Header.Get("Content-Disposition"), p); err != nil {
				return err
			}
		}
	}
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "quoted-printable":
		body = quotedprintable.NewReader(body)
	case "base64":
		body = base64.NewDecoder(base64.StdEncoding, body) // ignores line breaks
	}
	data, err := io.ReadAll(body)
	if err != nil {
		return err
	}
	_, dparams, _ := mime.ParseMediaType(disposition)
	filename := dparams["filename"]
	if filename == "" {
		filename = params["name"]
	}
	switch {
	case mediaType == "text/plain" && filename == "" && m.Text == "":
		m.Text = string(data)
	case mediaType == "text/html" && filename == "" && m.HTML == "":
		m.HTML = string(data)
	default:
		m.Attachments = append(m.Attachments, Attachment{Filename: filename, ContentType: mediaType, Data: data})
	}
	return nil
}

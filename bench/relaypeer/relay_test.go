package main

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/mail"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
)

// testSMTP is an in-process SMTP server that keeps every message and counts
// the connections (sessions) it was sent over.
type testSMTP struct {
	addr     string
	srv      *smtp.Server
	mu       sync.Mutex
	sessions int
	mails    []*mail.Message
	bodies   []string
}

func startTestSMTP(t *testing.T) *testSMTP {
	t.Helper()
	s := &testSMTP{}
	s.srv = smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) {
		s.mu.Lock()
		s.sessions++
		s.mu.Unlock()
		return &testSession{s: s}, nil
	}))
	s.srv.Domain = "localhost"
	s.srv.ReadTimeout, s.srv.WriteTimeout = 10*time.Second, 10*time.Second
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.addr = l.Addr().String()
	go func() { _ = s.srv.Serve(l) }()
	t.Cleanup(func() { _ = s.srv.Close() })
	return s
}

func (s *testSMTP) counts() (sessions, mails int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions, len(s.mails)
}

type testSession struct{ s *testSMTP }

func (x *testSession) Reset()                                    {}
func (x *testSession) Logout() error                             { return nil }
func (x *testSession) Mail(string, *smtp.MailOptions) error      { return nil }
func (x *testSession) Rcpt(to string, _ *smtp.RcptOptions) error { return nil }

// Data keeps the message before the 250 goes back.
func (x *testSession) Data(r io.Reader) error {
	m, err := mail.ReadMessage(r)
	if err != nil {
		return err
	}
	body, err := io.ReadAll(m.Body)
	if err != nil {
		return err
	}
	x.s.mu.Lock()
	defer x.s.mu.Unlock()
	x.s.mails = append(x.s.mails, m)
	x.s.bodies = append(x.s.bodies, string(body))
	return nil
}

// startRelay serves the relay's handler in-process, sending to s.
func startRelay(t *testing.T, s *testSMTP) (*httptest.Server, *mailer) {
	t.Helper()
	m := newMailer(s.addr, "relay@example.com", "inbox@example.com")
	srv := httptest.NewServer(newHandler(m))
	t.Cleanup(func() { srv.Close(); m.Close() })
	return srv, m
}

// post sends a submission; onAnswer, if not nil, runs as soon as the answer's
// header is in, before its body is read.
func post(t *testing.T, base, contentType, body string, onAnswer func()) (int, map[string]any) {
	t.Helper()
	resp, err := http.Post(base+"/submit", contentType, strings.NewReader(body))
	if err != nil {
		t.Error(err)
		return 0, nil
	}
	defer resp.Body.Close()
	if onAnswer != nil {
		onAnswer()
	}
	var answer map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil {
		t.Error(err)
	}
	return resp.StatusCode, answer
}

func TestAJSONSubmissionIsOneMailSentBeforeThe200(t *testing.T) {
	s := startTestSMTP(t)
	srv, _ := startRelay(t, s)
	var mailsAtAnswer int
	code, answer := post(t, srv.URL, "application/json",
		`{"access_key":"k1","name":"Ada","message":"Hello\nthere","tags":["a","b"]}`,
		func() { _, mailsAtAnswer = s.counts() })
	if code != http.StatusOK || answer["success"] != true || answer["message"] != "Form submitted successfully" {
		t.Fatalf("answer %d %v", code, answer)
	}
	if mailsAtAnswer != 1 {
		t.Fatalf("%d mails had arrived when the 200 came; want 1", mailsAtAnswer)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.mails) != 1 {
		t.Fatalf("%d mails; want 1", len(s.mails))
	}
	m := s.mails[0]
	id := m.Header.Get("Message-ID")
	if !strings.HasPrefix(id, "<") || !strings.HasSuffix(id, "@relay>") || len(id) != len("<@relay>")+32 {
		t.Errorf("Message-ID %q; want <32 hex digits@relay>", id)
	}
	for name, want := range map[string]string{"From": "relay@example.com", "To": "inbox@example.com",
		"MIME-Version": "1.0", "Content-Type": "text/plain; charset=utf-8"} {
		if got := m.Header.Get(name); got != want {
			t.Errorf("%s: %q; want %q", name, got, want)
		}
	}
	if _, err := m.Header.Date(); err != nil {
		t.Errorf("Date: %v", err)
	}
	if m.Header.Get("Subject") == "" {
		t.Error("no Subject")
	}
	want := "message: Hello\r\nthere\r\nname: Ada\r\ntags: [\"a\",\"b\"]\r\n"
	if s.bodies[0] != want {
		t.Errorf("body %q; want %q", s.bodies[0], want)
	}
}

func TestAFormSubmissionIsAMailToo(t *testing.T) {
	s := startTestSMTP(t)
	srv, _ := startRelay(t, s)
	form := url.Values{"access_key": {"k2"}, "email": {"ada@example.com"}, "topic": {"a", "b"}}
	if code, answer := post(t, srv.URL, "application/x-www-form-urlencoded", form.Encode(), nil); code != 200 || answer["success"] != true {
		t.Fatalf("answer %d %v", code, answer)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.bodies) != 1 || s.bodies[0] != "email: ada@example.com\r\ntopic: a, b\r\n" {
		t.Fatalf("bodies %q", s.bodies)
	}
}

func TestASubmissionWithoutAKeyOrBodyIsRefusedAndSendsNothing(t *testing.T) {
	s := startTestSMTP(t)
	srv, _ := startRelay(t, s)
	for name, c := range map[string]struct{ contentType, body string }{
		"no key":       {"application/json", `{"name":"no key"}`},
		"empty key":    {"application/json", `{"access_key":"","name":"x"}`},
		"broken JSON":  {"application/json", `{"access_key":`},
		"null":         {"application/json", `null`},
		"form, no key": {"application/x-www-form-urlencoded", "name=x"},
	} {
		if code, answer := post(t, srv.URL, c.contentType, c.body, nil); code != http.StatusBadRequest || answer["success"] != false || answer["message"] == "" {
			t.Errorf("%s: %d %v; want 400 with success false and a message", name, code, answer)
		}
	}
	if sessions, mails := s.counts(); mails != 0 || sessions != 0 {
		t.Fatalf("%d sessions and %d mails; want none", sessions, mails)
	}
}

func TestASubmissionTheServerCannotTakeIsA502(t *testing.T) {
	s := startTestSMTP(t)
	srv, _ := startRelay(t, s)
	if code, _ := post(t, srv.URL, "application/json", `{"access_key":"k","n":"1"}`, nil); code != 200 {
		t.Fatalf("first submission: %d", code)
	}
	_ = s.srv.Close() // the idle connection the relay keeps dies, and no new one can be made
	code, answer := post(t, srv.URL, "application/json", `{"access_key":"k","n":"2"}`, nil)
	if code != http.StatusBadGateway || answer["success"] != false {
		t.Fatalf("with the server closed: %d %v; want 502", code, answer)
	}
}

func TestSequentialSubmissionsShareOneSMTPConnection(t *testing.T) {
	s := startTestSMTP(t)
	srv, _ := startRelay(t, s)
	for i := range 20 {
		if code, answer := post(t, srv.URL, "application/json", `{"access_key":"k","i":`+string(rune('0'+i%10))+`}`, nil); code != 200 {
			t.Fatalf("submission %d: %d %v", i, code, answer)
		}
	}
	if sessions, mails := s.counts(); sessions != 1 || mails != 20 {
		t.Fatalf("%d sessions for %d mails; want 1 for 20", sessions, mails)
	}
}

func TestAnIdleConnectionTheServerDroppedIsReplacedWithinTheRequest(t *testing.T) {
	s := startTestSMTP(t)
	srv, m := startRelay(t, s)
	if code, _ := post(t, srv.URL, "application/json", `{"access_key":"k","n":"1"}`, nil); code != 200 {
		t.Fatalf("first submission: %d", code)
	}
	// The pooled connection is cut under the relay, as a server's idle timeout would.
	c := <-m.idle
	_ = c.Close()
	m.idle <- c
	if code, answer := post(t, srv.URL, "application/json", `{"access_key":"k","n":"2"}`, nil); code != 200 {
		t.Fatalf("after the connection was cut: %d %v", code, answer)
	}
	if sessions, mails := s.counts(); sessions != 2 || mails != 2 {
		t.Fatalf("%d sessions, %d mails; want 2 and 2", sessions, mails)
	}
}

func TestConcurrentSubmissionsAreAllDelivered(t *testing.T) {
	s := startTestSMTP(t)
	srv, _ := startRelay(t, s)
	const n = 64
	var wg sync.WaitGroup
	codes := make([]int, n)
	for i := range n {
		wg.Go(func() { codes[i], _ = post(t, srv.URL, "application/json", `{"access_key":"k","name":"Ada"}`, nil) })
	}
	wg.Wait()
	for i, code := range codes {
		if code != 200 {
			t.Fatalf("submission %d: %d", i, code)
		}
	}
	sessions, mails := s.counts()
	if mails != n {
		t.Fatalf("%d mails; want %d", mails, n)
	}
	if sessions > n {
		t.Fatalf("%d sessions for %d mails", sessions, n)
	}
}

package rspamd_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime/quotedprintable"
	"net"
	"net/http"
	"net/http/httptest"
	netmail "net/mail"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/formd/formd/adapters/rspamd"
	"github.com/formd/formd/application"
)

// closedPort is a loopback address where nothing listens.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}

// fakeRspamd plays a broken or odd rspamd on loopback: it records each
// request and answers with its test's status and body.
type fakeRspamd struct {
	mu       sync.Mutex
	requests []*http.Request
	bodies   []string
	status   int
	body     string
	stall    bool
}

func (f *fakeRspamd) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.requests, f.bodies = append(f.requests, r), append(f.bodies, string(raw))
	status, body, stall := f.status, f.body, f.stall
	f.mu.Unlock()
	if stall {
		<-r.Context().Done()
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

func serve(t *testing.T, status int, body string) (*fakeRspamd, rspamd.Config) {
	t.Helper()
	f := &fakeRspamd{status: status, body: body}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, rspamd.Config{URL: srv.URL, ControllerURL: srv.URL + "/", Password: "s3cret-pw", Timeout: 300 * time.Millisecond}
}

func TestAnswersWithoutAVerdictAreErrors(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		status     int
	}{
		{"garbage", "this is not JSON", 200},
		{"a server error", `{"error":"internal"}`, 500},
		{"JSON without an action", `{"score": 1, "required_score": 15}`, 200},
		{"JSON without a score", `{"action": "no action", "required_score": 15}`, 200},
		{"an unknown action", `{"score": 1, "required_score": 15, "action": "shrug"}`, 200},
		{"two JSON values", `{"score": 1, "required_score": 15, "action": "no action"} {}`, 200},
		{"an answer over the bound", `{"score": 1, "required_score": 15, "action": "no action", "x": "` + strings.Repeat("x", 300<<10) + `"}`, 200},
		{"a redirect", "", http.StatusFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, c := serve(t, tc.status, tc.body)
			v, err := newClassifier(t, c).Classify(context.Background(), message("req-1", "ada@example.org", "Hello", "secret value 42"))
			if !errors.Is(err, rspamd.ErrUnavailable) {
				t.Fatalf("verdict %+v, err %v; want ErrUnavailable", v, err)
			}
			if strings.Contains(err.Error(), "secret value 42") {
				t.Fatalf("the error holds a submitted value: %v", err)
			}
			t.Logf("%s: %v", tc.name, err)
		})
	}
}

func TestASlowRspamdIsAnErrorWithinTheTimeout(t *testing.T) {
	f, c := serve(t, 200, "")
	f.stall = true
	cl := newClassifier(t, c)
	start := time.Now()
	_, err := cl.Classify(context.Background(), message("req-1", "ada@example.org", "Hello", "Hello"))
	if !errors.Is(err, rspamd.ErrUnavailable) {
		t.Fatalf("err %v; want ErrUnavailable", err)
	}
	if elapsed := time.Since(start); elapsed > time.Second {
		t.Fatalf("took %s with a 300ms timeout", elapsed)
	}
	if !strings.Contains(err.Error(), "within 300ms") {
		t.Fatalf("the error does not name the timeout: %v", err)
	}
}

func TestAVerdictIsReadWithTheStrongestReasonsFirst(t *testing.T) {
	f, c := serve(t, 200, `{"is_skipped":false,"score":7.5,"required_score":15.0,"action":"add header",
		"symbols":{"B":{"name":"B","score":1.0},"BAYES_SPAM":{"name":"BAYES_SPAM","score":5.1},"A":{"name":"A","score":1.0},"HAM":{"name":"HAM","score":-0.5}}}`)
	v, err := newClassifier(t, c).Classify(context.Background(), message("req-7", "Ada <ada@example.org>", "Hello\r\nBcc: x@example.org", "line one\nline two"))
	if err != nil {
		t.Fatal(err)
	}
	want := []application.SpamSymbol{{Name: "BAYES_SPAM", Score: 5.1}, {Name: "A", Score: 1}, {Name: "B", Score: 1}, {Name: "HAM", Score: -0.5}}
	if !v.Spam || v.Action != "add header" || v.Score != 7.5 || v.RequiredScore != 15 || len(v.Symbols) != len(want) {
		t.Fatalf("verdict = %+v", v)
	}
	for i := range want {
		if v.Symbols[i] != want[i] {
			t.Fatalf("symbols = %+v, want %+v", v.Symbols, want)
		}
	}

	r, body := f.requests[0], f.bodies[0]
	if r.URL.Path != "/checkv2" || r.Header.Get("IP") != "203.0.113.7" || r.Header.Get("From") != "ada@example.org" ||
		r.Header.Get("Queue-Id") != "req-7" || r.Header.Get("Password") != "" {
		t.Fatalf("request %s with headers %v", r.URL.Path, r.Header)
	}
	msg, err := netmail.ReadMessage(strings.NewReader(body))
	if err != nil {
		t.Fatalf("the message is not RFC 5322: %v\n%s", err, body)
	}
	if got := msg.Header.Get("From"); got != "<ada@example.org>" {
		t.Errorf("From = %q", got)
	}
	if got := msg.Header.Get("Message-Id"); got != "<req-7@formd.invalid>" {
		t.Errorf("Message-ID = %q", got)
	}
	if msg.Header.Get("Bcc") != "" || !strings.HasPrefix(msg.Header.Get("Subject"), "Hello") {
		t.Errorf("the subject's line break made a header: %v", msg.Header)
	}
	if _, err := msg.Header.Date(); err != nil {
		t.Errorf("Date: %v", err)
	}
	text, _ := io.ReadAll(msg.Body)
	if msg.Header.Get("Content-Transfer-Encoding") == "quoted-printable" {
		text, _ = io.ReadAll(quotedprintable.NewReader(bytes.NewReader(text)))
	}
	for _, line := range []string{"name: Ada Lovelace", "email: Ada <ada@example.org>", "message: ", "  line one", "  line two"} {
		if !strings.Contains(string(text), line) {
			t.Errorf("the body lacks %q:\n%s", line, text)
		}
	}
}

func TestAScoreAtTheRequiredScoreIsSpamWhateverTheAction(t *testing.T) {
	_, c := serve(t, 200, `{"score":15,"required_score":15,"action":"no action","symbols":{}}`)
	v, err := newClassifier(t, c).Classify(context.Background(), message("req-1", "", "Hello", "Hello"))
	if err != nil || !v.Spam {
		t.Fatalf("verdict %+v, err %v; want spam", v, err)
	}
	_, c = serve(t, 200, `{"score":5,"required_score":15,"action":"greylist"}`)
	v, err = newClassifier(t, c).Classify(context.Background(), message("req-1", "", "Hello", "Hello"))
	if err != nil || v.Spam {
		t.Fatalf("greylist: verdict %+v, err %v; want not spam", v, err)
	}
}

func TestLearnAnswers(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		status     int
		ok         bool
	}{
		{"learned", `{"success":true}`, 200, true},
		{"already learned", `{"error":"<req-1@formd.invalid> has been already learned as spam, ignore it"}`, 208, true},
		{"already certain", "", 204, true},
		{"not a success", `{"success":false}`, 200, false},
		{"garbage", `<html>`, 200, false},
		{"refused password", `{"error":"Unauthorized"}`, 403, false},
		{"server error", `{"error":"Redis is down"}`, 500, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, c := serve(t, tc.status, tc.body)
			err := newClassifier(t, c).Learn(context.Background(), message("req-1", "ada@example.org", "Hello", "Hello"), true)
			if (err == nil) != tc.ok {
				t.Fatalf("err = %v, want ok %v", err, tc.ok)
			}
			if err != nil && !errors.Is(err, rspamd.ErrUnavailable) {
				t.Fatalf("err %v does not wrap ErrUnavailable", err)
			}
			if err != nil && strings.Contains(err.Error(), "s3cret-pw") {
				t.Fatalf("the error shows the password: %v", err)
			}
			r := f.requests[0]
			if r.URL.Path != "/learnspam" || r.Header.Get("Password") != "s3cret-pw" {
				t.Fatalf("request %s with password %q", r.URL.Path, r.Header.Get("Password"))
			}
		})
	}
	f, c := serve(t, 200, `{"success":true}`)
	if err := newClassifier(t, c).Learn(context.Background(), message("req-1", "", "Hello", "Hello"), false); err != nil {
		t.Fatal(err)
	}
	if f.requests[0].URL.Path != "/learnham" {
		t.Fatalf("ham went to %s", f.requests[0].URL.Path)
	}
}

func TestNewChecksItsConfiguration(t *testing.T) {
	for _, c := range []rspamd.Config{
		{URL: ""},
		{URL: "127.0.0.1:11333"},
		{URL: "ftp://127.0.0.1:11333"},
		{URL: "http://user:pw@127.0.0.1:11333"},
		{URL: "http://127.0.0.1:11333?x=1"},
		{URL: "http://127.0.0.1:11333", ControllerURL: "nope"},
		{URL: "http://127.0.0.1:11333", Timeout: -time.Second},
		{URL: "http://127.0.0.1:11333", Timeout: time.Hour},
	} {
		if _, err := rspamd.New(c); err == nil {
			t.Errorf("New(%+v) accepted it", c)
		} else if strings.Contains(err.Error(), "pw@") {
			t.Errorf("the error shows the credentials: %v", err)
		}
	}
	if _, err := rspamd.New(rspamd.Config{URL: "http://127.0.0.1:11333/", ControllerURL: "https://rspamd.internal:11334"}); err != nil {
		t.Fatal(err)
	}
}

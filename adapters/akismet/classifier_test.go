package akismet_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/formd/formd/adapters/akismet"
	"github.com/formd/formd/adapters/akismet/akismettest"
	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/submission"
)

// testKey is the key the double accepts; it must never show in an error.
const testKey = "k3y-s3cret-123"

const site = "https://shop.example"

func newClassifier(t *testing.T, c akismet.Config) *akismet.Classifier {
	t.Helper()
	cl, err := akismet.New(c)
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

// startDouble runs the Akismet double (akismettest) and a classifier of it
// with key.
func startDouble(t *testing.T, key string) (*akismettest.Double, *akismet.Classifier) {
	t.Helper()
	d := akismettest.Start(testKey)
	t.Cleanup(d.Close)
	return d, newClassifier(t, akismet.Config{Key: key, Site: site, URL: d.URL})
}

// message is a contact form's submission; 203.0.113.7 is a documentation
// address (no traffic goes there: Akismet only reads it).
func message(from, text string) application.SpamMessage {
	return application.SpamMessage{FormID: "f_contact", RequestID: "req-1", From: from, IP: "203.0.113.7", Subject: "Hello",
		Fields: []submission.Field{{Name: "name", Value: "Ada Lovelace"}, {Name: "email", Value: from}, {Name: "message", Value: text}}}
}

func TestAkismetVerdicts(t *testing.T) {
	_, cl := startDouble(t, testKey)
	spam := []application.SpamSymbol{{Name: akismet.SymbolSpam, Score: 1}}
	for name, c := range map[string]struct {
		m    application.SpamMessage
		want application.SpamVerdict
	}{
		"ham": {message("ada@example.org", "Is the shop open on Sunday?"),
			application.SpamVerdict{Score: 0, RequiredScore: 1, Action: application.SpamActionNone}},
		"spam by its content": {message("ada@example.org", "Cheap pills from "+akismettest.SpamMarker),
			application.SpamVerdict{Score: 1, RequiredScore: 1, Action: application.SpamActionAddHeader, Spam: true, Symbols: spam}},
		"spam by its sender": {message(akismettest.SpamEmail, "Is the shop open on Sunday?"),
			application.SpamVerdict{Score: 1, RequiredScore: 1, Action: application.SpamActionAddHeader, Spam: true, Symbols: spam}},
		"blatant spam, to discard": {message("ada@example.org", "Buy now "+akismettest.DiscardMarker),
			application.SpamVerdict{Score: 1, RequiredScore: 1, Action: application.SpamActionReject, Spam: true,
				Symbols: []application.SpamSymbol{{Name: akismet.SymbolDiscard, Score: 1}}}},
	} {
		t.Run(name, func(t *testing.T) {
			v, err := cl.Classify(context.Background(), c.m)
			if err != nil {
				t.Fatal(err)
			}
			if v.Score != c.want.Score || v.RequiredScore != c.want.RequiredScore || v.Action != c.want.Action || v.Spam != c.want.Spam ||
				len(v.Symbols) != len(c.want.Symbols) || (len(v.Symbols) == 1 && v.Symbols[0] != c.want.Symbols[0]) {
				t.Fatalf("verdict = %+v, want %+v", v, c.want)
			}
			if v.Spam != application.IsSpamAction(v.Action) {
				t.Fatalf("verdict %+v: the action and the spam flag disagree", v)
			}
		})
	}
}

func TestCommentCheckIsSentAsAContactFormComment(t *testing.T) {
	d, cl := startDouble(t, testKey)
	m := message("ada@example.org", "Is the shop\nopen on Sunday?")
	m.IP = "::ffff:203.0.113.7"
	if _, err := cl.Classify(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	seen := d.Requests()
	if len(seen) != 1 || seen[0].Path != "/1.1/comment-check" {
		t.Fatalf("requests = %+v, want one to /1.1/comment-check", seen)
	}
	want := map[string]string{"api_key": testKey, "blog": site, "user_ip": "203.0.113.7", "user_agent": "formd",
		"comment_type": "contact-form", "comment_author_email": "ada@example.org",
		"comment_content": "name: Ada Lovelace\nemail: ada@example.org\nmessage: \n  Is the shop\n  open on Sunday?\n"}
	for k, v := range want {
		if got := seen[0].Form.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
}

func TestLearnSubmitsToTheEndpointOfTheJudgement(t *testing.T) {
	d, cl := startDouble(t, testKey)
	m := message("ada@example.org", "Cheap pills")
	if err := cl.Learn(context.Background(), m, true); err != nil {
		t.Fatal(err)
	}
	if err := cl.Learn(context.Background(), m, false); err != nil {
		t.Fatal(err)
	}
	seen := d.Requests()
	if len(seen) != 2 || seen[0].Path != "/1.1/submit-spam" || seen[1].Path != "/1.1/submit-ham" {
		t.Fatalf("requests = %+v, want submit-spam then submit-ham", seen)
	}
	for _, r := range seen {
		for k, v := range map[string]string{"api_key": testKey, "blog": site, "user_ip": "203.0.113.7", "comment_type": "contact-form",
			"comment_author_email": "ada@example.org", "comment_content": "name: Ada Lovelace\nemail: ada@example.org\nmessage: Cheap pills\n"} {
			if got := r.Form.Get(k); got != v {
				t.Errorf("%s: %s = %q, want %q", r.Path, k, got, v)
			}
		}
	}
}

func TestARejectedKeyIsAnErrorThatDoesNotShowIt(t *testing.T) {
	_, cl := startDouble(t, "wr0ng-s3cret-key")
	_, err := cl.Classify(context.Background(), message("ada@example.org", "Hello"))
	expectUnavailable(t, err, "unable to verify")
	err = cl.Learn(context.Background(), message("ada@example.org", "Hello"), true)
	expectUnavailable(t, err, "unable to verify")
}

// expectUnavailable fails unless err wraps ErrUnavailable and says want,
// without the key or the submission's values.
func expectUnavailable(t *testing.T, err error, want string) {
	t.Helper()
	if !errors.Is(err, akismet.ErrUnavailable) {
		t.Fatalf("err = %v, want ErrUnavailable", err)
	}
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want it to say %q", err, want)
	}
	for _, secret := range []string{testKey, "wr0ng-s3cret-key", "ada@example.org", "Ada Lovelace"} {
		if strings.Contains(err.Error(), secret) {
			t.Fatalf("err = %v shows %q", err, secret)
		}
	}
}

// serve runs an Akismet that answers every request with status, headers and
// body.
func serve(t *testing.T, status int, header map[string]string, body string) *akismet.Classifier {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, v := range header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(s.Close)
	return newClassifier(t, akismet.Config{Key: testKey, Site: site, URL: s.URL})
}

func TestAnswersWithoutAVerdictAreErrors(t *testing.T) {
	for name, c := range map[string]struct {
		status int
		header map[string]string
		body   string
		want   string
	}{
		"invalid":                {http.StatusOK, nil, "invalid", "answered invalid"},
		"garbage":                {http.StatusOK, nil, "<html>maintenance</html>", "unexpected answer"},
		"empty":                  {http.StatusOK, nil, "", "unexpected answer"},
		"a verdict in JSON":      {http.StatusOK, nil, `{"spam":true}`, "unexpected answer"},
		"an error status":        {http.StatusInternalServerError, nil, "false", "HTTP 500"},
		"a redirect":             {http.StatusFound, map[string]string{"Location": "https://elsewhere.example/"}, "", "HTTP 302"},
		"false with debug help":  {http.StatusOK, map[string]string{"X-akismet-debug-help": "Empty \"blog\" value"}, "false", "Empty"},
		"an answer far too long": {http.StatusOK, nil, strings.Repeat("true", 8<<10), "longer than"},
	} {
		t.Run(name, func(t *testing.T) {
			cl := serve(t, c.status, c.header, c.body)
			_, err := cl.Classify(context.Background(), message("ada@example.org", "Hello"))
			expectUnavailable(t, err, c.want)
		})
	}
}

func TestLearnWithoutThanksIsAnError(t *testing.T) {
	cl := serve(t, http.StatusOK, nil, "false")
	expectUnavailable(t, cl.Learn(context.Background(), message("ada@example.org", "Hello"), false), "unexpected answer")
}

func TestASlowAkismetIsAnErrorWithinTheTimeout(t *testing.T) {
	stop := make(chan struct{})
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	t.Cleanup(func() { close(stop); s.Close() })
	cl := newClassifier(t, akismet.Config{Key: testKey, Site: site, URL: s.URL, Timeout: 200 * time.Millisecond})
	start := time.Now()
	_, err := cl.Classify(context.Background(), message("ada@example.org", "Hello"))
	expectUnavailable(t, err, "no answer within 200ms")
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("the check took %s, want about the 200ms timeout", took)
	}
}

func TestNewChecksItsConfiguration(t *testing.T) {
	for name, c := range map[string]struct {
		config akismet.Config
		want   string
	}{
		"no key":                {akismet.Config{Site: site}, "akismet key"},
		"a key with a space":    {akismet.Config{Key: "ab cd", Site: site}, "akismet key"},
		"no site":               {akismet.Config{Key: testKey}, "akismet site"},
		"a site without scheme": {akismet.Config{Key: testKey, Site: "shop.example"}, "akismet site"},
		"a URL with a query":    {akismet.Config{Key: testKey, Site: site, URL: "https://rest.akismet.com/?x=1"}, "akismet URL"},
		"a timeout too long":    {akismet.Config{Key: testKey, Site: site, Timeout: time.Minute}, "akismet timeout"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := akismet.New(c.config)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want one about %s", err, c.want)
			}
		})
	}
	if _, err := akismet.New(akismet.Config{Key: testKey, Site: site}); err != nil {
		t.Fatalf("the default URL and timeout: %v", err)
	}
}

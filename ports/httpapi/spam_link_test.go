package httpapi

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"

	"github.com/formd/formd/application"
)

// The page a spam link opens is a plain form posting back to the link,
// with the form's name escaped.
func TestTheSpamLinkPageAsksWithAPlainPost(t *testing.T) {
	gin.SetMode(gin.TestMode)
	s := &Server{log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	rec := httptest.NewRecorder()
	c, _ := gin.CreateTestContext(rec)
	s.page(c, http.StatusOK, spamLinkPage(application.SpamLinkView{FormName: `Contact <b>us</b>`}, "/spam/tok-1"))
	body := rec.Body.String()
	if !strings.Contains(body, `<form method="post" action="/spam/tok-1">`) || !strings.Contains(body, "Mark as spam</button>") {
		t.Errorf("no button posting to the link:\n%s", body)
	}
	if strings.Contains(body, "<b>") || strings.Contains(body, "<script") {
		t.Errorf("unescaped text or script on the page:\n%s", body)
	}
	if rec.Header().Get("Referrer-Policy") != "no-referrer" {
		t.Error("the page's address holds the token: it must not leak as a referrer")
	}
}

// Each outcome of a mark says what happened, and only the one without
// content points to the archive.
func TestTheSpamMarkedPageSaysWhatTheMarkDid(t *testing.T) {
	for name, tt := range map[string]struct {
		out     application.SpamMarked
		want    string
		archive bool
	}{
		"already":   {application.SpamMarked{AlreadyMarked: true}, "already marked as spam", false},
		"learned":   {application.SpamMarked{Kept: true, Learned: true}, "the spam filter learned from it", false},
		"unlearned": {application.SpamMarked{Kept: true}, "could not learn from it now", false},
		"shredded":  {application.SpamMarked{}, "formd no longer keeps this submission's content", true},
	} {
		page := spamMarkedPage(tt.out)
		if !strings.Contains(page.Message, tt.want) {
			t.Errorf("%s: %q, want it to say %q", name, page.Message, tt.want)
		}
		if mentions := strings.Contains(page.Message, "archive"); mentions != tt.archive {
			t.Errorf("%s: mentions the archive %v, want %v", name, mentions, tt.archive)
		}
	}
}

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
// with the form's name escaped, in the browser's language.
func TestTheSpamLinkPageAsksWithAPlainPost(t *testing.T) {
	gin.SetMode(gin.TestMode)
	s := &Server{log: slog.New(slog.NewTextHandler(io.Discard, nil)), config: Config{Messages: inLanguage{"de"}}}
	rec := httptest.NewRecorder()
	c, _ := gin.CreateTestContext(rec)
	c.Request = httptest.NewRequest(http.MethodGet, "/spam/tok-1", nil)
	c.Request.Header.Set("Accept-Language", "de")
	s.page(c, http.StatusOK, s.spamLinkPage(c, application.SpamLinkView{FormName: `Contact <b>us</b>`}, "/spam/tok-1"))
	body := rec.Body.String()
	if !strings.Contains(body, `<form method="post" action="/spam/tok-1">`) || !strings.Contains(body, "de:spam.confirm_button</button>") {
		t.Errorf("no button posting to the link:\n%s", body)
	}
	if !strings.Contains(body, `<html lang="de">`) || !strings.Contains(body, "de:spam.confirm_message Contact &lt;b&gt;us&lt;/b&gt;") {
		t.Errorf("not the German page naming the form:\n%s", body)
	}
	if strings.Contains(body, "<b>") || strings.Contains(body, "<script") {
		t.Errorf("unescaped text or script on the page:\n%s", body)
	}
	if rec.Header().Get("Referrer-Policy") != "no-referrer" {
		t.Error("the page's address holds the token: it must not leak as a referrer")
	}
}

// inLanguage is catalogs of one language whose every text is the
// language, a colon, the message id and its data's values.
type inLanguage struct{ language string }

func (l inLanguage) Language(preferences ...string) string {
	for _, p := range preferences {
		if strings.HasPrefix(p, l.language) {
			return l.language
		}
	}
	return "en"
}

func (inLanguage) Among([]string, ...string) (string, bool) { return "", false }

func (inLanguage) Text(language, id string, data map[string]any) string {
	return language + ":" + messageIDs{}.Text(language, id, data)
}

// Each outcome of a mark says what happened, and only the one without
// content points to the archive.
func TestTheSpamMarkedPageSaysWhatTheMarkDid(t *testing.T) {
	for name, tt := range map[string]struct {
		out            application.SpamMarked
		title, message string
	}{
		"already":   {application.SpamMarked{AlreadyMarked: true}, "already_title", "already_message"},
		"learned":   {application.SpamMarked{Kept: true, Learned: true}, "marked_title", "learned_message"},
		"unlearned": {application.SpamMarked{Kept: true}, "marked_title", "kept_message"},
		"shredded":  {application.SpamMarked{}, "marked_title", "unlearned_message"},
	} {
		if title, message := spamMarkedWords(tt.out); title != tt.title || message != tt.message {
			t.Errorf("%s: %s, %s; want %s, %s", name, title, message, tt.title, tt.message)
		}
	}
}

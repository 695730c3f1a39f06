package httpapi

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/pelletier/go-toml/v2"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/verification"
)

// catalogIDs are the message ids of the English catalog, which every other
// catalog has too (adapters/i18n's tests).
func catalogIDs(t *testing.T) map[string]bool {
	t.Helper()
	raw, err := os.ReadFile("../../adapters/i18n/catalogs/en.toml")
	if err != nil {
		t.Fatal(err)
	}
	var tree map[string]any
	if err := toml.Unmarshal(raw, &tree); err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		for k, v := range m {
			if sub, ok := v.(map[string]any); ok {
				walk(prefix+k+".", sub)
			} else {
				ids[prefix+k] = true
			}
		}
	}
	walk("", tree)
	return ids
}

// askedIDs records the message ids a page asks for.
type askedIDs struct {
	messageIDs
	asked []string
}

func (a *askedIDs) Text(lang, id string, data map[string]any) string {
	a.asked = append(a.asked, id)
	return a.messageIDs.Text(lang, id, data)
}

// Every page a visitor or a link's reader sees asks only for words every
// catalog has: the success page, the error page with each reason and each
// field rule, every verification page, and the client script's messages.
func TestEveryPageAsksOnlyForWordsTheCatalogsHave(t *testing.T) {
	ids := catalogIDs(t)
	asked := &askedIDs{}
	engine := NewServer(&application.Application{}, currentSchema{}, slog.New(slog.DiscardHandler),
		Config{BaseURL: "https://forms.example.test", SubmitRatePerIP: 1, SubmitBurstPerIP: 1, NewLimiter: burstOnly, Messages: asked}).(*gin.Engine)
	get := func(path string) {
		rec := httptest.NewRecorder()
		engine.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != http.StatusOK {
			t.Errorf("GET %s = %d", path, rec.Code)
		}
	}
	get(SuccessPagePath)
	get(ErrorPagePath)
	for code := range pageReasons {
		get(ErrorPagePath + "?" + url.Values{"code": {code}, "requestId": {"req_0123456789abcdef01234567"}}.Encode())
	}
	for rule := range pageRules {
		get(ErrorPagePath + "?" + url.Values{"code": {"fields"}, "field": {"email"}, "rule": {rule}}.Encode())
	}

	gin.SetMode(gin.TestMode)
	s := &Server{log: slog.New(slog.NewTextHandler(io.Discard, nil)), config: Config{Messages: asked}}
	c, _ := gin.CreateTestContext(httptest.NewRecorder())
	c.Request = httptest.NewRequest(http.MethodGet, "/verify/tok", nil)
	for _, kind := range []verification.Kind{verification.KindAccount, verification.KindRecipient, verification.KindPasswordReset} {
		s.page(c, http.StatusOK, s.confirmPage(c, application.LinkView{Kind: kind, Email: "a@example.com"}, "/verify/tok"))
	}
	for _, done := range []string{"account_done", "recipient_done", "password_done"} {
		s.page(c, http.StatusOK, s.linkWords(c, done, "a@example.com"))
	}
	for _, err := range []error{domain.ErrNotFound, &domain.ForbiddenError{Message: "used"}, io.ErrUnexpectedEOF} {
		s.linkFailed(c, err)
	}
	for _, r := range linkRefusals {
		if s.refusal("en", r.err, "English") == "English" {
			t.Errorf("the refusal %q keeps its English words", r.err)
		}
	}
	s.page(c, http.StatusOK, s.spamLinkPage(c, application.SpamLinkView{FormName: "Contact"}, "/spam/tok"))
	for _, out := range []application.SpamMarked{{AlreadyMarked: true}, {Kept: true, Learned: true}, {Kept: true}, {}} {
		title, message := spamMarkedWords(out)
		s.page(c, http.StatusOK, s.spamWords(c, title, message, nil))
	}
	for _, err := range []error{application.ErrSpamLinkExpired, application.ErrBadSpamLink, io.ErrUnexpectedEOF} {
		s.spamLinkFailed(c, err)
	}

	for _, msg := range scriptMessages { // the client script's (client_script_languages.go)
		asked.asked = append(asked.asked, msg.id)
	}
	if len(asked.asked) == 0 {
		t.Fatal("no page asked for any words")
	}
	for _, id := range slices.Compact(slices.Sorted(slices.Values(asked.asked))) {
		if !ids[id] {
			t.Errorf("a page asks for %q, which the catalogs lack", id)
		}
	}
	for _, want := range []string{"page.success.title", "reason.fields", "rule.required", "verify.reset_button", "verify.failed_message",
		"spam.confirm_button", "spam.unlearned_message", "spam.invalid_title", "verify.password_label", "verify.refused_used"} {
		if !slices.Contains(asked.asked, want) {
			t.Errorf("no page asked for %s", want)
		}
	}
	if strings.Contains(strings.Join(asked.asked, " "), "unusable_message") {
		t.Error("asked for a message the unusable link's page does not show")
	}
}

package httpapi

import (
	"errors"
	"fmt"
	"html/template"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/verification"
)

var statusPage = template.Must(template.New("status").Parse(`<!doctype html>
<html lang="{{.Lang}}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;line-height:1.5}input,button{font:inherit;padding:.4rem .6rem}input{width:100%;box-sizing:border-box}</style>
</head><body><h1>{{.Title}}</h1>{{if .Intro}}<p>{{.Intro}}</p>{{end}}<p>{{.Message}}</p>{{if .Details}}<ul>{{range .Details}}<li>{{.}}</li>{{end}}</ul>{{end}}{{if .BackLink}}<p><a href="{{.BackLink}}">{{.BackLabel}}</a></p>{{end}}
{{with .Form}}<form method="post" action="{{.Action}}">{{if .Password}}<p><label for="password">{{.PasswordLabel}}</label><br><input type="password" id="password" name="password" minlength="{{.MinPassword}}" maxlength="1024" required autocomplete="new-password"></p>{{end}}<p><button type="submit">{{.Button}}</button></p></form>{{end}}
{{if .RequestID}}<p><small>{{.RequestIDLabel}}</small></p>{{end}}</body></html>`))

type statusPageData struct {
	// Lang is the page's language, a catalog's (English when empty); the
	// page's own labels are in it.
	Lang                      string
	Title, Message, RequestID string
	// Intro, when set, stands above the message (a form's own words on its
	// error page, above formd's reason).
	Intro string
	// BackLabel and RequestIDLabel are filled in by page.
	BackLabel, RequestIDLabel string
	// Details are listed under the message (the error page's field errors).
	Details []string
	// BackLink is escaped and sanitized by html/template (javascript: URLs are refused).
	BackLink string
	// Form, when set, is a button that posts back to the page's own address
	// (a verification link's confirmation).
	Form *pageForm
}

// pageForm is a plain HTML form of one button, and a new password field when
// Password is set: no script, so the page's CSP allows none.
type pageForm struct {
	Action, Button string
	Password       bool
	// PasswordLabel names the password field, which takes at least
	// MinPassword characters.
	PasswordLabel string
	MinPassword   int
}

func (s *Server) page(c *gin.Context, status int, data statusPageData) {
	c.Header("Content-Type", "text/html; charset=utf-8")
	c.Header("Cache-Control", "no-store")
	// No page of formd's may be framed (clickjacking): CSP for today's
	// browsers, X-Frame-Options for older ones. Forms post only to formd.
	c.Header("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'")
	c.Header("X-Frame-Options", "DENY")
	// A verification page's address holds its link token: no referrer.
	c.Header("Referrer-Policy", "no-referrer")
	if data.Lang == "" {
		data.Lang = "en"
	}
	m := s.messages()
	data.BackLabel = m.Text(data.Lang, "page.back", nil)
	data.RequestIDLabel = m.Text(data.Lang, "page.request_id", map[string]any{"RequestID": data.RequestID})
	c.Header("Content-Language", data.Lang)
	c.Status(status)
	if err := statusPage.Execute(c.Writer, data); err != nil {
		s.log.Error("render page", "err", err)
	}
}

// Following a verification link from a mail takes two steps. GET
// /verify/{token} shows what the link does and a button; only the button's
// POST verifies. Mail scanners and link previews fetch every link of a mail
// but post no forms, so an address is verified only by someone who read the
// mail and chose to: a scanner can no longer verify an account someone else
// registered under the address.

// showLink answers GET /verify/{token}: the confirmation page, in the
// browser's language. It changes nothing.
func (s *Server) showLink(c *gin.Context) {
	view, err := s.app.Queries.VerificationLink.Handle(c.Request.Context(), application.VerificationLinkQuery{Token: c.Param("token")})
	if err != nil {
		s.linkFailed(c, err)
		return
	}
	s.page(c, http.StatusOK, s.confirmPage(c, view, c.Request.URL.Path))
}

// linkWords is a verification page's title and message in the browser's
// language, the message about email.
func (s *Server) linkWords(c *gin.Context, key, email string) statusPageData {
	m := s.messages()
	lang := s.requestLanguage(c)
	data := map[string]any{"Email": email}
	return statusPageData{Lang: lang, Title: m.Text(lang, "verify."+key+"_title", nil), Message: m.Text(lang, "verify."+key+"_message", data)}
}

// confirmPage is the page of a link that has not been confirmed yet.
func (s *Server) confirmPage(c *gin.Context, view application.LinkView, action string) statusPageData {
	key := "recipient"
	switch view.Kind {
	case verification.KindAccount:
		key = "account"
	case verification.KindPasswordReset:
		key = "reset"
	}
	page := s.linkWords(c, key, view.Email)
	page.Form = &pageForm{Action: action, Button: s.messages().Text(page.Lang, "verify."+key+"_button", nil)}
	if view.Kind == verification.KindPasswordReset {
		page.Form.Password, page.Form.MinPassword = true, account.MinPasswordLength
		page.Form.PasswordLabel = s.messages().Text(page.Lang, "verify.password_label", map[string]any{"Min": account.MinPasswordLength})
	}
	return page
}

// confirmLink answers POST /verify/{token}: the page's button. A password
// reset link takes the new password from the form; the others verify.
func (s *Server) confirmLink(c *gin.Context) {
	token := c.Param("token")
	view, err := s.app.Queries.VerificationLink.Handle(c.Request.Context(), application.VerificationLinkQuery{Token: token})
	if err != nil {
		s.linkFailed(c, err)
		return
	}
	if view.Kind == verification.KindPasswordReset {
		s.resetPassword(c, view, token)
		return
	}
	out, err := s.app.Commands.VerifyLink.Handle(c.Request.Context(), application.VerifyLink{Token: token, RequestID: requestIDOf(c)})
	switch {
	case err != nil:
		s.linkFailed(c, err)
	case out.Kind == verification.KindAccount:
		s.page(c, http.StatusOK, s.linkWords(c, "account_done", out.Email))
	case out.Kind == verification.KindRouteRecipient:
		s.page(c, http.StatusOK, s.linkWords(c, "route_recipient_done", out.Email))
	default:
		s.page(c, http.StatusOK, s.linkWords(c, "recipient_done", out.Email))
	}
}

// resetPassword sets the password a reset link's page posted. A password
// that is too short shows the form again with the reason.
func (s *Server) resetPassword(c *gin.Context, view application.LinkView, token string) {
	out, err := s.app.Commands.ResetPassword.Handle(c.Request.Context(), application.ResetPassword{
		Token: token, Password: c.PostForm("password"), RequestID: requestIDOf(c),
	})
	var invalid *domain.InvalidInputError
	switch {
	case err == nil:
		s.page(c, http.StatusOK, s.linkWords(c, "password_done", out.Email))
	case errors.As(err, &invalid):
		retry := s.confirmPage(c, view, c.Request.URL.Path)
		retry.Intro = s.refusal(retry.Lang, err, invalid.Message+".")
		s.page(c, http.StatusBadRequest, retry)
	default:
		s.linkFailed(c, err)
	}
}

// linkRefusals are the catalog ids of the refusals a link's page can name:
// a refusal not listed keeps the domain's English words.
var linkRefusals = []struct {
	err error
	id  string
}{
	{verification.ErrExpired, "verify.refused_expired"},
	{verification.ErrAlreadyUsed, "verify.refused_used"},
	{verification.ErrSuperseded, "verify.refused_superseded"},
	{verification.ErrPasswordResetSince, "verify.refused_reset_since"},
	{account.ErrPasswordTooShort, "verify.refused_password_short"},
	{account.ErrPasswordTooLong, "verify.refused_password_long"},
}

// refusal is err's reason in lang when the catalogs word it, else english.
func (s *Server) refusal(lang string, err error, english string) string {
	for _, r := range linkRefusals {
		if errors.Is(err, r.err) {
			return s.messages().Text(lang, r.id, map[string]any{"Min": account.MinPasswordLength})
		}
	}
	return english
}

// linkFailed answers a link that cannot be shown or confirmed, in the
// browser's language, with the refusal's reason (refusal).
func (s *Server) linkFailed(c *gin.Context, err error) {
	var forbidden *domain.ForbiddenError
	var page statusPageData
	status := http.StatusInternalServerError
	switch {
	case errors.Is(err, domain.ErrNotFound):
		page, status = s.linkWords(c, "unknown", ""), http.StatusNotFound
	case errors.As(err, &forbidden):
		m := s.messages()
		lang := s.requestLanguage(c)
		page = statusPageData{Lang: lang, Title: m.Text(lang, "verify.unusable_title", nil), Message: s.refusal(lang, err, forbidden.Message)}
		status = http.StatusBadRequest
	default:
		s.log.Error("verify link", "requestId", requestIDOf(c), "err", err)
		page = s.linkWords(c, "failed", "")
	}
	page.RequestID = requestIDOf(c)
	s.page(c, status, page)
}

// messages are the configured catalogs, or message ids without them.
func (s *Server) messages() application.Messages {
	if s.config.Messages == nil {
		return messageIDs{}
	}
	return s.config.Messages
}

// messageIDs stands in for the catalogs where none are configured (tests
// that read no page's words): every text is its message id, followed by
// its data's values in key order.
type messageIDs struct{}

func (messageIDs) Language(...string) string { return "en" }

func (messageIDs) Among([]string, ...string) (string, bool) { return "", false }

func (messageIDs) Text(_, id string, data map[string]any) string {
	parts := []string{id}
	for _, k := range slices.Sorted(maps.Keys(data)) {
		parts = append(parts, fmt.Sprint(data[k]))
	}
	return strings.Join(parts, " ")
}

// requestLanguage is the catalog language of the request's
// Accept-Language: the language of the pages it is answered with and of
// the verification mails it causes.
func (s *Server) requestLanguage(c *gin.Context) string {
	return s.messages().Language(c.GetHeader("Accept-Language"))
}

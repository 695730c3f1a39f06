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
	"github.com/formd/formd/domain/verification"
)

var statusPage = template.Must(template.New("status").Parse(`<!doctype html>
<html lang="{{.Lang}}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;line-height:1.5}input,button{font:inherit;padding:.4rem .6rem}input{width:100%;box-sizing:border-box}</style>
</head><body><h1>{{.Title}}</h1>{{if .Intro}}<p>{{.Intro}}</p>{{end}}<p>{{.Message}}</p>{{if .Details}}<ul>{{range .Details}}<li>{{.}}</li>{{end}}</ul>{{end}}{{if .BackLink}}<p><a href="{{.BackLink}}">{{.BackLabel}}</a></p>{{end}}
{{with .Form}}<form method="post" action="{{.Action}}">{{if .Password}}<p><label for="password">New password (at least 12 characters)</label><br><input type="password" id="password" name="password" minlength="12" maxlength="1024" required autocomplete="new-password"></p>{{end}}<p><button type="submit">{{.Button}}</button></p></form>{{end}}
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

// showLink answers GET /verify/{token}: the confirmation page. It changes nothing.
func (s *Server) showLink(c *gin.Context) {
	view, err := s.app.Queries.VerificationLink.Handle(c.Request.Context(), application.VerificationLinkQuery{Token: c.Param("token")})
	if err != nil {
		s.linkFailed(c, err)
		return
	}
	s.page(c, http.StatusOK, confirmPage(view, c.Request.URL.Path))
}

// confirmPage is the page of a link that has not been confirmed yet.
func confirmPage(view application.LinkView, action string) statusPageData {
	switch view.Kind {
	case verification.KindAccount:
		return statusPageData{Title: "Verify your account email",
			Message: "Confirm that " + view.Email + " is yours to verify the formd account registered with it. " +
				"If you did not register with formd, do not confirm: someone else used your address. " +
				"You can take the account over with a password reset instead.",
			Form: &pageForm{Action: action, Button: "Verify my email"}}
	case verification.KindPasswordReset:
		return statusPageData{Title: "Set a new password",
			Message: "Choose a new password for the formd account of " + view.Email + ". " +
				"Every session of the account ends when it changes.",
			Form: &pageForm{Action: action, Button: "Set password", Password: true}}
	default:
		return statusPageData{Title: "Confirm the recipient",
			Message: "Confirm that " + view.Email + " should receive the submissions of a formd form. " +
				"If you did not expect this, close this page and no submissions will be sent to you.",
			Form: &pageForm{Action: action, Button: "Receive submissions"}}
	}
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
		s.page(c, http.StatusOK, statusPageData{Title: "Email verified", Message: "Your account email " + out.Email + " is verified. You can now create forms."})
	default:
		s.page(c, http.StatusOK, statusPageData{Title: "Recipient verified", Message: out.Email + " will now receive this form's submissions."})
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
		s.page(c, http.StatusOK, statusPageData{Title: "Password changed",
			Message: "The password of the formd account of " + out.Email + " is changed and its email is verified. " +
				"Every earlier session of the account has ended: sign in again with the new password."})
	case errors.As(err, &invalid):
		retry := confirmPage(view, c.Request.URL.Path)
		retry.Message = invalid.Message + ". " + retry.Message
		s.page(c, http.StatusBadRequest, retry)
	default:
		s.linkFailed(c, err)
	}
}

// linkFailed answers a link that cannot be shown or confirmed.
func (s *Server) linkFailed(c *gin.Context, err error) {
	var forbidden *domain.ForbiddenError
	switch {
	case errors.Is(err, domain.ErrNotFound):
		s.page(c, http.StatusNotFound, statusPageData{Title: "Link not recognised", Message: "This verification link is not valid. Check that it was copied completely, or request a new one.", RequestID: requestIDOf(c)})
	case errors.As(err, &forbidden):
		s.page(c, http.StatusBadRequest, statusPageData{Title: "Link not usable", Message: forbidden.Message, RequestID: requestIDOf(c)})
	default:
		s.log.Error("verify link", "requestId", requestIDOf(c), "err", err)
		s.page(c, http.StatusInternalServerError, statusPageData{Title: "Something went wrong", Message: "Please try the link again in a moment.", RequestID: requestIDOf(c)})
	}
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

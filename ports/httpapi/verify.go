package httpapi

import (
	"errors"
	"html/template"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/verification"
)

var statusPage = template.Must(template.New("status").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;line-height:1.5}</style>
</head><body><h1>{{.Title}}</h1><p>{{.Message}}</p>{{if .Details}}<ul>{{range .Details}}<li>{{.}}</li>{{end}}</ul>{{end}}{{if .BackLink}}<p><a href="{{.BackLink}}">Go back to the form</a></p>{{end}}
{{if .RequestID}}<p><small>Request id: {{.RequestID}}</small></p>{{end}}</body></html>`))

type statusPageData struct {
	Title, Message, RequestID string
	// Details are listed under the message (the error page's field errors).
	Details []string
	// BackLink is escaped and sanitized by html/template (javascript: URLs are refused).
	BackLink string
}

func (s *Server) page(c *gin.Context, status int, data statusPageData) {
	c.Header("Content-Type", "text/html; charset=utf-8")
	c.Header("Cache-Control", "no-store")
	// No page of formd's may be framed (clickjacking): CSP for today's
	// browsers, X-Frame-Options for older ones.
	c.Header("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
	c.Header("X-Frame-Options", "DENY")
	c.Status(status)
	if err := statusPage.Execute(c.Writer, data); err != nil {
		s.log.Error("render page", "err", err)
	}
}

// verifyLink follows a verification link from an email.
func (s *Server) verifyLink(c *gin.Context) {
	out, err := s.app.Commands.VerifyLink.Handle(c.Request.Context(), application.VerifyLink{Token: c.Param("token"), RequestID: requestIDOf(c)})
	var forbidden *domain.ForbiddenError
	switch {
	case err == nil && out.Kind == verification.KindAccount:
		s.page(c, http.StatusOK, statusPageData{Title: "Email verified", Message: "Your account email " + out.Email + " is verified. You can now create forms."})
	case err == nil:
		s.page(c, http.StatusOK, statusPageData{Title: "Recipient verified", Message: out.Email + " will now receive this form's submissions."})
	case errors.Is(err, domain.ErrNotFound):
		s.page(c, http.StatusNotFound, statusPageData{Title: "Link not recognised", Message: "This verification link is not valid. Check that it was copied completely, or request a new one.", RequestID: requestIDOf(c)})
	case errors.As(err, &forbidden):
		s.page(c, http.StatusBadRequest, statusPageData{Title: "Link not usable", Message: forbidden.Message, RequestID: requestIDOf(c)})
	default:
		s.log.Error("verify link", "requestId", requestIDOf(c), "err", err)
		s.page(c, http.StatusInternalServerError, statusPageData{Title: "Something went wrong", Message: "Please try the link again in a moment.", RequestID: requestIDOf(c)})
	}
}

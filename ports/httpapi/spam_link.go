package httpapi

import (
	"errors"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/formd/formd/application"
)

// The "this was spam" link of a notification mail works as a verification
// link does: GET /spam/{token} shows what it does and a button, and only
// the button's POST marks the submission, so a mail scanner that fetches
// every link marks nothing.

// showSpamLink answers GET /spam/{token}: the confirmation page, in the
// browser's language. It changes nothing.
func (s *Server) showSpamLink(c *gin.Context) {
	view, err := s.app.Queries.SpamLink.Handle(c.Request.Context(), application.SpamLinkQuery{Token: c.Param("token")})
	if err != nil {
		s.spamLinkFailed(c, err)
		return
	}
	s.page(c, http.StatusOK, s.spamLinkPage(c, view, c.Request.URL.Path))
}

// spamLinkPage asks whether to mark the submission, with a button that
// posts to action (the link's own address).
func (s *Server) spamLinkPage(c *gin.Context, view application.SpamLinkView, action string) statusPageData {
	page := s.spamWords(c, "confirm_title", "confirm_message", map[string]any{"FormName": view.FormName})
	page.Form = &pageForm{Action: action, Button: s.messages().Text(page.Lang, "spam.confirm_button", nil)}
	return page
}

// spamWords is a spam link page's title and message (spam.* catalog ids)
// in the browser's language.
func (s *Server) spamWords(c *gin.Context, title, message string, data map[string]any) statusPageData {
	m := s.messages()
	lang := s.requestLanguage(c)
	return statusPageData{Lang: lang, Title: m.Text(lang, "spam."+title, nil), Message: m.Text(lang, "spam."+message, data)}
}

// markSpam answers POST /spam/{token}: the page's button.
func (s *Server) markSpam(c *gin.Context) {
	out, err := s.app.Commands.MarkSpam.Handle(c.Request.Context(), application.MarkSpam{Token: c.Param("token"), RequestID: requestIDOf(c)})
	if err != nil {
		s.spamLinkFailed(c, err)
		return
	}
	title, message := spamMarkedWords(out)
	s.page(c, http.StatusOK, s.spamWords(c, title, message, nil))
}

// spamMarkedWords are the catalog ids (under spam.) of the title and the
// message that say what a mark did.
func spamMarkedWords(out application.SpamMarked) (title, message string) {
	switch {
	case out.AlreadyMarked:
		return "already_title", "already_message"
	case out.Learned:
		return "marked_title", "learned_message"
	case out.Kept:
		return "marked_title", "kept_message"
	default:
		return "marked_title", "unlearned_message"
	}
}

// spamLinkFailed answers a spam link that cannot be shown or followed.
func (s *Server) spamLinkFailed(c *gin.Context, err error) {
	var page statusPageData
	status := http.StatusBadRequest
	switch {
	case errors.Is(err, application.ErrSpamLinkExpired):
		page = s.spamWords(c, "expired_title", "expired_message", nil)
	case errors.Is(err, application.ErrBadSpamLink):
		page = s.spamWords(c, "invalid_title", "invalid_message", nil)
	default:
		s.log.Error("spam link", "requestId", requestIDOf(c), "err", err)
		page, status = s.linkWords(c, "failed", ""), http.StatusInternalServerError
	}
	page.RequestID = requestIDOf(c)
	s.page(c, status, page)
}

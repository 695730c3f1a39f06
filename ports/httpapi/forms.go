package httpapi

import (
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/ports/portkit"
)

// SessionCookie is the spec's session cookie name.
const SessionCookie = "auth.session_token"

const sessionKey = "session"

// authenticate accepts a bearer token or the session cookie.
func (s *Server) authenticate(c *gin.Context) {
	credential := ""
	if h := c.GetHeader("Authorization"); h != "" {
		if scheme, token, ok := strings.Cut(h, " "); ok && strings.EqualFold(scheme, "Bearer") {
			credential = token
		}
	} else if cookie, err := c.Cookie(SessionCookie); err == nil {
		credential = cookie
		c.Set(viaCookieKey, true)
	}
	session, err := s.app.Queries.Authenticate.Handle(c.Request.Context(),
		application.Authenticate{Credential: credential, Cookie: c.GetBool(viaCookieKey)})
	if err != nil {
		s.respondError(c, err)
		return
	}
	c.Set(sessionKey, session)
	c.Next()
}

func sessionOf(c *gin.Context) application.Session {
	return c.MustGet(sessionKey).(application.Session)
}

func (s *Server) listForms(c *gin.Context) {
	forms, err := s.app.Queries.ListForms.Handle(c.Request.Context(), application.ListForms{Caller: sessionOf(c)})
	if err != nil {
		s.respondError(c, err)
		return
	}
	out := make([]portkit.Form, len(forms))
	for i, f := range forms {
		out[i] = portkit.PresentForm(f)
	}
	c.JSON(http.StatusOK, gin.H{"forms": out})
}

func (s *Server) createForm(c *gin.Context) {
	var req formRequest
	if !s.decodeJSON(c, &req) {
		return
	}
	if req.WorkspaceID != nil && *req.WorkspaceID != "" && !isID(*req.WorkspaceID) {
		s.respondError(c, domain.Invalid("workspaceId", "workspaceId must be a UUID"))
		return
	}
	if req.Captcha != nil {
		s.respondError(c, domain.Invalid("captcha", "a captcha is set on an existing form: PATCH /v1/forms/{formId} with captcha"))
		return
	}
	out, err := s.app.Commands.CreateForm.Handle(c.Request.Context(), application.CreateForm{
		Caller: sessionOf(c), RequestID: requestIDOf(c), Language: s.requestLanguage(c), WorkspaceID: strings.ToLower(deref(req.WorkspaceID)),
		WorkspaceName: deref(req.WorkspaceName), Settings: req.settings(),
	})
	if err != nil {
		s.respondError(c, err)
		return
	}
	body := portkit.PresentForm(out.Form)
	body.AccessKey = out.AccessKey
	c.Header("Cache-Control", "no-store")
	c.JSON(http.StatusCreated, gin.H{"form": body})
}

// formID reads the formId path parameter; a malformed id is simply not found.
func (s *Server) formID(c *gin.Context) (string, bool) { return s.uuidParam(c, "formId") }

// uuidParam reads a UUID path parameter, lower-cased (ids are
// case-insensitive); anything but a UUID answers 404, as an unknown id does.
func (s *Server) uuidParam(c *gin.Context, name string) (string, bool) {
	id := c.Param(name)
	if !isID(id) {
		s.respondError(c, domain.ErrNotFound)
		return "", false
	}
	return strings.ToLower(id), true
}

// isID reports whether s is an id as formd writes them (portkit.ID).
func isID(s string) bool {
	_, ok := portkit.ID(s)
	return ok
}

// idParamsAreIDs answers 404 for a route whose path parameter named like an
// id ("formId", "tokenId") is not one, before any handler can hand the
// caller's text to the database: a route added later is covered too.
func (s *Server) idParamsAreIDs(c *gin.Context) {
	for _, p := range c.Params {
		if strings.HasSuffix(p.Key, "Id") && !isID(p.Value) {
			s.respondError(c, domain.ErrNotFound)
			return
		}
	}
	c.Next()
}

func (s *Server) updateForm(c *gin.Context) {
	id, ok := s.formID(c)
	if !ok {
		return
	}
	var req formRequest
	if !s.decodeJSON(c, &req) {
		return
	}
	if req.WorkspaceID != nil || req.WorkspaceName != nil {
		s.respondError(c, domain.Invalid("workspaceId", "a form cannot be moved to another workspace"))
		return
	}
	f, err := s.app.Commands.UpdateForm.Handle(c.Request.Context(), application.UpdateForm{
		Caller: sessionOf(c), RequestID: requestIDOf(c), Language: s.requestLanguage(c), FormID: id, Patch: req.patch(),
	})
	if err != nil {
		s.respondError(c, err)
		return
	}
	s.respondFormChange(c, f)
}

// respondFormChange answers a saved change to a form (PATCH, restore): the
// form, or an acknowledgement to a caller that may not read forms.
func (s *Server) respondFormChange(c *gin.Context, f application.FormRecord) {
	if !sessionOf(c).ReadsForms() {
		c.JSON(http.StatusOK, gin.H{"form": formAcknowledgement{ID: f.ID, UpdatedAt: f.UpdatedAt}})
		return
	}
	c.JSON(http.StatusOK, gin.H{"form": portkit.PresentForm(f)})
}

// formAcknowledgement answers a change made by a credential that may
// write forms but not read them (forms:write without forms:read): that the
// change is saved, not the settings.
type formAcknowledgement struct {
	ID        string    `json:"id"`
	UpdatedAt time.Time `json:"updatedAt"`
}

func (s *Server) formEvents(c *gin.Context) {
	id, ok := s.formID(c)
	if !ok {
		return
	}
	history, err := s.app.Queries.FormHistory.Handle(c.Request.Context(), application.FormHistory{Caller: sessionOf(c), FormID: id})
	if err != nil {
		s.respondError(c, err)
		return
	}
	out := make([]historyJSON, len(history))
	for i, e := range history {
		out[i] = presentHistoryEntry(e, changesOf(e))
	}
	c.JSON(http.StatusOK, gin.H{"events": out})
}

// presentVerification shows a form's recipient verification, naming the
// route that sends a new link.
func presentVerification(formID string, v application.VerificationRecord) portkit.RecipientVerification {
	resend := "POST /v1/forms/" + formID + "/recipient-verifications"
	return portkit.PresentRecipientVerification(formID, v, portkit.VerificationSteps{
		NotSent: func(email string) string {
			return "No verification email was sent to " + email + " (too many were sent for this form, to this address or by this account in the last hour); send one with " + resend + " later."
		},
		Sent: func(email string) string {
			return "Ask " + email + " to follow the link in the verification email; resend it with " + resend + "."
		},
	})
}

func (s *Server) getRecipientVerification(c *gin.Context) {
	id, ok := s.formID(c)
	if !ok {
		return
	}
	v, err := s.app.Queries.RecipientVerification.Handle(c.Request.Context(), application.RecipientVerification{Caller: sessionOf(c), FormID: id})
	if err != nil {
		s.respondError(c, err)
		return
	}
	c.JSON(http.StatusOK, gin.H{"verification": presentVerification(id, v)})
}

func (s *Server) resendRecipientVerification(c *gin.Context) {
	id, ok := s.formID(c)
	if !ok {
		return
	}
	// An optional body names a routing recipient to resend for.
	var body struct {
		RecipientEmail string `json:"recipientEmail"`
	}
	if c.Request.ContentLength != 0 && !s.decodeJSON(c, &body) {
		return
	}
	v, err := s.app.Commands.ResendRecipientVerification.Handle(c.Request.Context(),
		application.ResendRecipientVerification{Caller: sessionOf(c), RequestID: requestIDOf(c), Language: s.requestLanguage(c), FormID: id, RecipientEmail: body.RecipientEmail})
	if err != nil {
		s.respondError(c, err)
		return
	}
	c.JSON(http.StatusCreated, gin.H{"verification": presentVerification(id, v)})
}

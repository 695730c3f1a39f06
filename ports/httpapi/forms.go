package httpapi

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/form"
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
	session, err := s.app.Queries.Authenticate.Handle(c.Request.Context(), application.Authenticate{Credential: credential})
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

// formJSON is the spec's Form, plus the settings the spec leaves open
// (documented in the README).
type formJSON struct {
	ID                string                  `json:"id"`
	WorkspaceID       string                  `json:"workspaceId"`
	Name              string                  `json:"name"`
	RecipientEmail    string                  `json:"recipientEmail"`
	RecipientVerified bool                    `json:"recipientVerified"`
	AccessKeyPrefix   string                  `json:"accessKeyPrefix"`
	AccessKey         string                  `json:"accessKey,omitempty"`
	AllowedDomains    []string                `json:"allowedDomains"`
	SubjectDefault    string                  `json:"subjectDefault"`
	FromNameDefault   string                  `json:"fromNameDefault"`
	RedirectDefault   string                  `json:"redirectDefault"`
	ReplyToMode       form.ReplyToMode        `json:"replyToMode"`
	ReplyToDefault    string                  `json:"replyToDefault"`
	Validation        form.ValidationSettings `json:"validation"`
	AllowedSenderIPs  []string                `json:"allowedSenderIps"`
	UploadsEnabled    bool                    `json:"uploadsEnabled"`
	Autoresponder     form.Autoresponder      `json:"autoresponder"`
	Version           int                     `json:"version"`
	CreatedAt         time.Time               `json:"createdAt"`
	UpdatedAt         time.Time               `json:"updatedAt"`
}

func presentForm(f application.FormRecord) formJSON {
	st := f.Settings
	return formJSON{
		ID: f.ID, WorkspaceID: f.WorkspaceID, Name: st.Name, RecipientEmail: st.RecipientEmail,
		RecipientVerified: f.RecipientVerified, AccessKeyPrefix: f.AccessKeyPrefix,
		AllowedDomains: nonNil(st.AllowedDomains), SubjectDefault: st.SubjectDefault, FromNameDefault: st.FromNameDefault,
		RedirectDefault: st.RedirectDefault, ReplyToMode: st.ReplyToMode, ReplyToDefault: st.ReplyToDefault,
		Validation: st.Validation, AllowedSenderIPs: nonNil(st.AllowedSenderIPs), UploadsEnabled: st.UploadsEnabled,
		Autoresponder: st.Autoresponder, Version: f.Version, CreatedAt: f.CreatedAt, UpdatedAt: f.UpdatedAt,
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// formRequest is CreateForm; on PATCH every field is optional and a missing
// (or null) field keeps its value.
type formRequest struct {
	Name             *string                  `json:"name"`
	RecipientEmail   *string                  `json:"recipientEmail"`
	WorkspaceID      *string                  `json:"workspaceId"`
	WorkspaceName    *string                  `json:"workspaceName"`
	AllowedDomains   *[]string                `json:"allowedDomains"`
	SubjectDefault   *string                  `json:"subjectDefault"`
	FromNameDefault  *string                  `json:"fromNameDefault"`
	RedirectDefault  *string                  `json:"redirectDefault"`
	ReplyToMode      *form.ReplyToMode        `json:"replyToMode"`
	ReplyToDefault   *string                  `json:"replyToDefault"`
	Validation       *form.ValidationSettings `json:"validation"`
	AllowedSenderIPs *[]string                `json:"allowedSenderIps"`
	UploadsEnabled   *bool                    `json:"uploadsEnabled"`
	Autoresponder    *form.Autoresponder      `json:"autoresponder"`
}

func (r formRequest) patch() form.Patch {
	return form.Patch{
		Name: r.Name, RecipientEmail: r.RecipientEmail, AllowedDomains: r.AllowedDomains,
		SubjectDefault: r.SubjectDefault, FromNameDefault: r.FromNameDefault, RedirectDefault: r.RedirectDefault,
		ReplyToMode: r.ReplyToMode, ReplyToDefault: r.ReplyToDefault, Validation: r.Validation,
		AllowedSenderIPs: r.AllowedSenderIPs, UploadsEnabled: r.UploadsEnabled, Autoresponder: r.Autoresponder,
	}
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func (s *Server) listForms(c *gin.Context) {
	forms, err := s.app.Queries.ListForms.Handle(c.Request.Context(), application.ListForms{Caller: sessionOf(c)})
	if err != nil {
		s.respondError(c, err)
		return
	}
	out := make([]formJSON, len(forms))
	for i, f := range forms {
		out[i] = presentForm(f)
	}
	c.JSON(http.StatusOK, gin.H{"forms": out})
}

func (s *Server) createForm(c *gin.Context) {
	var req formRequest
	if !s.decodeJSON(c, &req) {
		return
	}
	if req.WorkspaceID != nil && *req.WorkspaceID != "" && uuid.Validate(*req.WorkspaceID) != nil {
		s.respondError(c, domain.Invalid("workspaceId", "workspaceId must be a UUID"))
		return
	}
	p := req.patch()
	settings := form.Settings{
		Name: deref(p.Name), RecipientEmail: deref(p.RecipientEmail), AllowedDomains: deref(p.AllowedDomains),
		SubjectDefault: deref(p.SubjectDefault), FromNameDefault: deref(p.FromNameDefault),
		RedirectDefault: deref(p.RedirectDefault), ReplyToMode: deref(p.ReplyToMode), ReplyToDefault: deref(p.ReplyToDefault),
		Validation: deref(p.Validation), AllowedSenderIPs: deref(p.AllowedSenderIPs),
		UploadsEnabled: deref(p.UploadsEnabled), Autoresponder: deref(p.Autoresponder),
	}
	out, err := s.app.Commands.CreateForm.Handle(c.Request.Context(), application.CreateForm{
		Caller: sessionOf(c), RequestID: requestIDOf(c), WorkspaceID: strings.ToLower(deref(req.WorkspaceID)),
		WorkspaceName: deref(req.WorkspaceName), Settings: settings,
	})
	if err != nil {
		s.respondError(c, err)
		return
	}
	body := presentForm(out.Form)
	body.AccessKey = out.AccessKey
	c.Header("Cache-Control", "no-store")
	c.JSON(http.StatusCreated, gin.H{"form": body})
}

// formID reads the formId path parameter; a malformed id is simply not found.
func (s *Server) formID(c *gin.Context) (string, bool) {
	id := c.Param("formId")
	if uuid.Validate(id) != nil {
		s.respondError(c, domain.ErrNotFound)
		return "", false
	}
	return strings.ToLower(id), true
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
		Caller: sessionOf(c), RequestID: requestIDOf(c), FormID: id, Patch: req.patch(),
	})
	if err != nil {
		s.respondError(c, err)
		return
	}
	c.JSON(http.StatusOK, gin.H{"form": presentForm(f)})
}

type historyJSON struct {
	Type       string            `json:"type"`
	Version    int               `json:"version"`
	RecordedAt time.Time         `json:"recordedAt"`
	Actor      application.Actor `json:"actor"`
	RequestID  string            `json:"requestId,omitempty"`
	Changes    []form.Change     `json:"changes"`
}

// changesOf says what an event changed, uniformly for every event type.
func changesOf(e application.HistoryEntry) []form.Change {
	switch e.Type {
	case form.CreatedType:
		var created form.Created
		if json.Unmarshal(e.Data, &created) == nil {
			return form.Diff(form.Settings{}, created.Settings, true)
		}
	case form.SettingsChangedType:
		var changed form.SettingsChanged
		if json.Unmarshal(e.Data, &changed) == nil {
			return changed.Changes
		}
	case form.RecipientVerifiedType:
		return []form.Change{{Field: "recipientVerified", From: json.RawMessage("false"), To: json.RawMessage("true")}}
	}
	return []form.Change{}
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
		out[i] = historyJSON{Type: e.Type, Version: e.Version, RecordedAt: e.RecordedAt,
			Actor: e.Metadata.Actor, RequestID: e.Metadata.RequestID, Changes: changesOf(e)}
	}
	c.JSON(http.StatusOK, gin.H{"events": out})
}

type verificationJSON struct {
	FormID         string     `json:"formId"`
	RecipientEmail string     `json:"recipientEmail"`
	Status         string     `json:"status"`
	ExpiresAt      *time.Time `json:"expiresAt,omitempty"`
	DeliveryID     string     `json:"deliveryId,omitempty"`
	NextStep       string     `json:"nextStep,omitempty"`
}

func presentVerification(formID string, v application.VerificationRecord) verificationJSON {
	out := verificationJSON{FormID: formID, RecipientEmail: v.Email, Status: string(v.Status), DeliveryID: v.DeliveryID}
	if !v.ExpiresAt.IsZero() {
		t := v.ExpiresAt.UTC()
		out.ExpiresAt = &t
	}
	if v.Status == "verified" {
		out.NextStep = "The recipient is verified; live submissions are accepted."
	} else {
		out.NextStep = "Ask " + v.Email + " to follow the link in the verification email; resend it with POST /v1/forms/" + formID + "/recipient-verifications."
	}
	return out
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
	v, err := s.app.Commands.ResendRecipientVerification.Handle(c.Request.Context(),
		application.ResendRecipientVerification{Caller: sessionOf(c), RequestID: requestIDOf(c), FormID: id})
	if err != nil {
		s.respondError(c, err)
		return
	}
	c.JSON(http.StatusCreated, gin.H{"verification": presentVerification(id, v)})
}

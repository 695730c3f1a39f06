package httpapi

import (
	"encoding/json"
	"time"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/ports/portkit"
)

// The HTTP shapes of forms as the API takes them. They are the API's
// contract (checked against openapi.json), so they are their own types: the
// domain's settings may change without changing what clients send. A form
// is shown as portkit.Form, which the MCP tools show too.

// uploadLimitsJSON is a PATCH's UploadLimits; it replaces them whole (an
// omitted count or size is the default).
type uploadLimitsJSON struct {
	MaxFiles         int      `json:"maxFiles"`
	MaxFileBytes     int64    `json:"maxFileBytes"`
	AllowedMimeTypes []string `json:"allowedMimeTypes"`
}

// captchaRequest is the captcha of a PATCH: absent or null fields keep
// their value; a new provider needs its own siteKey and secret.
type captchaRequest struct {
	Provider *string  `json:"provider"`
	SiteKey  *string  `json:"siteKey"`
	Secret   *string  `json:"secret"`
	MinScore *float64 `json:"minScore"`
}

// formRequest is CreateForm; on PATCH every field is optional and a missing
// (or null) field keeps its value.
type formRequest struct {
	Name             *string                `json:"name"`
	RecipientEmail   *string                `json:"recipientEmail"`
	WorkspaceID      *string                `json:"workspaceId"`
	WorkspaceName    *string                `json:"workspaceName"`
	AllowedDomains   *[]string              `json:"allowedDomains"`
	SubjectDefault   *string                `json:"subjectDefault"`
	FromNameDefault  *string                `json:"fromNameDefault"`
	RedirectDefault  *string                `json:"redirectDefault"`
	ReplyToMode      *string                `json:"replyToMode"`
	ReplyToDefault   *string                `json:"replyToDefault"`
	Validation       *portkit.Validation    `json:"validation"`
	AllowedSenderIPs *[]string              `json:"allowedSenderIps"`
	UploadsEnabled   *bool                  `json:"uploadsEnabled"`
	UploadLimits     *uploadLimitsJSON      `json:"uploadLimits"`
	Autoresponder    *portkit.Autoresponder `json:"autoresponder"`
	Captcha          *captchaRequest        `json:"captcha"`
	TestMode         *bool                  `json:"testMode"`
	Archive          *portkit.Archive       `json:"archive"`
	Spam             *portkit.Spam          `json:"spam"`
	Language         *string                `json:"language"`
	Pages            *portkit.Pages         `json:"pages"`
	Templates        *portkit.Templates     `json:"templates"`
	Routes           *[]portkit.Route       `json:"routes"`
}

func (r formRequest) patch() form.Patch {
	p := form.Patch{
		Name: r.Name, RecipientEmail: r.RecipientEmail, AllowedDomains: r.AllowedDomains,
		SubjectDefault: r.SubjectDefault, FromNameDefault: r.FromNameDefault, RedirectDefault: r.RedirectDefault,
		ReplyToDefault: r.ReplyToDefault, AllowedSenderIPs: r.AllowedSenderIPs, UploadsEnabled: r.UploadsEnabled,
		TestMode: r.TestMode, Language: r.Language,
	}
	if r.Pages != nil {
		pages := r.Pages.Settings()
		p.Pages = &pages
	}
	if r.ReplyToMode != nil {
		m := form.ReplyToMode(*r.ReplyToMode)
		p.ReplyToMode = &m
	}
	if r.Validation != nil {
		v := r.Validation.Settings()
		p.Validation = &v
	}
	if r.Autoresponder != nil {
		a := form.Autoresponder(*r.Autoresponder)
		p.Autoresponder = &a
	}
	if r.UploadLimits != nil {
		l := form.UploadLimits(*r.UploadLimits)
		p.UploadLimits = &l
	}
	if r.Archive != nil {
		a := r.Archive.Settings()
		p.Archive = &a
	}
	if r.Spam != nil {
		sp := r.Spam.Settings()
		p.Spam = &sp
	}
	if r.Templates != nil {
		t := r.Templates.Settings()
		p.Templates = &t
	}
	if r.Routes != nil {
		routes := portkit.RoutesSettings(*r.Routes)
		p.Routes = &routes
	}
	if r.Captcha != nil {
		p.Captcha = &form.CaptchaPatch{Provider: r.Captcha.Provider, SiteKey: r.Captcha.SiteKey, Secret: r.Captcha.Secret, MinScore: r.Captcha.MinScore}
	}
	return p
}

// settings are the settings of a new form: a missing field is empty. The
// captcha is not among them (createForm refuses it): its secret is stored
// sealed by PATCH.
func (r formRequest) settings() form.Settings {
	p := r.patch()
	return form.Settings{
		Name: deref(p.Name), RecipientEmail: deref(p.RecipientEmail), AllowedDomains: deref(p.AllowedDomains),
		SubjectDefault: deref(p.SubjectDefault), FromNameDefault: deref(p.FromNameDefault),
		RedirectDefault: deref(p.RedirectDefault), ReplyToMode: deref(p.ReplyToMode), ReplyToDefault: deref(p.ReplyToDefault),
		Validation: deref(p.Validation), AllowedSenderIPs: deref(p.AllowedSenderIPs),
		UploadsEnabled: deref(p.UploadsEnabled), UploadLimits: deref(p.UploadLimits), Autoresponder: deref(p.Autoresponder),
		TestMode: deref(p.TestMode), Archive: deref(p.Archive), Spam: deref(p.Spam), Templates: deref(p.Templates),
		Routes: deref(p.Routes), Language: deref(p.Language), Pages: deref(p.Pages),
	}
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// historyJSON is one entry of a form's or an account's audit trail.
type historyJSON struct {
	Type       string       `json:"type"`
	Version    int          `json:"version"`
	RecordedAt time.Time    `json:"recordedAt"`
	Actor      actorJSON    `json:"actor"`
	RequestID  string       `json:"requestId,omitempty"`
	Changes    []changeJSON `json:"changes"`
	// RestoredVersion names, for a restore, the version brought back.
	RestoredVersion int `json:"restoredVersion,omitempty"`
}

// actorJSON is who acted: the type and id the event recorded, and the name
// a person reads, resolved when the trail was read.
type actorJSON struct {
	Type string `json:"type"`
	ID   string `json:"id"`
	Name string `json:"name"`
}

// actorOf is who made an audit trail's entry.
func actorOf(e application.HistoryEntry) actorJSON {
	return actorJSON{Type: e.Metadata.Actor.Type, ID: e.Metadata.Actor.ID, Name: e.ActorName}
}

// presentHistoryEntry shows one entry of an audit trail with its changes.
func presentHistoryEntry(e application.HistoryEntry, changes []changeJSON) historyJSON {
	return historyJSON{Type: e.Type, Version: e.Version, RecordedAt: e.RecordedAt,
		Actor: actorOf(e), RequestID: e.Metadata.RequestID, Changes: changes, RestoredVersion: e.RestoredVersion()}
}

// changeJSON is one setting's value before and after an event.
type changeJSON struct {
	Field string          `json:"field"`
	From  json.RawMessage `json:"from"`
	To    json.RawMessage `json:"to"`
}

// changesOf says what an event changed, uniformly for every event type.
func changesOf(e application.HistoryEntry) []changeJSON {
	changes := e.Changes()
	out := make([]changeJSON, len(changes))
	for i, c := range changes {
		out[i] = changeJSON(c)
	}
	return out
}

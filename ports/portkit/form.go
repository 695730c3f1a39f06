package portkit

import (
	"time"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/form"
)

// Form is the spec's Form, plus the settings the spec leaves open
// (docs/decisions.md), as GET /v1/forms and the MCP tools show a form. It is
// the ports' own type, so the domain's settings may change without changing
// what clients receive; the jsonschema tags describe it to MCP clients.
type Form struct {
	ID                string                `json:"id"`
	WorkspaceID       string                `json:"workspaceId"`
	Name              string                `json:"name"`
	RecipientEmail    string                `json:"recipientEmail"`
	RecipientVerified bool                  `json:"recipientVerified" jsonschema:"whether the recipient followed the verification link; until then live submissions are refused"`
	AccessKeyPrefix   string                `json:"accessKeyPrefix" jsonschema:"the start of the public access key, to recognise it; the key itself is shown only by create_form"`
	AccessKey         string                `json:"accessKey,omitempty" jsonschema:"the public access key websites post with, shown only once, when the form is created"`
	AllowedDomains    []string              `json:"allowedDomains"`
	SubjectDefault    string                `json:"subjectDefault"`
	FromNameDefault   string                `json:"fromNameDefault"`
	RedirectDefault   string                `json:"redirectDefault"`
	ReplyToMode       string                `json:"replyToMode"`
	ReplyToDefault    string                `json:"replyToDefault"`
	Validation        Validation            `json:"validation"`
	AllowedSenderIPs  []string              `json:"allowedSenderIps"`
	UploadsEnabled    bool                  `json:"uploadsEnabled"`
	UploadLimits      EffectiveUploadLimits `json:"uploadLimits" jsonschema:"the effective limits, defaults filled"`
	Autoresponder     Autoresponder         `json:"autoresponder"`
	Captcha           Captcha               `json:"captcha"`
	TestMode          bool                  `json:"testMode" jsonschema:"every submission is a test: judged like a live one, nothing is sent, read_test_inbox shows what would have been"`
	Archive           Archive               `json:"archive" jsonschema:"the submissions archive: off (the default) forwards and forgets; on keeps each submission's sealed payload for retentionDays after it is accepted"`
	Version           int                   `json:"version" jsonschema:"the form's version: how many changes it has had"`
	CreatedAt         time.Time             `json:"createdAt"`
	UpdatedAt         time.Time             `json:"updatedAt"`
}

// EffectiveUploadLimits are a form's upload limits as it shows them: every
// one, defaults filled.
type EffectiveUploadLimits struct {
	MaxFiles         int      `json:"maxFiles"`
	MaxFileBytes     int64    `json:"maxFileBytes"`
	AllowedMimeTypes []string `json:"allowedMimeTypes"`
}

// Autoresponder is a form's confirmation email to the submitter, as shown
// and as set.
type Autoresponder struct {
	Enabled bool   `json:"enabled" jsonschema:"whether the submitter gets a confirmation email"`
	Subject string `json:"subject,omitempty"`
	Message string `json:"message,omitempty"`
}

// Archive is a form's submissions archive, as shown and as set.
type Archive struct {
	Enabled       bool `json:"enabled" jsonschema:"whether submissions accepted from now on are kept, sealed, after delivery"`
	RetentionDays int  `json:"retentionDays,omitempty" jsonschema:"how many days after acceptance an archived submission is kept, then shredded: 1 to the plan's maximum (free 30, Pro and Lifetime 365); only while enabled"`
}

// Settings is the archive as the domain holds it.
func (a Archive) Settings() form.Archive { return form.Archive(a) }

// Captcha is a form's captcha as formd shows it: never the secret, only
// whether one is stored.
type Captcha struct {
	Provider  string   `json:"provider"`
	SiteKey   string   `json:"siteKey,omitempty"`
	MinScore  *float64 `json:"minScore,omitempty"`
	HasSecret bool     `json:"hasSecret"`
}

// PresentForm shows a form record; lists it has none of are empty lists
// (the spec's arrays), never null. The access key is the caller's to add,
// on the one answer that shows it.
func PresentForm(f application.FormRecord) Form {
	st := f.Settings
	return Form{
		ID: f.ID, WorkspaceID: f.WorkspaceID, Name: st.Name, RecipientEmail: st.RecipientEmail,
		RecipientVerified: f.RecipientVerified, AccessKeyPrefix: f.AccessKeyPrefix,
		AllowedDomains: NonNil(st.AllowedDomains), SubjectDefault: st.SubjectDefault, FromNameDefault: st.FromNameDefault,
		RedirectDefault: st.RedirectDefault, ReplyToMode: string(st.ReplyToMode), ReplyToDefault: st.ReplyToDefault,
		Validation: PresentValidation(st.Validation), AllowedSenderIPs: NonNil(st.AllowedSenderIPs), UploadsEnabled: st.UploadsEnabled,
		UploadLimits:  EffectiveUploadLimits(st.UploadLimits.Effective()),
		Autoresponder: Autoresponder(st.Autoresponder), Captcha: presentCaptcha(st.Captcha), TestMode: st.TestMode,
		Archive: Archive(st.Archive),
		Version: f.Version, CreatedAt: f.CreatedAt, UpdatedAt: f.UpdatedAt,
	}
}

func presentCaptcha(c form.Captcha) Captcha {
	out := Captcha{Provider: c.Provider.Name(), SiteKey: c.SiteKey, HasSecret: c.SecretID != ""}
	if c.Provider == form.CaptchaRecaptchaV3 {
		score := c.MinScore
		out.MinScore = &score
	}
	return out
}

// NonNil is a list as answers show it: none is [], never null.
func NonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

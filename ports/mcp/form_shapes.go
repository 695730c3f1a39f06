package mcp

import (
	"time"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/ports/portkit"
)

// The shapes of forms as the tools take and give them. Their JSON names are
// the API's (PATCH /v1/forms/{formId} and the Form schema of /openapi.json),
// so an agent that knows one knows the other; they are this port's own
// types, as the JSON API's are its own.

// formShape is a form as list_forms, create_form and update_form show it.
type formShape struct {
	ID                string             `json:"id"`
	WorkspaceID       string             `json:"workspaceId"`
	Name              string             `json:"name"`
	RecipientEmail    string             `json:"recipientEmail"`
	RecipientVerified bool               `json:"recipientVerified" jsonschema:"whether the recipient followed the verification link; until then live submissions are refused"`
	AccessKeyPrefix   string             `json:"accessKeyPrefix" jsonschema:"the start of the public access key, to recognise it; the key itself is shown only by create_form"`
	AccessKey         string             `json:"accessKey,omitempty" jsonschema:"the public access key websites post with, shown only once, when the form is created"`
	AllowedDomains    []string           `json:"allowedDomains"`
	SubjectDefault    string             `json:"subjectDefault"`
	FromNameDefault   string             `json:"fromNameDefault"`
	RedirectDefault   string             `json:"redirectDefault"`
	ReplyToMode       string             `json:"replyToMode"`
	ReplyToDefault    string             `json:"replyToDefault"`
	Validation        portkit.Validation `json:"validation"`
	AllowedSenderIPs  []string           `json:"allowedSenderIps"`
	UploadsEnabled    bool               `json:"uploadsEnabled"`
	UploadLimits      effectiveLimits    `json:"uploadLimits" jsonschema:"the effective limits, defaults filled"`
	Autoresponder     autoresponderShape `json:"autoresponder"`
	Captcha           captchaShape       `json:"captcha"`
	TestMode          bool               `json:"testMode" jsonschema:"every submission is a test: judged like a live one, nothing is sent, read_test_inbox shows what would have been"`
	Version           int                `json:"version" jsonschema:"the form's version: how many changes it has had"`
	CreatedAt         time.Time          `json:"createdAt"`
	UpdatedAt         time.Time          `json:"updatedAt"`
}

// uploadLimitsShape bounds a submission's files; a count or size left out
// (or 0) is formd's default.
type uploadLimitsShape struct {
	MaxFiles         int      `json:"maxFiles,omitempty"`
	MaxFileBytes     int64    `json:"maxFileBytes,omitempty"`
	AllowedMimeTypes []string `json:"allowedMimeTypes,omitempty"`
}

// effectiveLimits are a form's upload limits as it shows them: every one,
// defaults filled.
type effectiveLimits struct {
	MaxFiles         int      `json:"maxFiles"`
	MaxFileBytes     int64    `json:"maxFileBytes"`
	AllowedMimeTypes []string `json:"allowedMimeTypes"`
}

type autoresponderShape struct {
	Enabled bool   `json:"enabled" jsonschema:"whether the submitter gets a confirmation email"`
	Subject string `json:"subject,omitempty"`
	Message string `json:"message,omitempty"`
}

// captchaShape is a form's captcha as formd shows it: never the secret,
// only whether one is stored.
type captchaShape struct {
	Provider  string   `json:"provider"`
	SiteKey   string   `json:"siteKey,omitempty"`
	MinScore  *float64 `json:"minScore,omitempty"`
	HasSecret bool     `json:"hasSecret"`
}

// captchaInput is a form's captcha in update_form: a field left out keeps
// its value; a new provider needs its own siteKey and secret.
type captchaInput struct {
	Provider *string  `json:"provider,omitempty" jsonschema:"none, recaptcha_v2, recaptcha_v3, hcaptcha, turnstile or formd (formd's own proof-of-work challenge)"`
	SiteKey  *string  `json:"siteKey,omitempty"`
	Secret   *string  `json:"secret,omitempty" jsonschema:"the provider's secret key; stored sealed and never shown again"`
	MinScore *float64 `json:"minScore,omitempty" jsonschema:"recaptcha_v3 only: the lowest score accepted, 0 to 1"`
}

// settingsInput are the settings create_form and update_form share; a
// field left out (or null) is empty on a new form and unchanged on update.
type settingsInput struct {
	AllowedDomains   *[]string           `json:"allowedDomains,omitempty" jsonschema:"the websites allowed to post the form (host names such as example.com); empty allows any"`
	SubjectDefault   *string             `json:"subjectDefault,omitempty" jsonschema:"the notification email's subject when a submission names none"`
	FromNameDefault  *string             `json:"fromNameDefault,omitempty" jsonschema:"the sender name of the notification email"`
	RedirectDefault  *string             `json:"redirectDefault,omitempty" jsonschema:"where a browser goes after a plain HTML post (an absolute URL); empty: formd's own success page"`
	ReplyToMode      *string             `json:"replyToMode,omitempty" jsonschema:"the notification's Reply-To: submitter (the submitted email), default (replyToDefault) or none"`
	ReplyToDefault   *string             `json:"replyToDefault,omitempty"`
	Validation       *portkit.Validation `json:"validation,omitempty" jsonschema:"server-side rules for the submitted fields; replaces the rules whole"`
	AllowedSenderIPs *[]string           `json:"allowedSenderIps,omitempty" jsonschema:"IP addresses allowed to post without Origin or Referer (server-side posts)"`
	UploadsEnabled   *bool               `json:"uploadsEnabled,omitempty" jsonschema:"whether submissions may carry files (a paid feature)"`
	UploadLimits     *uploadLimitsShape  `json:"uploadLimits,omitempty" jsonschema:"limits of uploaded files; replaced whole"`
	Autoresponder    *autoresponderShape `json:"autoresponder,omitempty" jsonschema:"a confirmation email to the submitter"`
	TestMode         *bool               `json:"testMode,omitempty" jsonschema:"test mode: every submission is then a test, judged like a live one, sending nothing; read_test_inbox shows what it would have sent"`
}

// patch is the settings as a domain patch (nil: unchanged).
func (in settingsInput) patch() form.Patch {
	p := form.Patch{AllowedDomains: in.AllowedDomains, SubjectDefault: in.SubjectDefault, FromNameDefault: in.FromNameDefault,
		RedirectDefault: in.RedirectDefault, ReplyToDefault: in.ReplyToDefault, AllowedSenderIPs: in.AllowedSenderIPs,
		UploadsEnabled: in.UploadsEnabled, TestMode: in.TestMode}
	if in.ReplyToMode != nil {
		m := form.ReplyToMode(*in.ReplyToMode)
		p.ReplyToMode = &m
	}
	if in.Validation != nil {
		v := in.Validation.Settings()
		p.Validation = &v
	}
	if in.UploadLimits != nil {
		l := form.UploadLimits(*in.UploadLimits)
		p.UploadLimits = &l
	}
	if in.Autoresponder != nil {
		a := form.Autoresponder(*in.Autoresponder)
		p.Autoresponder = &a
	}
	return p
}

func presentForm(f application.FormRecord) formShape {
	st := f.Settings
	out := formShape{
		ID: f.ID, WorkspaceID: f.WorkspaceID, Name: st.Name, RecipientEmail: st.RecipientEmail,
		RecipientVerified: f.RecipientVerified, AccessKeyPrefix: f.AccessKeyPrefix,
		AllowedDomains: nonNil(st.AllowedDomains), SubjectDefault: st.SubjectDefault, FromNameDefault: st.FromNameDefault,
		RedirectDefault: st.RedirectDefault, ReplyToMode: string(st.ReplyToMode), ReplyToDefault: st.ReplyToDefault,
		Validation: portkit.PresentValidation(st.Validation), AllowedSenderIPs: nonNil(st.AllowedSenderIPs), UploadsEnabled: st.UploadsEnabled,
		UploadLimits:  effectiveLimits(st.UploadLimits.Effective()),
		Autoresponder: autoresponderShape(st.Autoresponder),
		Captcha:       captchaShape{Provider: st.Captcha.Provider.Name(), SiteKey: st.Captcha.SiteKey, HasSecret: st.Captcha.SecretID != ""},
		TestMode:      st.TestMode, Version: f.Version, CreatedAt: f.CreatedAt, UpdatedAt: f.UpdatedAt,
	}
	if st.Captcha.Provider == form.CaptchaRecaptchaV3 {
		score := st.Captcha.MinScore
		out.Captcha.MinScore = &score
	}
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

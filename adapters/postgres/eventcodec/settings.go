package eventcodec

import (
	"encoding/json"

	"github.com/formd/formd/domain/form"
)

// settingsV1 is how form settings are stored, in events and in the forms
// read model. Its JSON names are fixed: they are what old events say.
type settingsV1 struct {
	Name             string       `json:"name"`
	RecipientEmail   string       `json:"recipientEmail"`
	AllowedDomains   []string     `json:"allowedDomains"`
	SubjectDefault   string       `json:"subjectDefault"`
	FromNameDefault  string       `json:"fromNameDefault"`
	RedirectDefault  string       `json:"redirectDefault"`
	ReplyToMode      string       `json:"replyToMode"`
	ReplyToDefault   string       `json:"replyToDefault"`
	Validation       validationV1 `json:"validation"`
	AllowedSenderIPs []string     `json:"allowedSenderIps"`
	UploadsEnabled   bool         `json:"uploadsEnabled"`
	// UploadLimits is absent while the form keeps the defaults, as in every
	// event written before upload limits existed.
	UploadLimits  *uploadLimitsV1 `json:"uploadLimits,omitempty"`
	Autoresponder autoresponderV1 `json:"autoresponder"`
	// Captcha is absent when the form has none, as in every event written
	// before captchas existed.
	Captcha *captchaV1 `json:"captcha,omitempty"`
	// TestMode is absent while off, as in every event written before it.
	TestMode bool `json:"testMode,omitempty"`
	// Archive is absent while off, as in every event written before it.
	Archive *archiveV1 `json:"archive,omitempty"`
	// Spam is absent while off without rules, as in every event written
	// before it.
	Spam *spamV1 `json:"spam,omitempty"`
	// Templates are the form's mail templates (templatesV1).
	Templates *templatesV1 `json:"templates,omitempty"`
	// Routes are absent while the form has none, as in every event written
	// before routing existed.
	Routes []routeV1 `json:"routes,omitempty"`
	// Language and Pages are absent while unset, as in every event written
	// before them.
	Language string   `json:"language,omitempty"`
	Pages    *pagesV1 `json:"pages,omitempty"`
}

// pagesV1 are a form's own hosted pages as stored: heading and text by
// language tag.
type pagesV1 struct {
	Success map[string]pageTextV1 `json:"success,omitempty"`
	Error   map[string]pageTextV1 `json:"error,omitempty"`
}

type pageTextV1 struct {
	Heading string `json:"heading"`
	Text    string `json:"text,omitempty"`
}

func pagesToV1(p form.Pages) *pagesV1 {
	if len(p.Success) == 0 && len(p.Error) == 0 {
		return nil
	}
	convert := func(t form.PageTexts) map[string]pageTextV1 {
		if len(t) == 0 {
			return nil
		}
		out := make(map[string]pageTextV1, len(t))
		for l, w := range t {
			out[l] = pageTextV1(w)
		}
		return out
	}
	return &pagesV1{Success: convert(p.Success), Error: convert(p.Error)}
}

func pagesFromV1(p *pagesV1) form.Pages {
	if p == nil {
		return form.Pages{}
	}
	convert := func(t map[string]pageTextV1) form.PageTexts {
		if len(t) == 0 {
			return nil
		}
		out := make(form.PageTexts, len(t))
		for l, w := range t {
			out[l] = form.PageText(w)
		}
		return out
	}
	return form.Pages{Success: convert(p.Success), Error: convert(p.Error)}
}

// routeV1 is one routing rule as stored.
type routeV1 struct {
	RecipientEmail string   `json:"recipientEmail"`
	Field          string   `json:"field"`
	Operator       string   `json:"operator"`
	Value          string   `json:"value,omitempty"`
	Values         []string `json:"values,omitempty"`
}

func routesToV1(routes []form.Route) []routeV1 {
	if len(routes) == 0 {
		return nil
	}
	out := make([]routeV1, len(routes))
	for i, r := range routes {
		out[i] = routeV1{RecipientEmail: r.RecipientEmail, Field: r.Field, Operator: string(r.Operator), Value: r.Value, Values: r.Values}
	}
	return out
}

func routesFromV1(routes []routeV1) []form.Route {
	if len(routes) == 0 {
		return nil
	}
	out := make([]form.Route, len(routes))
	for i, r := range routes {
		out[i] = form.Route{RecipientEmail: r.RecipientEmail, Field: r.Field, Operator: form.RouteOperator(r.Operator), Value: r.Value, Values: r.Values}
	}
	return out
}

// spamV1 is a form's spam policy as stored; an empty mode is off.
type spamV1 struct {
	Mode     string      `json:"mode,omitempty"`
	HoldDays int         `json:"holdDays,omitempty"`
	Rules    spamRulesV1 `json:"rules,omitzero"`
}

type spamRulesV1 struct {
	AllowIPs          []string `json:"allowIps,omitempty"`
	BlockIPs          []string `json:"blockIps,omitempty"`
	BlockEmailDomains []string `json:"blockEmailDomains,omitempty"`
	BlockDisposable   bool     `json:"blockDisposable,omitempty"`
	BlockWords        []string `json:"blockWords,omitempty"`
	BlockPatterns     []string `json:"blockPatterns,omitempty"`
	MaxLinks          int      `json:"maxLinks,omitempty"`
	AllowedScripts    []string `json:"allowedScripts,omitempty"`
}

func spamToV1(s form.Spam) *spamV1 {
	if s.IsZero() {
		return nil
	}
	return &spamV1{Mode: string(s.Mode), HoldDays: s.HoldDays, Rules: spamRulesV1(s.Rules)}
}

func spamFromV1(s *spamV1) form.Spam {
	if s == nil {
		return form.Spam{}
	}
	return form.Spam{Mode: form.SpamMode(s.Mode), HoldDays: s.HoldDays, Rules: form.SpamRules(s.Rules)}
}

// archiveV1 is a form's submissions archive as stored, while it is on.
type archiveV1 struct {
	Enabled       bool `json:"enabled"`
	RetentionDays int  `json:"retentionDays,omitempty"`
}

func archiveToV1(a form.Archive) *archiveV1 {
	if a == (form.Archive{}) {
		return nil
	}
	return &archiveV1{Enabled: a.Enabled, RetentionDays: a.RetentionDays}
}

func archiveFromV1(a *archiveV1) form.Archive {
	if a == nil {
		return form.Archive{}
	}
	return form.Archive{Enabled: a.Enabled, RetentionDays: a.RetentionDays}
}

// captchaV1 is a form's captcha setting as stored: the provider, its public
// site key, recaptcha_v3's minimum score, and the id of the sealed secret
// (in captcha_secrets), never the secret.
type captchaV1 struct {
	Provider string   `json:"provider"`
	SiteKey  string   `json:"siteKey,omitempty"`
	MinScore *float64 `json:"minScore,omitempty"`
	SecretID string   `json:"secretId,omitempty"`
}

func captchaToV1(c form.Captcha) *captchaV1 {
	if !c.Enabled() {
		return nil
	}
	out := &captchaV1{Provider: string(c.Provider), SiteKey: c.SiteKey, SecretID: c.SecretID}
	if c.Provider == form.CaptchaRecaptchaV3 {
		score := c.MinScore
		out.MinScore = &score
	}
	return out
}

func captchaFromV1(c *captchaV1) form.Captcha {
	if c == nil {
		return form.Captcha{}
	}
	out := form.Captcha{Provider: form.CaptchaProvider(c.Provider), SiteKey: c.SiteKey, SecretID: c.SecretID}
	if c.MinScore != nil {
		out.MinScore = *c.MinScore
	}
	return out
}

// uploadLimitsV1 is a form's upload limits as stored; zero is the default.
type uploadLimitsV1 struct {
	MaxFiles         int      `json:"maxFiles,omitempty"`
	MaxFileBytes     int64    `json:"maxFileBytes,omitempty"`
	AllowedMimeTypes []string `json:"allowedMimeTypes,omitempty"`
}

func uploadLimitsToV1(l form.UploadLimits) *uploadLimitsV1 {
	if l.MaxFiles == 0 && l.MaxFileBytes == 0 && len(l.AllowedMimeTypes) == 0 {
		return nil
	}
	return &uploadLimitsV1{MaxFiles: l.MaxFiles, MaxFileBytes: l.MaxFileBytes, AllowedMimeTypes: l.AllowedMimeTypes}
}

func uploadLimitsFromV1(l *uploadLimitsV1) form.UploadLimits {
	if l == nil {
		return form.UploadLimits{}
	}
	return form.UploadLimits{MaxFiles: l.MaxFiles, MaxFileBytes: l.MaxFileBytes, AllowedMimeTypes: l.AllowedMimeTypes}
}

type validationV1 struct {
	Fields []fieldRuleV1 `json:"fields"`
}

type fieldRuleV1 struct {
	Field     string      `json:"field"`
	Required  bool        `json:"required,omitempty"`
	Type      string      `json:"type,omitempty"`
	MinLength *int        `json:"minLength,omitempty"`
	MaxLength *int        `json:"maxLength,omitempty"`
	Regex     string      `json:"regex,omitempty"`
	File      *fileRuleV1 `json:"file,omitempty"`
}

type fileRuleV1 struct {
	Required         bool     `json:"required,omitempty"`
	AllowedMimeTypes []string `json:"allowedMimeTypes,omitempty"`
}

type autoresponderV1 struct {
	Enabled bool   `json:"enabled"`
	Subject string `json:"subject,omitempty"`
	Message string `json:"message,omitempty"`
}

func settingsToV1(s form.Settings) settingsV1 {
	out := settingsV1{
		Name: s.Name, RecipientEmail: s.RecipientEmail, AllowedDomains: s.AllowedDomains,
		SubjectDefault: s.SubjectDefault, FromNameDefault: s.FromNameDefault, RedirectDefault: s.RedirectDefault,
		ReplyToMode: string(s.ReplyToMode), ReplyToDefault: s.ReplyToDefault,
		AllowedSenderIPs: s.AllowedSenderIPs, UploadsEnabled: s.UploadsEnabled, UploadLimits: uploadLimitsToV1(s.UploadLimits),
		Autoresponder: autoresponderV1{Enabled: s.Autoresponder.Enabled, Subject: s.Autoresponder.Subject, Message: s.Autoresponder.Message},
		Captcha:       captchaToV1(s.Captcha), TestMode: s.TestMode, Archive: archiveToV1(s.Archive), Spam: spamToV1(s.Spam),
		Templates: templatesToV1(s.Templates),
		Routes:    routesToV1(s.Routes),
		Language:  s.Language, Pages: pagesToV1(s.Pages),
	}
	if s.Validation.Fields != nil {
		out.Validation.Fields = make([]fieldRuleV1, len(s.Validation.Fields))
	}
	for i, r := range s.Validation.Fields {
		f := fieldRuleV1{Field: r.Field, Required: r.Required, Type: r.Type, MinLength: r.MinLength, MaxLength: r.MaxLength, Regex: r.Regex}
		if r.File != nil {
			f.File = &fileRuleV1{Required: r.File.Required, AllowedMimeTypes: r.File.AllowedMimeTypes}
		}
		out.Validation.Fields[i] = f
	}
	return out
}

func settingsFromV1(s settingsV1) form.Settings {
	out := form.Settings{
		Name: s.Name, RecipientEmail: s.RecipientEmail, AllowedDomains: s.AllowedDomains,
		SubjectDefault: s.SubjectDefault, FromNameDefault: s.FromNameDefault, RedirectDefault: s.RedirectDefault,
		ReplyToMode: form.ReplyToMode(s.ReplyToMode), ReplyToDefault: s.ReplyToDefault,
		AllowedSenderIPs: s.AllowedSenderIPs, UploadsEnabled: s.UploadsEnabled, UploadLimits: uploadLimitsFromV1(s.UploadLimits),
		Autoresponder: form.Autoresponder{Enabled: s.Autoresponder.Enabled, Subject: s.Autoresponder.Subject, Message: s.Autoresponder.Message},
		Captcha:       captchaFromV1(s.Captcha), TestMode: s.TestMode, Archive: archiveFromV1(s.Archive), Spam: spamFromV1(s.Spam),
		Templates: templatesFromV1(s.Templates),
		Routes:    routesFromV1(s.Routes),
		Language:  s.Language, Pages: pagesFromV1(s.Pages),
	}
	if s.Validation.Fields != nil {
		out.Validation.Fields = make([]form.FieldRule, len(s.Validation.Fields))
	}
	for i, r := range s.Validation.Fields {
		f := form.FieldRule{Field: r.Field, Required: r.Required, Type: r.Type, MinLength: r.MinLength, MaxLength: r.MaxLength, Regex: r.Regex}
		if r.File != nil {
			f.File = &form.FileRule{Required: r.File.Required, AllowedMimeTypes: r.File.AllowedMimeTypes}
		}
		out.Validation.Fields[i] = f
	}
	return out
}

// EncodeSettings is the stored JSON of form settings, as the forms read
// model keeps it. The read model is rebuilt from events, so its column
// follows the current settings shape without a version of its own.
func EncodeSettings(s form.Settings) ([]byte, error) { return json.Marshal(settingsToV1(s)) }

// DecodeSettings reads settings stored by EncodeSettings.
func DecodeSettings(data []byte) (form.Settings, error) {
	var s settingsV1
	if err := json.Unmarshal(data, &s); err != nil {
		return form.Settings{}, err
	}
	return settingsFromV1(s), nil
}

package mcp

import (
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/ports/portkit"
)

// The shapes of forms as the tools take them. Their JSON names are the
// API's (PATCH /v1/forms/{formId}), so an agent that knows one knows the
// other; a form is shown as the API shows it (portkit.Form).

// uploadLimitsShape bounds a submission's files; a count or size left out
// (or 0) is formd's default.
type uploadLimitsShape struct {
	MaxFiles         int      `json:"maxFiles,omitempty"`
	MaxFileBytes     int64    `json:"maxFileBytes,omitempty"`
	AllowedMimeTypes []string `json:"allowedMimeTypes,omitempty"`
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
	AllowedDomains   *[]string              `json:"allowedDomains,omitempty" jsonschema:"the websites allowed to post the form (host names such as example.com); empty allows any"`
	SubjectDefault   *string                `json:"subjectDefault,omitempty" jsonschema:"the notification email's subject when a submission names none"`
	FromNameDefault  *string                `json:"fromNameDefault,omitempty" jsonschema:"the sender name of the notification email"`
	RedirectDefault  *string                `json:"redirectDefault,omitempty" jsonschema:"where a browser goes after a plain HTML post (an absolute URL); empty: formd's own success page"`
	ReplyToMode      *string                `json:"replyToMode,omitempty" jsonschema:"the notification's Reply-To: submitter (the submitted email), default (replyToDefault) or none"`
	ReplyToDefault   *string                `json:"replyToDefault,omitempty"`
	Validation       *portkit.Validation    `json:"validation,omitempty" jsonschema:"server-side rules for the submitted fields; replaces the rules whole"`
	AllowedSenderIPs *[]string              `json:"allowedSenderIps,omitempty" jsonschema:"IP addresses allowed to post without Origin or Referer (server-side posts)"`
	UploadsEnabled   *bool                  `json:"uploadsEnabled,omitempty" jsonschema:"whether submissions may carry files (a paid feature)"`
	UploadLimits     *uploadLimitsShape     `json:"uploadLimits,omitempty" jsonschema:"limits of uploaded files; replaced whole"`
	Autoresponder    *portkit.Autoresponder `json:"autoresponder,omitempty" jsonschema:"a confirmation email to the submitter"`
	TestMode         *bool                  `json:"testMode,omitempty" jsonschema:"test mode: every submission is then a test, judged like a live one, sending nothing; read_test_inbox shows what it would have sent"`
	Archive          *portkit.Archive       `json:"archive,omitempty" jsonschema:"the submissions archive: enabled keeps each submission accepted from then on, sealed, for retentionDays (1 to the plan's maximum: free 30, Pro and Lifetime 365) after it is accepted; off (the default) forwards and forgets"`
	Spam             *spamInput             `json:"spam,omitempty" jsonschema:"the spam policy, replaced whole: mode off (the default), tag (deliver marked [SPAM]) or reject (refuse with 400), and its rules; an allowIps match wins over every other rule"`
	Language         *string                `json:"language,omitempty" jsonschema:"the language of the hosted pages and the default autoresponder: en, de, fr, es, pt, it, nl or ja; empty follows each visitor's browser"`
	Pages            *portkit.Pages         `json:"pages,omitempty" jsonschema:"the form's own heading and text on its hosted success and error pages, by language tag; replaced whole"`
	Templates        *portkit.Templates     `json:"templates,omitempty" jsonschema:"the form's own mail templates (Mustache: {{name}}, {{#fields}}{{name}}: {{value}}{{/fields}}, {{#company}}…{{/company}}), replaced whole; a blank part keeps the default"`
	Routes           *[]portkit.Route       `json:"routes,omitempty" jsonschema:"routing rules, replaced whole (at most 20): a submission goes to every verified recipient whose rule its fields match, else to recipientEmail; each new recipient is mailed its own verification link"`
}

// spamInput is a form's spam policy in create_form and update_form: a rule
// left out is not set.
type spamInput struct {
	Mode  string         `json:"mode" jsonschema:"off, tag or reject"`
	Rules spamRulesInput `json:"rules,omitzero"`
}

// spamRulesInput are portkit.SpamRules with every rule optional.
type spamRulesInput struct {
	AllowIPs          []string `json:"allowIps,omitempty" jsonschema:"IP addresses or CIDR prefixes never judged spam"`
	BlockIPs          []string `json:"blockIps,omitempty" jsonschema:"IP addresses or CIDR prefixes whose submissions are spam"`
	BlockEmailDomains []string `json:"blockEmailDomains,omitempty" jsonschema:"domains: a submitter email at one or a subdomain is spam"`
	BlockDisposable   bool     `json:"blockDisposable,omitempty" jsonschema:"a submitter email at a disposable-address domain is spam"`
	BlockWords        []string `json:"blockWords,omitempty" jsonschema:"words or phrases, matched whole and ignoring case"`
	BlockPatterns     []string `json:"blockPatterns,omitempty" jsonschema:"safe-subset regexes matched against every field value"`
	MaxLinks          int      `json:"maxLinks,omitempty" jsonschema:"the most http(s) URLs all fields may hold; 0 is no limit"`
	AllowedScripts    []string `json:"allowedScripts,omitempty" jsonschema:"Unicode script names such as Latin or Cyrillic; letters of others are a signal"`
}

// patch is the settings as a domain patch (nil: unchanged).
func (in settingsInput) patch() form.Patch {
	p := form.Patch{AllowedDomains: in.AllowedDomains, SubjectDefault: in.SubjectDefault, FromNameDefault: in.FromNameDefault,
		RedirectDefault: in.RedirectDefault, ReplyToDefault: in.ReplyToDefault, AllowedSenderIPs: in.AllowedSenderIPs,
		UploadsEnabled: in.UploadsEnabled, TestMode: in.TestMode, Language: in.Language}
	if in.Pages != nil {
		pages := in.Pages.Settings()
		p.Pages = &pages
	}
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
	if in.Archive != nil {
		a := in.Archive.Settings()
		p.Archive = &a
	}
	if in.Templates != nil {
		t := in.Templates.Settings()
		p.Templates = &t
	}
	if in.Spam != nil {
		sp := portkit.Spam{Mode: in.Spam.Mode, Rules: portkit.SpamRules(in.Spam.Rules)}.Settings()
		p.Spam = &sp
	}
	if in.Routes != nil {
		routes := portkit.RoutesSettings(*in.Routes)
		p.Routes = &routes
	}
	return p
}

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
	Spam              Spam                  `json:"spam" jsonschema:"the spam policy: mode off (the default), tag, hold or reject, and the rules that judge submissions spam"`
	Language          string                `json:"language" jsonschema:"the language of the hosted pages and the default autoresponder: en, de, fr, es, pt, it, nl or ja; blank follows each visitor's browser (Accept-Language)"`
	Pages             Pages                 `json:"pages" jsonschema:"the form's own heading and text on its hosted success and error pages, per language"`
	Templates         Templates             `json:"templates" jsonschema:"the form's own mail templates (Mustache); a blank part keeps the default"`
	Routes            []Route               `json:"routes,omitempty" jsonschema:"routing rules: a submission goes to every verified recipient whose rule its fields match, else to recipientEmail"`
	RouteVerification []RouteVerification   `json:"routeVerification,omitempty" jsonschema:"read-only: whether each routing recipient followed its own verification link"`
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

// Spam is a form's spam policy, as shown and as set (a change replaces it
// whole).
type Spam struct {
	Mode     string    `json:"mode" jsonschema:"off (the default): no spam gate; tag: spam is delivered, its notification subject starting [SPAM] and its webhook bodies carrying a spam object; hold: spam is answered as accepted, sent nowhere and kept sealed in the form's Spam folder for review; reject: spam is refused with 400"`
	HoldDays int       `json:"holdDays,omitempty" jsonschema:"hold mode only: how many days the Spam folder keeps a held submission before shredding it unreviewed, 1 to 90; absent is 30"`
	Rules    SpamRules `json:"rules" jsonschema:"the rules, each optional; lists hold at most 200 entries"`
}

// SpamRules are a form's spam rules, as shown and as set.
type SpamRules struct {
	AllowIPs          []string `json:"allowIps" jsonschema:"IP addresses or CIDR prefixes (v4 or v6) never judged spam: an allow rule wins over every signal"`
	BlockIPs          []string `json:"blockIps" jsonschema:"IP addresses or CIDR prefixes (v4 or v6) whose submissions are spam"`
	BlockEmailDomains []string `json:"blockEmailDomains" jsonschema:"domains: a submitter email at the domain or a subdomain is spam"`
	BlockDisposable   bool     `json:"blockDisposable" jsonschema:"a submitter email at a disposable-address domain (formd's shipped list) is spam"`
	BlockWords        []string `json:"blockWords" jsonschema:"words or phrases found as whole words, ignoring case, in any field"`
	BlockPatterns     []string `json:"blockPatterns" jsonschema:"regexes of the safe subset that validation rules use, matched against every field value"`
	MaxLinks          int      `json:"maxLinks" jsonschema:"the most http(s) URLs all fields may hold together; 0 is no limit"`
	AllowedScripts    []string `json:"allowedScripts" jsonschema:"Unicode script names such as Latin, Cyrillic or Han: letters of any other script are a signal"`
}

// Settings is the spam policy as the domain holds it.
func (s Spam) Settings() form.Spam {
	return form.Spam{Mode: form.SpamMode(s.Mode), HoldDays: s.HoldDays, Rules: form.SpamRules(s.Rules)}
}

// PresentSpam shows a spam policy: its mode named (off for none) and
// every list, empty ones as [].
func PresentSpam(s form.Spam) Spam {
	r := s.Rules
	return Spam{Mode: string(s.Shown()), HoldDays: s.HoldDays, Rules: SpamRules{AllowIPs: NonNil(r.AllowIPs), BlockIPs: NonNil(r.BlockIPs),
		BlockEmailDomains: NonNil(r.BlockEmailDomains), BlockDisposable: r.BlockDisposable, BlockWords: NonNil(r.BlockWords),
		BlockPatterns: NonNil(r.BlockPatterns), MaxLinks: r.MaxLinks, AllowedScripts: NonNil(r.AllowedScripts)}}
}

// Pages are a form's own words on its hosted pages, as shown and as set (a
// change replaces them whole).
type Pages struct {
	Success map[string]PageText `json:"success" jsonschema:"the success page's heading and text by language tag (en, de, fr, es, pt, it, nl, ja)"`
	Error   map[string]PageText `json:"error" jsonschema:"the error page's heading and text by language tag, shown above formd's reason"`
}

// PageText is a hosted page's heading and text in one language, plain text.
type PageText struct {
	Heading string `json:"heading" jsonschema:"one line, at most 200 characters"`
	Text    string `json:"text" jsonschema:"at most 2000 characters"`
}

// Settings are the pages as the domain holds them.
func (p Pages) Settings() form.Pages {
	return form.Pages{Success: pageTexts(p.Success), Error: pageTexts(p.Error)}
}

func pageTexts(m map[string]PageText) form.PageTexts {
	if m == nil {
		return nil
	}
	out := make(form.PageTexts, len(m))
	for l, t := range m {
		out[l] = form.PageText(t)
	}
	return out
}

// PresentPages shows a form's pages, a page without words as {}.
func PresentPages(p form.Pages) Pages {
	return Pages{Success: presentPageTexts(p.Success), Error: presentPageTexts(p.Error)}
}

func presentPageTexts(p form.PageTexts) map[string]PageText {
	out := make(map[string]PageText, len(p))
	for l, t := range p {
		out[l] = PageText(t)
	}
	return out
}

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
		Language: st.Language, Pages: PresentPages(st.Pages),
		Archive: Archive(st.Archive), Spam: PresentSpam(st.Spam), Templates: PresentTemplates(st.Templates),
		Routes: PresentRoutes(st.Routes), RouteVerification: PresentRouteVerification(f),
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

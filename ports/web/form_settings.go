package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/form"
)

// settingsFields are the Settings tab's fields, as typed.
type settingsFields struct {
	Name, RecipientEmail, SubjectDefault, FromNameDefault, ReplyToMode, ReplyToDefault, RedirectDefault, AllowedDomains string
	AutoresponderEnabled                                                                                                bool
	AutoresponderSubject, AutoresponderMessage                                                                          string
	UploadsEnabled                                                                                                      bool
	// MaxFiles, MaxFileBytes and AllowedMimeTypes are the upload limits;
	// empty numbers take the defaults.
	MaxFiles, MaxFileBytes, AllowedMimeTypes string
	// AllowedSenderIPs are the server-side senders' exact IPs, one per line.
	AllowedSenderIPs string
	// Validation is the validation rules as the API's JSON, {"fields": […]}.
	Validation string
	// Captcha: the provider's API name, its site key and recaptcha_v3's
	// minimum score. The secret is typed only to replace it, never shown.
	CaptchaProvider, CaptchaSiteKey, CaptchaMinScore, CaptchaSecret string
	CaptchaHasSecret                                                bool
	// TestMode makes every submission a test: judged, never sent, shown in
	// the Test inbox tab.
	TestMode bool
	// ArchiveEnabled keeps submissions, sealed, for ArchiveRetentionDays
	// (as typed) after they are accepted.
	ArchiveEnabled       bool
	ArchiveRetentionDays string
	// SpamMode is off, tag, hold or reject; SpamHoldDays is how long hold
	// mode keeps spam (as typed, empty: the default). The spam rules' lists
	// are typed one entry per line, SpamMaxLinks as a number (empty: no limit).
	SpamMode, SpamHoldDays                                                               string
	SpamAllowIPs, SpamBlockIPs, SpamBlockEmailDomains, SpamBlockWords, SpamBlockPatterns string
	SpamAllowedScripts, SpamMaxLinks                                                     string
	SpamBlockDisposable                                                                  bool
	// Routes are the routing rules' rows as typed (form_routes.go).
	Routes []routeRow
	// Languages are the form's language and its own hosted pages' words.
	Languages languageFields
	Errors    fieldErrors
}

// settingsPage is the Settings tab.
type settingsPage struct {
	Form           formHeader
	Fields         settingsFields
	ReplyToModes   []form.ReplyToMode
	CaptchaChoices []captchaChoice
	// Defaults are the upload limits a form gets when it sets none.
	Defaults form.UploadLimits
	// MaxFilesCeiling is the most files a form may allow.
	MaxFilesCeiling int
	// MaxFileBytesHint says the default largest file and the most allowed.
	MaxFileBytesHint string
	// ArchiveMaxDays is the longest archive retention the account's plan
	// allows; 0 when it could not be read (the page then names no number).
	ArchiveMaxDays int
	// SpamModes are the spam modes the page offers.
	SpamModes []form.SpamMode
	// DefaultHoldDays and MaxHoldDays bound hold mode's days.
	DefaultHoldDays, MaxHoldDays int
	// Templates is the mail templates' card (form_templates.go).
	Templates *templatesForm
	// RouteOperators are the routing rules' operators the page offers.
	RouteOperators []form.RouteOperator
}

// captchaChoice is one captcha provider as the page offers it.
type captchaChoice struct{ Value, Label string }

// captchaChoices are the providers, in the page's order.
var captchaChoices = []captchaChoice{
	{form.CaptchaNoneName, "None"},
	{string(form.CaptchaFormd), "formd's proof of work (no third party)"},
	{string(form.CaptchaTurnstile), "Cloudflare Turnstile"},
	{string(form.CaptchaHCaptcha), "hCaptcha"},
	{string(form.CaptchaRecaptchaV2), "reCAPTCHA v2"},
	{string(form.CaptchaRecaptchaV3), "reCAPTCHA v3 (score)"},
}

// settingsFieldNames map the settings' names in errors (as PATCH
// /v1/forms/{formId} names them) to the page's fields.
var settingsFieldNames = map[string]string{
	"name": "name", "recipientEmail": "recipientEmail", "allowedDomains": "allowedDomains",
	"subjectDefault": "subjectDefault", "fromNameDefault": "fromNameDefault", "redirectDefault": "redirectDefault",
	"replyToMode": "replyToMode", "replyToDefault": "replyToDefault", "uploadsEnabled": "uploadsEnabled",
	"autoresponder.subject": "autoresponderSubject", "autoresponder.message": "autoresponderMessage",
	"autoresponder": "autoresponderEnabled", "allowedSenderIps": "allowedSenderIps",
	"uploadLimits.maxFiles": "maxFiles", "uploadLimits.maxFileBytes": "maxFileBytes",
	"uploadLimits.allowedMimeTypes": "allowedMimeTypes", "uploadLimits": "maxFiles",
	"captcha": "captchaProvider", "captcha.provider": "captchaProvider", "captcha.siteKey": "captchaSiteKey",
	"captcha.secret": "captchaSecret", "captcha.minScore": "captchaMinScore", "testMode": "testMode",
	"archive.enabled": "archiveEnabled", "archive.retentionDays": "archiveRetentionDays",
	"spam.mode": "spamMode", "spam.holdDays": "spamHoldDays", "spam.rules.allowIps": "spamAllowIps", "spam.rules.blockIps": "spamBlockIps",
	"spam.rules.blockEmailDomains": "spamBlockEmailDomains", "spam.rules.blockWords": "spamBlockWords",
	"spam.rules.blockPatterns": "spamBlockPatterns", "spam.rules.maxLinks": "spamMaxLinks",
	"spam.rules.allowedScripts": "spamAllowedScripts",
}

// ruleIndex finds the rule a validation error names (validation.fields[2].regex).
var ruleIndex = regexp.MustCompile(`^validation\.fields\[(\d+)\]`)

// listIndex is the "[3]" of a list entry's field name (allowedDomains[3]).
var listIndex = regexp.MustCompile(`\[\d+\]$`)

func fieldsOf(s form.Settings) settingsFields {
	return settingsFields{Name: s.Name, RecipientEmail: s.RecipientEmail, SubjectDefault: s.SubjectDefault,
		FromNameDefault: s.FromNameDefault, ReplyToMode: string(s.ReplyToMode), ReplyToDefault: s.ReplyToDefault,
		RedirectDefault: s.RedirectDefault, AllowedDomains: strings.Join(s.AllowedDomains, "\n"),
		AutoresponderEnabled: s.Autoresponder.Enabled, AutoresponderSubject: s.Autoresponder.Subject,
		AutoresponderMessage: s.Autoresponder.Message, UploadsEnabled: s.UploadsEnabled,
		MaxFiles: countOrEmpty(int64(s.UploadLimits.MaxFiles)), MaxFileBytes: countOrEmpty(s.UploadLimits.MaxFileBytes),
		AllowedMimeTypes: strings.Join(s.UploadLimits.AllowedMimeTypes, "\n"), AllowedSenderIPs: strings.Join(s.AllowedSenderIPs, "\n"),
		Validation: validationJSON(s.Validation), CaptchaProvider: s.Captcha.Provider.Name(), CaptchaSiteKey: s.Captcha.SiteKey,
		CaptchaMinScore: minScoreText(s.Captcha), CaptchaHasSecret: s.Captcha.SecretID != "", TestMode: s.TestMode,
		ArchiveEnabled: s.Archive.Enabled, ArchiveRetentionDays: countOrEmpty(int64(s.Archive.RetentionDays)),
		SpamMode: string(s.Spam.Shown()), SpamHoldDays: countOrEmpty(int64(s.Spam.HoldDays)), SpamAllowIPs: strings.Join(s.Spam.Rules.AllowIPs, "\n"),
		SpamBlockIPs: strings.Join(s.Spam.Rules.BlockIPs, "\n"), SpamBlockEmailDomains: strings.Join(s.Spam.Rules.BlockEmailDomains, "\n"),
		SpamBlockWords: strings.Join(s.Spam.Rules.BlockWords, "\n"), SpamBlockPatterns: strings.Join(s.Spam.Rules.BlockPatterns, "\n"),
		SpamAllowedScripts: strings.Join(s.Spam.Rules.AllowedScripts, "\n"), SpamMaxLinks: countOrEmpty(int64(s.Spam.Rules.MaxLinks)),
		SpamBlockDisposable: s.Spam.Rules.BlockDisposable, Languages: languageFieldsOf(s)}
}

// countOrEmpty shows an unset limit (0) as an empty field, which the page
// explains takes the default.
func countOrEmpty(n int64) string {
	if n == 0 {
		return ""
	}
	return strconv.FormatInt(n, 10)
}

// validationJSON shows a form's rules as the API takes them; no rules is
// an empty box.
func validationJSON(v form.ValidationSettings) string {
	if len(v.Fields) == 0 {
		return ""
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return ""
	}
	return string(b)
}

// mebibytes writes a size as people read it: "5 MiB".
func mebibytes(n int64) string {
	return strconv.FormatFloat(float64(n)/(1<<20), 'f', -1, 64) + " MiB"
}

func minScoreText(c form.Captcha) string {
	if c.Provider != form.CaptchaRecaptchaV3 {
		return ""
	}
	return strconv.FormatFloat(c.MinScore, 'f', -1, 64)
}

func (s *Server) showSettings(w http.ResponseWriter, r *http.Request, v *visitor) {
	f, ok := s.loadForm(w, r, v, "Settings")
	if !ok {
		return
	}
	fields := fieldsOf(f.Settings)
	fields.Routes = routeRowsOf(f)
	s.drawSettings(w, r, v, http.StatusOK, settingsPage{Form: f, Fields: fields}, notices[r.URL.Query().Get("notice")])
}

func (s *Server) drawSettings(w http.ResponseWriter, r *http.Request, v *visitor, status int, page settingsPage, notice string) {
	page.ReplyToModes = []form.ReplyToMode{form.ReplyToSubmitter, form.ReplyToDefault, form.ReplyToNone}
	page.CaptchaChoices = captchaChoices
	page.RouteOperators = routeOperators
	page.Defaults = form.UploadLimits{}.Effective()
	page.MaxFilesCeiling = form.MaxFilesCeiling
	page.SpamModes = []form.SpamMode{form.SpamOff, form.SpamTag, form.SpamHold, form.SpamReject}
	page.DefaultHoldDays, page.MaxHoldDays = form.DefaultSpamHoldDays, form.MaxSpamHoldDays
	page.MaxFileBytesHint = fmt.Sprintf("Empty: %d (%s). At most %d (%s).", page.Defaults.MaxFileBytes,
		mebibytes(page.Defaults.MaxFileBytes), form.MaxFileBytesCeiling, mebibytes(form.MaxFileBytesCeiling))
	page.Fields.CaptchaSecret = "" // a typed secret is never sent back
	if page.Templates == nil {
		page.Templates = &templatesForm{Values: page.Form.Settings.Templates}
	}
	if acc, err := s.app.Queries.AccountOverview.Handle(r.Context(), application.AccountOverview{Caller: v.Session}); err == nil {
		page.ArchiveMaxDays = acc.Plan.ArchiveRetentionDays()
	}
	s.render(w, r, status, "form-settings", view{Title: page.Form.Name + ": settings", Section: "forms", Visitor: v,
		Notice: notice, Alert: page.Fields.Errors[""], Data: page})
}

// saveSettings saves every setting of the page through the same command as
// PATCH /v1/forms/{formId}, so it refuses with the same errors.
func (s *Server) saveSettings(w http.ResponseWriter, r *http.Request, v *visitor) {
	f, ok := s.loadForm(w, r, v, "Settings")
	if !ok {
		return
	}
	in := settingsFields{
		Name: strings.TrimSpace(r.PostFormValue("name")), RecipientEmail: strings.TrimSpace(r.PostFormValue("recipientEmail")),
		SubjectDefault: r.PostFormValue("subjectDefault"), FromNameDefault: r.PostFormValue("fromNameDefault"),
		ReplyToMode: r.PostFormValue("replyToMode"), ReplyToDefault: strings.TrimSpace(r.PostFormValue("replyToDefault")),
		RedirectDefault: strings.TrimSpace(r.PostFormValue("redirectDefault")), AllowedDomains: r.PostFormValue("allowedDomains"),
		AutoresponderEnabled: r.PostFormValue("autoresponderEnabled") == "on",
		AutoresponderSubject: r.PostFormValue("autoresponderSubject"), AutoresponderMessage: r.PostFormValue("autoresponderMessage"),
		UploadsEnabled: r.PostFormValue("uploadsEnabled") == "on",
		MaxFiles:       strings.TrimSpace(r.PostFormValue("maxFiles")), MaxFileBytes: strings.TrimSpace(r.PostFormValue("maxFileBytes")),
		AllowedMimeTypes: r.PostFormValue("allowedMimeTypes"), AllowedSenderIPs: r.PostFormValue("allowedSenderIps"),
		Validation:      strings.TrimSpace(r.PostFormValue("validation")),
		CaptchaProvider: r.PostFormValue("captchaProvider"), CaptchaSiteKey: strings.TrimSpace(r.PostFormValue("captchaSiteKey")),
		CaptchaMinScore: strings.TrimSpace(r.PostFormValue("captchaMinScore")), CaptchaSecret: strings.TrimSpace(r.PostFormValue("captchaSecret")),
		CaptchaHasSecret: f.Settings.Captcha.SecretID != "", TestMode: r.PostFormValue("testMode") == "on",
		ArchiveEnabled: r.PostFormValue("archiveEnabled") == "on", ArchiveRetentionDays: strings.TrimSpace(r.PostFormValue("archiveRetentionDays")),
		SpamMode: r.PostFormValue("spamMode"), SpamHoldDays: strings.TrimSpace(r.PostFormValue("spamHoldDays")), SpamAllowIPs: r.PostFormValue("spamAllowIps"), SpamBlockIPs: r.PostFormValue("spamBlockIps"),
		SpamBlockEmailDomains: r.PostFormValue("spamBlockEmailDomains"), SpamBlockWords: r.PostFormValue("spamBlockWords"),
		SpamBlockPatterns: r.PostFormValue("spamBlockPatterns"), SpamAllowedScripts: r.PostFormValue("spamAllowedScripts"),
		SpamMaxLinks: strings.TrimSpace(r.PostFormValue("spamMaxLinks")), SpamBlockDisposable: r.PostFormValue("spamBlockDisposable") == "on",
		Languages: languageFieldsPosted(r),
		Routes:    typedRoutes(r),
	}
	patch, problems := settingsPatch(in)
	in.Routes = withBlankRouteRows(in.Routes) // shown again as typed if refused
	if problems != nil {
		in.Errors = problems
		s.drawSettings(w, r, v, http.StatusBadRequest, settingsPage{Form: f, Fields: in}, "")
		return
	}
	_, err := s.app.Commands.UpdateForm.Handle(r.Context(), application.UpdateForm{Caller: v.Session, RequestID: requestIDOf(r), Language: s.requestLanguage(r),
		FormID: f.ID, Patch: patch})
	if err != nil {
		var invalid *domain.InvalidInputError
		if errors.As(err, &invalid) {
			if name, message, ok := settingsProblem(invalid); ok {
				in.Errors = fieldErrors{name: message}
				s.drawSettings(w, r, v, http.StatusBadRequest, settingsPage{Form: f, Fields: in}, "")
				return
			}
		}
		if problems, ok := formProblem(err, settingsFieldNames); ok {
			in.Errors = problems
			s.drawSettings(w, r, v, http.StatusBadRequest, settingsPage{Form: f, Fields: in}, "")
			return
		}
		s.failed(w, r, err)
		return
	}
	notice := "settings-saved"
	if !strings.EqualFold(in.RecipientEmail, f.Recipient) {
		notice = "settings-saved-recipient"
	}
	http.Redirect(w, r, Prefix+"/forms/"+f.ID+"/settings?notice="+notice, http.StatusSeeOther)
}

// settingsPatch turns what was typed into the patch PATCH /v1/forms/{formId}
// would get; what cannot even be read (a number that is not one, rules that
// are not JSON) is refused here, next to its field.
func settingsPatch(in settingsFields) (form.Patch, fieldErrors) {
	domains := splitList(in.AllowedDomains)
	if domains == nil {
		domains = []string{}
	}
	senders := splitList(in.AllowedSenderIPs)
	if senders == nil {
		senders = []string{}
	}
	mode := form.ReplyToMode(in.ReplyToMode)
	auto := form.Autoresponder{Enabled: in.AutoresponderEnabled, Subject: in.AutoresponderSubject, Message: in.AutoresponderMessage}
	patch := form.Patch{Name: &in.Name, RecipientEmail: &in.RecipientEmail, AllowedDomains: &domains,
		SubjectDefault: &in.SubjectDefault, FromNameDefault: &in.FromNameDefault, RedirectDefault: &in.RedirectDefault,
		ReplyToMode: &mode, ReplyToDefault: &in.ReplyToDefault, Autoresponder: &auto, UploadsEnabled: &in.UploadsEnabled,
		AllowedSenderIPs: &senders, TestMode: &in.TestMode}
	languagePatch(in.Languages, &patch)

	limits := form.UploadLimits{AllowedMimeTypes: splitList(in.AllowedMimeTypes)}
	if in.MaxFiles != "" {
		n, err := strconv.Atoi(in.MaxFiles)
		if err != nil {
			return patch, fieldErrors{"maxFiles": "Enter a whole number of files, or leave it empty for the default"}
		}
		limits.MaxFiles = n
	}
	if in.MaxFileBytes != "" {
		n, err := strconv.ParseInt(in.MaxFileBytes, 10, 64)
		if err != nil {
			return patch, fieldErrors{"maxFileBytes": "Enter a size in bytes, or leave it empty for the default"}
		}
		limits.MaxFileBytes = n
	}
	patch.UploadLimits = &limits

	rules := form.ValidationSettings{Fields: []form.FieldRule{}}
	if in.Validation != "" {
		decoder := json.NewDecoder(strings.NewReader(in.Validation))
		decoder.DisallowUnknownFields()
		if err := decoder.Decode(&rules); err != nil {
			return patch, fieldErrors{"validation": `The rules must be JSON like {"fields": [{"field": "email", "required": true, "type": "email"}]}: ` + err.Error()}
		}
		if rules.Fields == nil {
			rules.Fields = []form.FieldRule{}
		}
	}
	patch.Validation = &rules

	// Switched off, the archive keeps no retention: a number left in the
	// box is not a setting.
	archive := form.Archive{Enabled: in.ArchiveEnabled}
	if in.ArchiveEnabled {
		days, err := strconv.Atoi(in.ArchiveRetentionDays)
		if err != nil {
			return patch, fieldErrors{"archiveRetentionDays": "Enter how many days to keep submissions, such as 30"}
		}
		archive.RetentionDays = days
	}
	patch.Archive = &archive

	// Words and patterns are one per line: a comma may be part of either.
	spam := form.Spam{Mode: form.SpamMode(in.SpamMode), Rules: form.SpamRules{AllowIPs: splitList(in.SpamAllowIPs),
		BlockIPs: splitList(in.SpamBlockIPs), BlockEmailDomains: splitList(in.SpamBlockEmailDomains),
		BlockDisposable: in.SpamBlockDisposable, BlockWords: splitLines(in.SpamBlockWords),
		BlockPatterns: splitLines(in.SpamBlockPatterns), AllowedScripts: splitList(in.SpamAllowedScripts)}}
	// Out of hold mode the days are no setting, as the archive's
	// retention is not while it is off.
	if spam.Mode == form.SpamHold && in.SpamHoldDays != "" {
		days, err := strconv.Atoi(in.SpamHoldDays)
		if err != nil {
			return patch, fieldErrors{"spamHoldDays": "Enter how many days to hold spam, such as 30, or leave it empty for 30"}
		}
		spam.HoldDays = days
	}
	if in.SpamMaxLinks != "" {
		n, err := strconv.Atoi(in.SpamMaxLinks)
		if err != nil {
			return patch, fieldErrors{"spamMaxLinks": "Enter a whole number of links, or leave it empty for no limit"}
		}
		spam.Rules.MaxLinks = n
	}
	patch.Spam = &spam

	provider := in.CaptchaProvider
	captcha := form.CaptchaPatch{Provider: &provider}
	chosen := form.CaptchaProvider(provider)
	if chosen.ThirdParty() && provider != form.CaptchaNoneName {
		captcha.SiteKey = &in.CaptchaSiteKey
		if in.CaptchaSecret != "" {
			captcha.Secret = &in.CaptchaSecret
		}
		if chosen == form.CaptchaRecaptchaV3 && in.CaptchaMinScore != "" {
			score, err := strconv.ParseFloat(in.CaptchaMinScore, 64)
			if err != nil {
				return patch, fieldErrors{"captchaMinScore": "Enter a score from 0 to 1, such as 0.5"}
			}
			captcha.MinScore = &score
		}
	}
	patch.Captcha = &captcha
	routes := routesOf(in.Routes)
	patch.Routes = &routes
	return patch, nil
}

// settingsProblem places a refused setting next to its field: an entry of
// a list next to the list, a validation rule's error next to the rules,
// naming the rule.
func settingsProblem(invalid *domain.InvalidInputError) (field, message string, ok bool) {
	if m := ruleIndex.FindStringSubmatch(invalid.Field); m != nil {
		n, _ := strconv.Atoi(m[1])
		return "validation", "Rule " + strconv.Itoa(n+1) + ": " + invalid.Message, true
	}
	if field, message, ok := routeProblem(invalid); ok {
		return field, message, true
	}
	if strings.HasPrefix(invalid.Field, "validation") {
		return "validation", upperFirst(invalid.Message), true
	}
	if name, ok := languageProblemField(invalid.Field); ok {
		return name, upperFirst(invalid.Message), true
	}
	name, ok := settingsFieldNames[listIndex.ReplaceAllString(invalid.Field, "")]
	return name, upperFirst(invalid.Message), ok
}

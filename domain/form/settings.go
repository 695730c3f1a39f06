package form

import (
	"errors"
	"net"
	"net/url"
	"strconv"
	"strings"
	"unicode"

	"github.com/formd/formd/domain"
)

// ReplyToMode says which address a notification email offers as Reply-To.
type ReplyToMode string

// Reply-to modes of the spec's CreateForm.replyToMode.
const (
	ReplyToSubmitter ReplyToMode = "submitter"
	ReplyToDefault   ReplyToMode = "default"
	ReplyToNone      ReplyToMode = "none"
)

// DefaultFromName is the sender display name of new forms.
const DefaultFromName = "Notifications"

// Limits on form settings. They keep one form's configuration, which is read on
// every submission, small.
const (
	maxNameLength      = 200
	maxTextLength      = 500
	maxAllowedDomains  = 50
	maxSenderIPs       = 50
	maxHostnameLength  = 253
	maxHostLabelLength = 63
)

// Settings are the user-editable settings of a form, as in the spec's CreateForm.
type Settings struct {
	Name            string             `json:"name"`
	RecipientEmail  string             `json:"recipientEmail"`
	AllowedDomains  []string           `json:"allowedDomains"`
	SubjectDefault  string             `json:"subjectDefault"`
	FromNameDefault string             `json:"fromNameDefault"`
	RedirectDefault string             `json:"redirectDefault"`
	ReplyToMode     ReplyToMode        `json:"replyToMode"`
	ReplyToDefault  string             `json:"replyToDefault"`
	Validation      ValidationSettings `json:"validation"`
	// AllowedSenderIPs is the exact-IP safelist for server-side submissions
	// (posts with neither Origin nor Referer).
	AllowedSenderIPs []string `json:"allowedSenderIps"`
	// UploadsEnabled lets multipart posts carry files (a paid/manual feature).
	UploadsEnabled bool `json:"uploadsEnabled"`
	// UploadLimits bound the files a submission may carry.
	UploadLimits UploadLimits `json:"uploadLimits"`
	// Autoresponder, when enabled, sends the submitter a copy of their message.
	Autoresponder Autoresponder `json:"autoresponder"`
	// Captcha, when enabled, is a gate every submission must pass. It is
	// changed by PATCH only, through CaptchaPatch, which keeps its secret out.
	Captcha Captcha `json:"captcha"`
	// TestMode makes every submission to the form a test submission: judged
	// by every gate like a live one, it sends nothing and is rendered into
	// the form's test inbox instead. (omitempty: absent while off, as in the
	// audit trail of forms made before it existed.)
	TestMode bool `json:"testMode,omitempty"`
	// Archive keeps sealed payloads past delivery for a retention period
	// (omitzero: absent while off, as in forms made before it existed).
	Archive Archive `json:"archive,omitzero"`
	// Spam is the spam policy: off, or the rules that tag or reject
	// submissions (omitzero: absent while off without rules, as in forms
	// made before it existed).
	Spam Spam `json:"spam,omitzero"`
	// Language is the language of what visitors see and get (hosted pages,
	// default autoresponder): one of Languages, or blank to follow each
	// visitor's browser.
	Language string `json:"language,omitempty"`
	// Pages are the form's own words on its hosted success and error pages.
	Pages Pages `json:"pages,omitzero"`
	// Templates are the form's own mail templates (omitzero: absent while
	// every mail keeps its default, as in forms made before they existed).
	Templates Templates `json:"templates,omitzero"`
	// Routes send matching submissions to further recipients, each
	// verified by its own link (omitempty: absent while none, as in forms
	// made before routing existed).
	Routes []Route `json:"routes,omitempty"`
}

// Autoresponder configures the optional confirmation email to the submitter.
type Autoresponder struct {
	Enabled bool   `json:"enabled"`
	Subject string `json:"subject,omitempty"`
	Message string `json:"message,omitempty"`
}

// Policy carries the entitlements that widen what settings may contain.
type Policy struct {
	// WildcardDomains allows `*.example.com` patterns (Pro or Lifetime plans).
	WildcardDomains bool
	// Uploads allows uploadsEnabled (the file_uploads entitlement).
	Uploads bool
	// MaxArchiveRetentionDays is the longest archive retention the plan
	// allows; 0 means the plan has no archive.
	MaxArchiveRetentionDays int
}

// Normalize trims and lower-cases what is case-insensitive and fills defaults.
func (s Settings) Normalize() Settings {
	s.Name = strings.TrimSpace(s.Name)
	s.RecipientEmail = strings.TrimSpace(s.RecipientEmail)
	s.SubjectDefault = strings.TrimSpace(s.SubjectDefault)
	s.FromNameDefault = strings.TrimSpace(s.FromNameDefault)
	if s.FromNameDefault == "" {
		s.FromNameDefault = DefaultFromName
	}
	s.RedirectDefault = strings.TrimSpace(s.RedirectDefault)
	s.ReplyToDefault = strings.TrimSpace(s.ReplyToDefault)
	if s.ReplyToMode == "" {
		s.ReplyToMode = ReplyToSubmitter
	}
	domains := make([]string, 0, len(s.AllowedDomains))
	for _, d := range s.AllowedDomains {
		domains = append(domains, strings.ToLower(strings.TrimSuffix(strings.TrimSpace(d), ".")))
	}
	s.AllowedDomains = domains
	ips := make([]string, 0, len(s.AllowedSenderIPs))
	for _, ip := range s.AllowedSenderIPs {
		ips = append(ips, strings.TrimSpace(ip))
	}
	s.AllowedSenderIPs = ips
	if s.Validation.Fields == nil {
		s.Validation.Fields = []FieldRule{}
	}
	if len(s.UploadLimits.AllowedMimeTypes) == 0 {
		s.UploadLimits.AllowedMimeTypes = nil // one form for "any type", as stored
	}
	s.Spam = s.Spam.normalize()
	s.Language = strings.ToLower(strings.TrimSpace(s.Language))
	s.Pages = s.Pages.normalize()
	s.Templates = s.Templates.normalize()
	s.Routes = normalizeRoutes(s.Routes)
	return s
}

// Validate checks every rule on settings; the error names the offending field.
func (s Settings) Validate(p Policy) error {
	if s.Name == "" {
		return domain.Invalid("name", "name is required")
	}
	if len(s.Name) > maxNameLength {
		return domain.Invalid("name", "name must be at most %d characters", maxNameLength)
	}
	if !domain.IsEmailAddress(s.RecipientEmail) {
		return domain.Invalid("recipientEmail", "recipientEmail must be a valid email address")
	}
	if len(s.AllowedDomains) > maxAllowedDomains {
		return domain.Invalid("allowedDomains", "allowedDomains may list at most %d entries", maxAllowedDomains)
	}
	for i, d := range s.AllowedDomains {
		if err := validateDomainPattern(d, p); err != nil {
			return domain.Invalid(indexed("allowedDomains", i), "%s", err.Error())
		}
	}
	for _, line := range []struct{ field, v string }{
		{"subjectDefault", s.SubjectDefault}, {"fromNameDefault", s.FromNameDefault}, {"autoresponder.subject", s.Autoresponder.Subject},
	} {
		field, v := line.field, line.v
		if len(v) > maxTextLength {
			return domain.Invalid(field, "%s must be at most %d characters", field, maxTextLength)
		}
		// Mail headers are built from these: a line break or any other
		// control character has no place in one.
		if strings.ContainsFunc(v, unicode.IsControl) {
			return domain.Invalid(field, "%s must be a single line without control characters", field)
		}
	}
	if len(s.Autoresponder.Message) > 10*maxTextLength {
		return domain.Invalid("autoresponder.message", "autoresponder.message must be at most %d characters", 10*maxTextLength)
	}
	if s.RedirectDefault != "" && !IsHTTPSURL(s.RedirectDefault) {
		return domain.Invalid("redirectDefault", "redirectDefault must be an absolute https URL")
	}
	switch s.ReplyToMode {
	case ReplyToSubmitter, ReplyToDefault, ReplyToNone:
	default:
		return domain.Invalid("replyToMode", "replyToMode must be one of submitter, default, none")
	}
	if s.ReplyToDefault != "" && !domain.IsEmailAddress(s.ReplyToDefault) {
		return domain.Invalid("replyToDefault", "replyToDefault must be a valid email address")
	}
	if len(s.AllowedSenderIPs) > maxSenderIPs {
		return domain.Invalid("allowedSenderIps", "allowedSenderIps may list at most %d addresses", maxSenderIPs)
	}
	for i, ip := range s.AllowedSenderIPs {
		if net.ParseIP(ip) == nil {
			return domain.Invalid(indexed("allowedSenderIps", i), "allowedSenderIps entries must be exact IP addresses")
		}
	}
	if s.UploadsEnabled && !p.Uploads {
		return domain.Invalid("uploadsEnabled", "uploadsEnabled needs the file_uploads entitlement (a paid or manually granted feature)")
	}
	if err := s.UploadLimits.validate(); err != nil {
		return err
	}
	if err := s.Captcha.validate(); err != nil {
		return err
	}
	if err := s.Archive.validate(p); err != nil {
		return err
	}
	if err := s.Spam.validate(); err != nil {
		return err
	}
	if err := validateLanguage(s.Language); err != nil {
		return err
	}
	if err := s.Pages.validate(); err != nil {
		return err
	}
	if err := s.Templates.Validate(); err != nil {
		return err
	}
	if err := validateRoutes(s.Routes); err != nil {
		return err
	}
	return s.Validation.Validate()
}

func indexed(field string, i int) string {
	return field + "[" + strconv.Itoa(i) + "]"
}

// IsHTTPSURL reports whether s is an absolute https URL with a host, and
// not one whose host browsers would read as an IPv4 address written in
// another form than dotted decimal (domain.IsObfuscatedIPv4).
func IsHTTPSURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Scheme == "https" && u.Host != "" && u.User == nil && !domain.IsObfuscatedIPv4(u.Hostname())
}

func validateDomainPattern(d string, p Policy) error {
	if d == "" {
		return errors.New("allowedDomains entries must not be empty")
	}
	host := d
	if strings.HasPrefix(d, "*.") {
		if !p.WildcardDomains {
			return errors.New("wildcard patterns such as *.example.com need an advanced domain plan (Pro or Lifetime)")
		}
		host = d[2:]
		if !strings.Contains(host, ".") {
			return errors.New("wildcard patterns must name a parent domain, such as *.example.com")
		}
	}
	if net.ParseIP(host) != nil && host == d {
		return nil
	}
	if !isHostname(host) {
		return errors.New("allowedDomains entries must be exact hostnames such as www.example.com or patterns such as *.example.com")
	}
	return nil
}

func isHostname(h string) bool {
	if h == "" || len(h) > maxHostnameLength {
		return false
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > maxHostLabelLength || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

// HostAllowed reports whether host (from Origin or Referer) matches an allowed
// domain: an exact hostname, or a `*.example.com` pattern matching any subdomain
// (but not example.com itself).
func HostAllowed(allowed []string, host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	for _, d := range allowed {
		if strings.HasPrefix(d, "*.") {
			if strings.HasSuffix(host, d[1:]) && len(host) > len(d)-1 {
				return true
			}
		} else if host == d {
			return true
		}
	}
	return false
}

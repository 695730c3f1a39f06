package form

import (
	"encoding/json"
	"regexp"
	"strings"
	"time"
	"unicode"

	"github.com/formd/formd/domain"
)

// IntegrationType names one of the services a form's submissions can reach.
type IntegrationType string

// The integration types of the spec's PATCH /v1/forms/{formId}/integrations/{type}.
const (
	IntegrationWebhook      IntegrationType = "webhook"
	IntegrationSlack        IntegrationType = "slack"
	IntegrationDiscord      IntegrationType = "discord"
	IntegrationTelegram     IntegrationType = "telegram"
	IntegrationGoogleSheets IntegrationType = "google_sheets"
)

// IntegrationTypes lists every type in display order.
var IntegrationTypes = []IntegrationType{
	IntegrationWebhook, IntegrationSlack, IntegrationDiscord, IntegrationTelegram, IntegrationGoogleSheets,
}

// ParseIntegrationType checks a type named by a client; an unknown one is
// invalid input naming the "type" field.
func ParseIntegrationType(s string) (IntegrationType, error) {
	for _, t := range IntegrationTypes {
		if string(t) == s {
			return t, nil
		}
	}
	return "", domain.Invalid("type", "type must be one of webhook, slack, discord, telegram, google_sheets")
}

// IntegrationTestLimit tests of a form's integrations are taken per
// IntegrationTestWindow: each makes formd call another service in the
// operator's name.
const (
	IntegrationTestLimit  = 5
	IntegrationTestWindow = 10 * time.Minute
)

// Limits on integration settings: they are read on every submission.
const (
	maxTargetURLLength = 2048
	maxSheetNameLength = 100
)

var (
	// A Telegram chat is a numeric id (negative for groups and channels)
	// or a public channel's @username (5 to 32 characters).
	telegramChatID = regexp.MustCompile(`^(-?[0-9]{1,20}|@[A-Za-z][A-Za-z0-9_]{4,31})$`)
	// Google spreadsheet ids are URL-safe base64-like strings.
	spreadsheetID = regexp.MustCompile(`^[A-Za-z0-9_-]{10,200}$`)
)

// Integration is one integration's configuration. Which settings apply
// depends on its type: targetUrl for webhook, Slack and Discord (Slack's
// payload also suits Mattermost and Rocket.Chat incoming webhooks); chatId
// for Telegram; spreadsheetId and sheetName for Google Sheets.
type Integration struct {
	Type          IntegrationType `json:"type"`
	Enabled       bool            `json:"enabled"`
	TargetURL     string          `json:"targetUrl"`
	ChatID        string          `json:"chatId"`
	SpreadsheetID string          `json:"spreadsheetId"`
	SheetName     string          `json:"sheetName"`
	// SecretPrefix is the visible start of a webhook's current signing
	// secret; the secret itself is never part of the aggregate.
	SecretPrefix string `json:"secretPrefix,omitempty"`
	// SheetProven is true once the form's proof code was read in the
	// spreadsheet (GoogleSheetProven); only then are rows appended.
	SheetProven bool      `json:"sheetProven,omitempty"`
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
}

// IntegrationPatch holds what a PATCH changes; nil fields stay as they are.
type IntegrationPatch struct {
	Enabled       *bool
	TargetURL     *string
	ChatID        *string
	SpreadsheetID *string
	SheetName     *string
}

// integrationFields are the settings' JSON names, in display order, each
// with the types it applies to.
var integrationFields = []struct {
	name  string
	types []IntegrationType
	get   func(Integration) any
}{
	{"enabled", IntegrationTypes, func(i Integration) any { return i.Enabled }},
	{"targetUrl", []IntegrationType{IntegrationWebhook, IntegrationSlack, IntegrationDiscord}, func(i Integration) any { return i.TargetURL }},
	{"chatId", []IntegrationType{IntegrationTelegram}, func(i Integration) any { return i.ChatID }},
	{"spreadsheetId", []IntegrationType{IntegrationGoogleSheets}, func(i Integration) any { return i.SpreadsheetID }},
	{"sheetName", []IntegrationType{IntegrationGoogleSheets}, func(i Integration) any { return i.SheetName }},
}

func appliesTo(types []IntegrationType, t IntegrationType) bool {
	for _, x := range types {
		if x == t {
			return true
		}
	}
	return false
}

// Apply returns the integration with the patch applied, trimmed. A setting
// the type does not use is refused rather than silently kept, so a client
// that sent it to the wrong type learns so.
func (i Integration) Apply(p IntegrationPatch) (Integration, error) {
	if p.ChatID != nil && strings.TrimSpace(*p.ChatID) != "" && i.Type == IntegrationTelegram {
		return i, domain.Invalid("chatId", "chatId cannot be set: a Telegram chat is connected by sending /start and the integration's connectCode to the bot from that chat; an empty chatId disconnects the chat")
	}
	given := map[string]bool{
		"targetUrl": p.TargetURL != nil, "chatId": p.ChatID != nil,
		"spreadsheetId": p.SpreadsheetID != nil, "sheetName": p.SheetName != nil,
	}
	for _, f := range integrationFields {
		if given[f.name] && !appliesTo(f.types, i.Type) {
			return i, domain.Invalid(f.name, "%s does not apply to %s integrations", f.name, i.Type)
		}
	}
	set(&i.Enabled, p.Enabled)
	set(&i.TargetURL, p.TargetURL)
	if p.ChatID != nil { // only "" gets here for Telegram: disconnecting
		i.ChatID = ""
	}
	set(&i.SpreadsheetID, p.SpreadsheetID)
	set(&i.SheetName, p.SheetName)
	i.TargetURL = strings.TrimSpace(i.TargetURL)
	i.ChatID = strings.TrimSpace(i.ChatID)
	i.SpreadsheetID = strings.TrimSpace(i.SpreadsheetID)
	i.SheetName = strings.TrimSpace(i.SheetName)
	return i, nil
}

// Validate checks each given setting's form and, when the integration is
// enabled, that every setting its type needs is there. The error names the
// offending field.
func (i Integration) Validate() error {
	if i.TargetURL != "" {
		if len(i.TargetURL) > maxTargetURLLength {
			return domain.Invalid("targetUrl", "targetUrl must be at most %d characters", maxTargetURLLength)
		}
		// Any https host is accepted: a Slack-type integration can point at
		// Mattermost or Rocket.Chat, which take Slack's payload. Where the
		// address really leads is checked when a delivery connects.
		if !IsHTTPSURL(i.TargetURL) {
			return domain.Invalid("targetUrl", "targetUrl must be an absolute https URL with a host name or a dotted IPv4 or IPv6 address")
		}
	}
	if i.ChatID != "" && !telegramChatID.MatchString(i.ChatID) {
		return domain.Invalid("chatId", "chatId must be a numeric Telegram chat id or a channel's @username")
	}
	if i.SpreadsheetID != "" && !spreadsheetID.MatchString(i.SpreadsheetID) {
		return domain.Invalid("spreadsheetId", "spreadsheetId must be a Google spreadsheet id (10 to 200 letters, digits, - or _)")
	}
	if len(i.SheetName) > maxSheetNameLength {
		return domain.Invalid("sheetName", "sheetName must be at most %d characters", maxSheetNameLength)
	}
	if strings.ContainsFunc(i.SheetName, unicode.IsControl) {
		return domain.Invalid("sheetName", "sheetName must be a single line without control characters")
	}
	if !i.Enabled {
		return nil
	}
	for _, f := range integrationFields {
		// A Telegram integration may be on while it waits for its chat to
		// be connected: nothing is sent to it until then.
		if f.name != "enabled" && f.name != "chatId" && appliesTo(f.types, i.Type) && f.get(i) == "" {
			return domain.Invalid(f.name, "%s is required to enable a %s integration", f.name, i.Type)
		}
	}
	return nil
}

// diffIntegration lists the settings of the type that differ, named
// "integrations.<type>.<field>" in the audit trail. With fromNothing, every
// setting is new.
func diffIntegration(before, after Integration, fromNothing bool) []Change {
	var out []Change
	for _, f := range integrationFields {
		if !appliesTo(f.types, after.Type) {
			continue
		}
		from, _ := json.Marshal(f.get(before))
		to, _ := json.Marshal(f.get(after))
		if fromNothing {
			from = []byte("null")
		}
		if fromNothing || string(from) != string(to) {
			out = append(out, Change{Field: "integrations." + string(after.Type) + "." + f.name, From: from, To: to})
		}
	}
	return out
}

// ConfigureIntegration creates or changes the form's integration of type t.
// A patch that changes an existing integration in nothing records nothing.
func (f *Form) ConfigureIntegration(t IntegrationType, p IntegrationPatch, now time.Time) error {
	before, exists := f.integrations[t]
	if !exists {
		before = Integration{Type: t}
	}
	next, err := before.Apply(p)
	if err != nil {
		return err
	}
	if err := next.Validate(); err != nil {
		return err
	}
	now = now.UTC()
	changes := diffIntegration(before, next, !exists)
	if exists && len(changes) == 0 {
		return nil
	}
	if !exists {
		next.CreatedAt = now
	}
	next.UpdatedAt = now
	f.record(IntegrationConfigured{Changes: changes, Integration: next, At: now})
	return nil
}

// DisableGoneWebhook disables the webhook integration after its receiver
// answered 410 Gone to a delivery posted to targetURL: Standard Webhooks'
// signal that the endpoint is gone for good, so later submissions stop
// going there. A webhook since pointed elsewhere, or already disabled, is
// left as it is; it reports whether the integration was disabled.
func (f *Form) DisableGoneWebhook(targetURL string, now time.Time) bool {
	i, ok := f.integrations[IntegrationWebhook]
	if !ok || !i.Enabled || i.TargetURL != targetURL {
		return false
	}
	off := false
	return f.ConfigureIntegration(IntegrationWebhook, IntegrationPatch{Enabled: &off}, now) == nil
}

// Integration returns the form's integration of type t, if it has one.
func (f *Form) Integration(t IntegrationType) (Integration, bool) {
	i, ok := f.integrations[t]
	return i, ok
}

// Integrations are the form's integrations in display order.
func (f *Form) Integrations() []Integration {
	out := []Integration{}
	for _, t := range IntegrationTypes {
		if i, ok := f.integrations[t]; ok {
			out = append(out, i)
		}
	}
	return out
}

// WebhookSecretOverlap is how long a rotated-out webhook secret keeps
// signing beside the new one, so receivers can switch without losing
// deliveries.
const WebhookSecretOverlap = 24 * time.Hour

// WebhookSecretPrefixLength is how much of a webhook signing secret stays
// visible after it was shown once: "whsec_" and four characters, enough to
// tell two secrets apart and nothing to sign with.
const WebhookSecretPrefixLength = 10

// NeedsWebhookSecret reports whether the form's webhook integration exists
// and has no signing secret yet: its first configuration makes one.
func (f *Form) NeedsWebhookSecret() bool {
	hook, ok := f.integrations[IntegrationWebhook]
	return ok && hook.SecretPrefix == ""
}

// IssueWebhookSecret records that the webhook integration has a new signing
// secret, known to the aggregate only by its id and prefix (the first
// WebhookSecretPrefixLength characters). A previous secret keeps signing
// until WebhookSecretOverlap from now; the returned event says until when.
func (f *Form) IssueWebhookSecret(secretID, secret string, now time.Time) (WebhookSecretIssued, error) {
	hook, ok := f.integrations[IntegrationWebhook]
	if !ok {
		return WebhookSecretIssued{}, domain.Invalid("type", "the webhook integration is not configured; configure it with PATCH /v1/forms/{formId}/integrations/webhook first")
	}
	if secretID == "" || len(secret) <= WebhookSecretPrefixLength {
		return WebhookSecretIssued{}, domain.Invalid("secret", "a webhook secret needs an id and more than %d characters", WebhookSecretPrefixLength)
	}
	now = now.UTC()
	e := WebhookSecretIssued{SecretID: secretID, SecretPrefix: secret[:WebhookSecretPrefixLength], At: now}
	if hook.SecretPrefix != "" {
		e.PreviousSecretPrefix = hook.SecretPrefix
		e.PreviousExpiresAt = now.Add(WebhookSecretOverlap)
	}
	f.record(e)
	return e, nil
}

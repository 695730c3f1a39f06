// Package form is the Form aggregate: a form's settings, its access key and the
// rules every change must keep. It is event-sourced: behaviour methods check
// rules and record events; apply only assigns state.
package form

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/formd/formd/domain"
)

// Form is the event-sourced form aggregate.
type Form struct {
	id                string
	accountID         string
	workspaceID       string
	accessKeyHash     string
	accessKeyPrefix   string
	settings          Settings
	recipientVerified bool
	integrations      map[IntegrationType]Integration
	createdAt         time.Time
	updatedAt         time.Time

	stream domain.Stream[Event]

	// verifiedRoutes are the routing recipients whose own link was
	// followed, while a rule still names them (route_verification.go).
	verifiedRoutes []string
}

// NewForm is a form about to be created.
type NewForm struct {
	ID, AccountID, WorkspaceID     string
	AccessKeyHash, AccessKeyPrefix string
	Settings                       Settings
}

// Create checks the settings and records a new form.
func Create(n NewForm, p Policy, now time.Time) (*Form, error) {
	if n.ID == "" || n.AccountID == "" || n.WorkspaceID == "" || n.AccessKeyHash == "" {
		return nil, errors.New("form: id, account, workspace and access key are required")
	}
	s := n.Settings.Normalize()
	if err := s.Validate(p); err != nil {
		return nil, err
	}
	f := &Form{}
	f.record(Created{
		FormID: n.ID, AccountID: n.AccountID, WorkspaceID: n.WorkspaceID,
		AccessKeyHash: n.AccessKeyHash, AccessKeyPrefix: n.AccessKeyPrefix,
		Settings: s, At: now.UTC(),
	})
	return f, nil
}

// Patch holds the settings a PATCH changes; nil fields stay as they are.
type Patch struct {
	Name             *string
	RecipientEmail   *string
	AllowedDomains   *[]string
	SubjectDefault   *string
	FromNameDefault  *string
	RedirectDefault  *string
	ReplyToMode      *ReplyToMode
	ReplyToDefault   *string
	Validation       *ValidationSettings
	AllowedSenderIPs *[]string
	UploadsEnabled   *bool
	UploadLimits     *UploadLimits
	Autoresponder    *Autoresponder
	Captcha          *CaptchaPatch
	TestMode         *bool
	Archive          *Archive
	Spam             *Spam
	Language         *string
	Pages            *Pages
	Templates        *Templates
	Routes           *[]Route
}

// ChangeSettings applies a patch. A patch that changes nothing records nothing.
// A new recipient email is unverified until its own link is followed.
func (f *Form) ChangeSettings(p Patch, policy Policy, now time.Time) error {
	next := f.Settings()
	set(&next.Name, p.Name)
	set(&next.RecipientEmail, p.RecipientEmail)
	set(&next.AllowedDomains, p.AllowedDomains)
	set(&next.SubjectDefault, p.SubjectDefault)
	set(&next.FromNameDefault, p.FromNameDefault)
	set(&next.RedirectDefault, p.RedirectDefault)
	set(&next.ReplyToMode, p.ReplyToMode)
	set(&next.ReplyToDefault, p.ReplyToDefault)
	set(&next.Archive, p.Archive)
	set(&next.Spam, p.Spam)
	set(&next.Validation, p.Validation)
	set(&next.AllowedSenderIPs, p.AllowedSenderIPs)
	set(&next.UploadsEnabled, p.UploadsEnabled)
	set(&next.UploadLimits, p.UploadLimits)
	set(&next.Autoresponder, p.Autoresponder)
	set(&next.TestMode, p.TestMode)
	set(&next.Language, p.Language)
	set(&next.Pages, p.Pages)
	set(&next.Templates, p.Templates)
	set(&next.Routes, p.Routes)
	if p.Captcha != nil {
		captcha, err := next.Captcha.Apply(*p.Captcha)
		if err != nil {
			return err
		}
		next.Captcha = captcha
	}
	next, changes, err := f.settle(next, policy)
	if err != nil || len(changes) == 0 {
		return err
	}
	f.record(SettingsChanged{
		Changes: changes, Settings: next, At: now.UTC(),
		RecipientReset: next.RecipientEmail != f.settings.RecipientEmail,
	})
	return nil
}

// settle normalizes and validates the settings a change leads to and says
// what they change: the one path every settings change takes.
func (f *Form) settle(next Settings, policy Policy) (Settings, []Change, error) {
	next = next.Normalize()
	if next.Archive == f.settings.Archive {
		// A plan's lower maximum binds the archive when it is next changed,
		// not before: a downgrade neither shortens what owners chose to
		// keep nor blocks their other settings.
		policy.MaxArchiveRetentionDays = max(policy.MaxArchiveRetentionDays, next.Archive.RetentionDays)
	}
	if err := next.Validate(policy); err != nil {
		return Settings{}, nil, err
	}
	return next, Diff(f.settings, next, false), nil
}

// MarkRecipientVerified records that email, the recipient a link was sent to,
// is verified. A link for an address the form no longer uses is refused.
func (f *Form) MarkRecipientVerified(email string, now time.Time) error {
	if email != f.settings.RecipientEmail {
		return &domain.ForbiddenError{Message: "This verification link is for a recipient email the form no longer uses."}
	}
	if f.recipientVerified {
		return nil
	}
	f.record(RecipientVerified{RecipientEmail: email, At: now.UTC()})
	return nil
}

func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

// Diff lists the settings whose JSON value differs, in a stable order. With
// fromNothing, every setting of after counts as new (the audit view of creation).
func Diff(before, after Settings, fromNothing bool) []Change {
	var b, a map[string]json.RawMessage
	bb, _ := json.Marshal(before)
	ab, _ := json.Marshal(after)
	_ = json.Unmarshal(bb, &b)
	_ = json.Unmarshal(ab, &a)
	var out []Change
	for _, field := range settingFields {
		from := b[field]
		if fromNothing {
			if a[field] == nil {
				continue // a setting absent while off (testMode) is no news at creation
			}
			from = json.RawMessage("null")
		}
		if fromNothing || !bytes.Equal(from, a[field]) {
			out = append(out, Change{Field: field, From: from, To: a[field]})
		}
	}
	return append(out, diffCaptcha(before.Captcha, after.Captcha, fromNothing)...)
}

// settingFields are Settings' JSON names in display order; the captcha
// follows them, field by field (diffCaptcha), so its secret never shows.
var settingFields = []string{
	"name", "recipientEmail", "allowedDomains", "subjectDefault", "fromNameDefault",
	"redirectDefault", "replyToMode", "replyToDefault", "validation", "allowedSenderIps",
	"uploadsEnabled", "uploadLimits", "autoresponder", "testMode", "archive", "spam",
	"language", "pages",
	"templates",
	"routes",
}

func (f *Form) record(e Event) { f.stream.Record(f.apply, e) }

func (f *Form) apply(e Event) {
	switch e := e.(type) {
	case Created:
		f.id, f.accountID, f.workspaceID = e.FormID, e.AccountID, e.WorkspaceID
		f.accessKeyHash, f.accessKeyPrefix = e.AccessKeyHash, e.AccessKeyPrefix
		f.settings = e.Settings
		f.createdAt, f.updatedAt = e.At, e.At
	case SettingsChanged:
		f.settings = e.Settings
		if e.RecipientReset {
			f.recipientVerified = false
		}
		f.forgetRemovedRoutes()
		f.updatedAt = e.At
	case SettingsRestored:
		f.settings = e.Settings
		if e.RecipientReset {
			f.recipientVerified = false
		}
		f.forgetRemovedRoutes()
		f.updatedAt = e.At
	case RouteRecipientVerified:
		f.verifiedRoutes = append(f.verifiedRoutes, e.RecipientEmail)
		f.updatedAt = e.At
	case RecipientVerified:
		f.recipientVerified = true
		f.updatedAt = e.At
	case IntegrationConfigured:
		if f.integrations == nil {
			f.integrations = map[IntegrationType]Integration{}
		}
		in := e.Integration
		if in.Type == IntegrationTelegram {
			// A Telegram chat is only ever the one a connect code came
			// from: a configuration keeps it or drops it, never names one.
			// A chat id an owner typed in (as configurations once could)
			// is dropped, so its integration waits for a connected chat.
			if in.ChatID != f.integrations[IntegrationTelegram].ChatID {
				in.ChatID = ""
			}
		}
		if in.Type == IntegrationGoogleSheets {
			// Proven only by GoogleSheetProven, and only while the
			// integration names the spreadsheet that was proven.
			cur := f.integrations[IntegrationGoogleSheets]
			in.SheetProven = cur.SheetProven && cur.SpreadsheetID == in.SpreadsheetID
		}
		f.integrations[in.Type] = in
		f.updatedAt = e.At
	case GoogleSheetProven:
		in := f.integrations[IntegrationGoogleSheets]
		if in.SpreadsheetID == e.SpreadsheetID {
			in.SheetProven, in.UpdatedAt = true, e.At
			f.integrations[IntegrationGoogleSheets] = in
		}
		f.updatedAt = e.At
	case TelegramChatConnected:
		in := f.integrations[IntegrationTelegram]
		in.ChatID, in.UpdatedAt = e.ChatID, e.At
		f.integrations[IntegrationTelegram] = in
		f.updatedAt = e.At
	case SubmissionsErased, SpamReviewed:
		// Audit records only: the form's settings stay as they are.
	case WebhookSecretIssued:
		hook := f.integrations[IntegrationWebhook]
		hook.SecretPrefix = e.SecretPrefix
		hook.UpdatedAt = e.At
		f.integrations[IntegrationWebhook] = hook
		f.updatedAt = e.At
	}
}

// FromHistory rebuilds a form from its stored events. It is not a constructor:
// it checks no rules, because the events already happened.
func FromHistory(events []Event) (*Form, error) {
	f := &Form{}
	if err := f.stream.Load(f.apply, events); err != nil {
		return nil, err
	}
	return f, nil
}

// Changes are the events recorded since the form was loaded.
func (f *Form) Changes() []Event { return f.stream.Changes() }

// Version is the number of events the form had when it was loaded.
func (f *Form) Version() int { return f.stream.Version() }

// ID is the form's id.
func (f *Form) ID() string { return f.id }

// AccountID is the owning account.
func (f *Form) AccountID() string { return f.accountID }

// WorkspaceID is the workspace the form belongs to.
func (f *Form) WorkspaceID() string { return f.workspaceID }

// AccessKeyHash is the SHA-256 of the access key, used to route submissions.
func (f *Form) AccessKeyHash() string { return f.accessKeyHash }

// AccessKeyPrefix is the visible start of the access key.
func (f *Form) AccessKeyPrefix() string { return f.accessKeyPrefix }

// Settings are the form's current settings: a copy, so changing it changes
// neither the form nor its recorded events.
func (f *Form) Settings() Settings {
	s := f.settings
	s.AllowedDomains = slices.Clone(s.AllowedDomains)
	s.AllowedSenderIPs = slices.Clone(s.AllowedSenderIPs)
	s.Validation.Fields = slices.Clone(s.Validation.Fields)
	s.Routes = slices.Clone(s.Routes)
	return s
}

// RecipientVerified reports whether the current recipient email is verified.
func (f *Form) RecipientVerified() bool { return f.recipientVerified }

// CreatedAt is when the form was created.
func (f *Form) CreatedAt() time.Time { return f.createdAt }

// UpdatedAt is when the form last changed.
func (f *Form) UpdatedAt() time.Time { return f.updatedAt }

// RecordSpamReviewed records, for the audit trail, the owner's judgement
// of a submission the spam filter held or tagged (ReviewedNotSpam,
// ReviewedSpam, ReviewedDeleted). It changes no setting.
func (f *Form) RecordSpamReviewed(submissionID, verdict string, learned bool, now time.Time) error {
	switch verdict {
	case ReviewedNotSpam, ReviewedSpam, ReviewedDeleted:
	default:
		return domain.Invalid("verdict", "a review finds a submission spam or not spam, or deletes it")
	}
	f.record(SpamReviewed{SubmissionID: submissionID, Verdict: verdict, Learned: learned, At: now.UTC()})
	return nil
}

// RecordSubmissionsErased records, for the audit trail, an erasure of count
// archived submissions; by is ErasedByID (with the submission's id) or
// ErasedByEmail (with the address's keyed hash). It changes no setting.
func (f *Form) RecordSubmissionsErased(count int, by, submissionID, emailHash string, now time.Time) error {
	if count < 0 || (by != ErasedByID && by != ErasedByEmail) {
		return domain.Invalid("by", "an erasure is by id or by email")
	}
	f.record(SubmissionsErased{Count: count, By: by, SubmissionID: submissionID, EmailHash: emailHash, At: now.UTC()})
	return nil
}

package form

import (
	"time"

	"github.com/formd/formd/domain"
)

// SettingsRestoredType is the type name of SettingsRestored as stored.
const SettingsRestoredType = "form.settings_restored.v1"

// SettingsRestored records that the owner brought back the settings of an
// earlier version: a new event, so history is never rewritten. Like
// SettingsChanged it carries the new settings and, for the audit trail,
// what changed; RestoredVersion names the version they came from.
type SettingsRestored struct {
	RestoredVersion int
	Changes         []Change
	Settings        Settings
	At              time.Time
	// RecipientReset is true when the restored recipient email needs
	// verifying again.
	RecipientReset bool
}

// EventType implements Event.
func (SettingsRestored) EventType() string { return SettingsRestoredType }

// AtVersion rebuilds the form as it was after its first n events, from its
// whole history; a version the history does not have is not found.
func AtVersion(history []Event, n int) (*Form, error) {
	if n < 1 || n > len(history) {
		return nil, domain.ErrNotFound
	}
	return FromHistory(history[:n])
}

// RestoreSettings makes the settings of an earlier version, past, the
// current ones, through the rules every change keeps: a setting the plan no
// longer allows is refused, naming it. The captcha stays as it is, because
// its secret is stored once, for the current captcha only: a restore never
// touches secrets (nor integrations, which are not settings). A restore
// that changes nothing records nothing.
func (f *Form) RestoreSettings(past *Form, policy Policy, now time.Time) error {
	if past == nil || past.id != f.id || past.Version() < 1 || past.Version() > f.Version()+len(f.Changes()) {
		return domain.Invalid("version", "version must be one of this form's versions")
	}
	next := past.Settings()
	next.Captcha = f.settings.Captcha
	next, changes, err := f.settle(next, policy)
	if err != nil || len(changes) == 0 {
		return err
	}
	f.record(SettingsRestored{
		RestoredVersion: past.Version(), Changes: changes, Settings: next, At: now.UTC(),
		RecipientReset: next.RecipientEmail != f.settings.RecipientEmail,
	})
	return nil
}

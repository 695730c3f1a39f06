package form_test

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/form"
)

// formHistory is a form's stored history: created as Contact (version 1),
// renamed Support (2), given a wildcard domain under policy (3).
func formHistory(t *testing.T, policy form.Policy) []form.Event {
	t.Helper()
	f, err := form.Create(formNewForm(form.Settings{Name: "Contact", RecipientEmail: "owner@example.com"}), form.Policy{}, formT0)
	if err != nil {
		t.Fatal(err)
	}
	history := f.Changes()
	for _, p := range []form.Patch{{Name: formStr("Support")}, {AllowedDomains: &[]string{"*.example.com"}}} {
		f, err = form.FromHistory(history)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.ChangeSettings(p, policy, formT0.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		history = append(history, f.Changes()...)
	}
	return history
}

func TestAtVersionRebuildsTheSettingsOfThatVersion(t *testing.T) {
	history := formHistory(t, form.Policy{WildcardDomains: true})
	for n, want := range map[int]string{1: "Contact", 2: "Support", 3: "Support"} {
		f, err := form.AtVersion(history, n)
		if err != nil {
			t.Fatal(err)
		}
		if f.Version() != n || f.Settings().Name != want {
			t.Errorf("AtVersion(%d) = version %d named %q, want %q", n, f.Version(), f.Settings().Name, want)
		}
	}
	for _, n := range []int{0, -1, 4} {
		if _, err := form.AtVersion(history, n); !errors.Is(err, domain.ErrNotFound) {
			t.Errorf("AtVersion(%d) = %v, want ErrNotFound", n, err)
		}
	}
}

func TestRestoreSettingsRecordsTheChangesAndTheVersion(t *testing.T) {
	policy := form.Policy{WildcardDomains: true}
	history := formHistory(t, policy)
	current, _ := form.FromHistory(history)
	past, _ := form.AtVersion(history, 1)
	if err := current.RestoreSettings(past, policy, formT0.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got := current.Settings(); !reflect.DeepEqual(got, past.Settings()) {
		t.Errorf("settings after restore = %+v, want %+v", got, past.Settings())
	}
	changes := current.Changes()
	if len(changes) != 1 {
		t.Fatalf("recorded %d events, want 1", len(changes))
	}
	ev, ok := changes[0].(form.SettingsRestored)
	if !ok {
		t.Fatalf("recorded %T, want SettingsRestored", changes[0])
	}
	var fields []string
	for _, c := range ev.Changes {
		fields = append(fields, c.Field)
	}
	if ev.RestoredVersion != 1 || !reflect.DeepEqual(fields, []string{"name", "allowedDomains"}) || ev.RecipientReset {
		t.Errorf("recorded %+v, want version 1 changing name and allowedDomains", ev)
	}
	if !ev.At.Equal(formT0.Add(2*time.Hour)) || ev.At.Location() != time.UTC {
		t.Errorf("At = %v, want UTC", ev.At)
	}
	reloaded, err := form.FromHistory(append(history, changes...))
	if err != nil || reloaded.Settings().Name != "Contact" {
		t.Errorf("reloaded after restore: %v, %+v", err, reloaded)
	}
}

func TestRestoreSettingsKeepsThePlansRules(t *testing.T) {
	history := formHistory(t, form.Policy{WildcardDomains: true})
	current, _ := form.FromHistory(history)
	if err := current.ChangeSettings(form.Patch{AllowedDomains: &[]string{"example.com"}}, form.Policy{}, formT0); err != nil {
		t.Fatal(err)
	}
	current, _ = form.FromHistory(append(history, current.Changes()...))
	past, _ := form.AtVersion(history, 3)
	// The plan no longer has wildcard domains.
	err := current.RestoreSettings(past, form.Policy{}, formT0)
	var invalid *domain.InvalidInputError
	if !errors.As(err, &invalid) || invalid.Field != "allowedDomains[0]" {
		t.Fatalf("restore of a wildcard without the plan = %v, want invalid allowedDomains[0]", err)
	}
	if len(current.Changes()) != 0 {
		t.Errorf("a refused restore recorded %v", current.Changes())
	}
}

func TestRestoreSettingsKeepsTheCurrentCaptcha(t *testing.T) {
	history := formHistory(t, form.Policy{WildcardDomains: true})
	current, _ := form.FromHistory(history)
	p := form.CaptchaPatch{Provider: formStr("formd")}
	if err := current.ChangeSettings(form.Patch{Captcha: &p, Name: formStr("Help")}, form.Policy{WildcardDomains: true}, formT0); err != nil {
		t.Fatal(err)
	}
	history = append(history, current.Changes()...)
	current, _ = form.FromHistory(history)
	past, _ := form.AtVersion(history, 2)
	if err := current.RestoreSettings(past, form.Policy{WildcardDomains: true}, formT0); err != nil {
		t.Fatal(err)
	}
	if got := current.Settings(); got.Name != "Support" || got.Captcha.Provider != form.CaptchaFormd {
		t.Errorf("after restore: name %q captcha %q, want Support with formd's captcha kept", got.Name, got.Captcha.Provider)
	}
}

func TestRestoreSettingsOfTheCurrentSettingsRecordsNothing(t *testing.T) {
	history := formHistory(t, form.Policy{WildcardDomains: true})
	current, _ := form.FromHistory(history)
	same, _ := form.AtVersion(history, 3)
	if err := current.RestoreSettings(same, form.Policy{WildcardDomains: true}, formT0); err != nil || len(current.Changes()) != 0 {
		t.Errorf("restore of the current settings = %v, %v; want nothing recorded", err, current.Changes())
	}
}

func TestRestoreSettingsRefusesAnotherFormsVersion(t *testing.T) {
	history := formHistory(t, form.Policy{WildcardDomains: true})
	current, _ := form.FromHistory(history)
	other, _ := form.Create(form.NewForm{ID: "form-2", AccountID: "acct-1", WorkspaceID: "ws-1", AccessKeyHash: "h2",
		Settings: form.Settings{Name: "Other", RecipientEmail: "owner@example.com"}}, form.Policy{}, formT0)
	otherPast, _ := form.FromHistory(other.Changes())
	if err := current.RestoreSettings(otherPast, form.Policy{}, formT0); err == nil {
		t.Error("restored another form's settings")
	}
	if err := current.RestoreSettings(nil, form.Policy{}, formT0); err == nil {
		t.Error("restored nothing")
	}
}

package application

import (
	"context"
	"errors"
	"testing"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/form"
)

// versionsWorld is integrationWorld with the audit trail read from its
// committed streams, and actors named by their ids.
type versionsWorld struct{ *integrationWorld }

func (w versionsWorld) StreamHistory(_ context.Context, id string) ([]HistoryEntry, error) {
	var out []HistoryEntry
	for i, e := range w.Stream(id) {
		out = append(out, HistoryEntry{Type: e.(form.Event).EventType(), Version: i + 1, Event: e,
			Metadata: Metadata{Actor: Actor{Type: ActorSession, ID: "cred-1"}, AccountID: "acct-1"}})
	}
	return out, nil
}

func (w versionsWorld) ActorNames(context.Context, ActorNameQuery) (KnownActors, error) {
	return KnownActors{Emails: map[string]string{"acct-1": "ada@example.com"}}, nil
}

// newVersionsWorld is form-1 at version 3: created as Contact, renamed
// Support, then given the subject "Hello".
func newVersionsWorld(t *testing.T) versionsWorld {
	t.Helper()
	w := versionsWorld{newIntegrationWorld(t)}
	w.change(func(f *form.Form) error {
		return f.ChangeSettings(form.Patch{Name: ptrTo("Support")}, form.Policy{}, fixedClock{}.Now())
	})
	w.change(func(f *form.Form) error {
		return f.ChangeSettings(form.Patch{SubjectDefault: ptrTo("Hello")}, form.Policy{}, fixedClock{}.Now())
	})
	return w
}

func TestFormVersionShowsTheSettingsOfThatVersionAndWhoMadeIt(t *testing.T) {
	w := newVersionsWorld(t)
	h := NewFormVersionHandler(w, w)
	got, err := h.Handle(context.Background(), FormVersion{Caller: integrationOwner, FormID: "form-1", Version: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got.Form.Version != 2 || got.Form.Settings.Name != "Support" || got.Form.Settings.SubjectDefault != "" {
		t.Errorf("version 2 = %+v, want Support without a subject", got.Form)
	}
	if got.Entry.Version != 2 || got.Entry.Type != form.SettingsChangedType || got.Entry.ActorName == "" {
		t.Errorf("entry = %+v, want version 2's settings change with its actor named", got.Entry)
	}
	for _, n := range []int{0, 4} {
		if _, err := h.Handle(context.Background(), FormVersion{Caller: integrationOwner, FormID: "form-1", Version: n}); !errors.Is(err, domain.ErrNotFound) {
			t.Errorf("version %d: %v, want not found", n, err)
		}
	}
	stranger := Session{AccountID: "acct-2", ActorType: "session", Access: account.FullAccess()}
	if _, err := h.Handle(context.Background(), FormVersion{Caller: stranger, FormID: "form-1", Version: 1}); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("another account's caller: %v, want not found", err)
	}
	writer := integrationOwner
	writer.Access = account.TokenAccess("ws-1", []account.Scope{account.ScopeFormsWrite})
	if _, err := h.Handle(context.Background(), FormVersion{Caller: writer, FormID: "form-1", Version: 1}); err == nil {
		t.Error("a token without forms:read read a version")
	}
}

func TestCompareFormVersionsListsWhatDiffers(t *testing.T) {
	w := newVersionsWorld(t)
	h := NewCompareFormVersionsHandler(w)
	changes, err := h.Handle(context.Background(), CompareFormVersions{Caller: integrationOwner, FormID: "form-1", From: 3, To: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 2 || changes[0].Field != "name" || string(changes[0].From) != `"Support"` || string(changes[0].To) != `"Contact"` ||
		changes[1].Field != "subjectDefault" {
		t.Errorf("3 → 1 = %+v, want name and subjectDefault back", changes)
	}
	if _, err := h.Handle(context.Background(), CompareFormVersions{Caller: integrationOwner, FormID: "form-1", From: 1, To: 9}); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("to a version the form has not reached: %v, want not found", err)
	}
}

func TestRestoreFormVersionRecordsARestoreByTheCaller(t *testing.T) {
	w := newVersionsWorld(t)
	h := NewRestoreFormVersionHandler(w, w, noEntitlements{}, &seqIDs{}, fixedClock{}, idTokens{})
	rec, err := h.Handle(context.Background(), RestoreFormVersion{Caller: integrationOwner, RequestID: "req-1", FormID: "form-1", Version: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Settings.Name != "Contact" || rec.Settings.SubjectDefault != "" {
		t.Errorf("after restoring version 1: %+v", rec.Settings)
	}
	changes := w.formChanges()
	if len(changes) != 1 {
		t.Fatalf("committed %v, want one restore", changes)
	}
	if ev, ok := changes[0].(form.SettingsRestored); !ok || ev.RestoredVersion != 1 || len(ev.Changes) != 2 {
		t.Errorf("committed %+v, want the restore of version 1 with two changes", changes[0])
	}
	if md := w.Metadata(); md.Actor.ID != "cred-1" || md.RequestID != "req-1" {
		t.Errorf("metadata %+v, want the caller and request", md)
	}
	var invalid *domain.InvalidInputError
	if _, err := h.Handle(context.Background(), RestoreFormVersion{Caller: integrationOwner, FormID: "form-1", Version: 7}); !errors.As(err, &invalid) || invalid.Field != "version" {
		t.Errorf("restore of a version the form has not reached: %v, want invalid version", err)
	}
	reader := integrationOwner
	reader.Access = account.TokenAccess("ws-1", []account.Scope{account.ScopeFormsRead})
	if _, err := h.Handle(context.Background(), RestoreFormVersion{Caller: reader, FormID: "form-1", Version: 2}); err == nil {
		t.Error("a token without forms:write restored a version")
	}
}

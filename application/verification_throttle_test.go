package application

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/verification"
)

// throttleWorld is integrationWorld whose transaction reports a given
// history of verification mails and records the verifications saved.
type throttleWorld struct {
	*integrationWorld
	recent        verification.RecentRequests
	asked         []string // subject/account/email of each throttle read
	verifications []*verification.Verification
	created       *form.Form
}

func newThrottleWorld(t *testing.T, recent verification.RecentRequests) *throttleWorld {
	t.Helper()
	acc, err := account.FromHistory([]account.Event{
		account.Registered{AccountID: "acct-1", Email: "ada@example.com", WorkspaceID: "ws-1"},
		account.EmailVerified{},
	})
	if err != nil {
		t.Fatal(err)
	}
	w := &throttleWorld{integrationWorld: newIntegrationWorld(t), recent: recent}
	w.acc = acc
	return w
}

func (w *throttleWorld) InTx(_ context.Context, md Metadata, fn func(Tx) error) error {
	w.md = md
	return fn(w)
}

func (w *throttleWorld) RecentVerificationRequests(_ context.Context, kind verification.Kind, subjectID, accountID, email string, _ time.Time) (verification.RecentRequests, error) {
	w.asked = append(w.asked, string(kind)+" "+subjectID+" "+accountID+" "+email)
	return w.recent, nil
}

func (w *throttleWorld) SaveVerification(_ context.Context, v *verification.Verification) error {
	w.verifications = append(w.verifications, v)
	return nil
}

func (w *throttleWorld) SaveForm(ctx context.Context, f *form.Form) error {
	if f != w.f {
		w.created = f
	}
	return w.integrationWorld.SaveForm(ctx, f)
}

func (w *throttleWorld) FormByID(_ context.Context, id string) (FormRecord, error) {
	for _, f := range []*form.Form{w.f, w.created} {
		if f != nil && f.ID() == id {
			return FormRecord{ID: f.ID(), AccountID: f.AccountID(), WorkspaceID: f.WorkspaceID(), Settings: f.Settings()}, nil
		}
	}
	return FormRecord{}, domain.ErrNotFound
}

func (w *throttleWorld) LatestVerification(context.Context, verification.Kind, string) (VerificationRecord, error) {
	if len(w.verifications) == 0 {
		return VerificationRecord{}, domain.ErrNotFound
	}
	return record(w.verifications[len(w.verifications)-1]), nil
}

// spent is a history that leaves no room for another mail to the address.
func spent() verification.RecentRequests {
	var r verification.RecentRequests
	for i := range verification.MaxPerAddressPerHour {
		r.ForAddress = append(r.ForAddress, fixedClock{}.Now().Add(-time.Duration(i+1)*time.Minute))
	}
	return r
}

// TestEveryRecipientVerificationPathObeysOneThrottle: a new form, a changed
// recipientEmail and a resend each ask the one throttle, for the form's
// account and address; over it, the form change is kept without a mail, and
// a resend is refused.
func TestEveryRecipientVerificationPathObeysOneThrottle(t *testing.T) {
	ctx := context.Background()
	paths := map[string]func(w *throttleWorld) (subject string, err error){
		"create": func(w *throttleWorld) (string, error) {
			out, err := NewCreateFormHandler(w, w, noEntitlements{}, &seqIDs{}, fixedClock{}, idTokens{}).Handle(ctx,
				CreateForm{Caller: integrationOwner, Settings: form.Settings{Name: "New", RecipientEmail: "victim@example.com"}})
			if err == nil && out.Form.Settings.RecipientEmail != "victim@example.com" {
				err = errors.New("form not created")
			}
			return out.Form.ID, err
		},
		"update": func(w *throttleWorld) (string, error) {
			to := "victim@example.com"
			rec, err := NewUpdateFormHandler(w, w, noEntitlements{}, &seqIDs{}, fixedClock{}, idTokens{}, boundSealer{}).Handle(ctx,
				UpdateForm{Caller: integrationOwner, FormID: "form-1", Patch: form.Patch{RecipientEmail: &to}})
			if err == nil && (rec.Settings.RecipientEmail != to || w.f.Settings().RecipientEmail != to) {
				err = errors.New("recipientEmail not changed")
			}
			return "form-1", err
		},
		"resend": func(w *throttleWorld) (string, error) {
			to := "victim@example.com"
			if err := w.f.ChangeSettings(form.Patch{RecipientEmail: &to}, form.Policy{}, fixedClock{}.Now()); err != nil {
				return "", err
			}
			_, err := NewResendRecipientVerificationHandler(w, w, &seqIDs{}, fixedClock{}, idTokens{}).Handle(ctx,
				ResendRecipientVerification{Caller: integrationOwner, FormID: "form-1"})
			return "form-1", err
		},
	}
	for name, run := range paths {
		t.Run(name+" under the limit mails", func(t *testing.T) {
			w := newThrottleWorld(t, verification.RecentRequests{})
			subject, err := run(w)
			if err != nil {
				t.Fatal(err)
			}
			if want := "recipient " + subject + " acct-1 victim@example.com"; len(w.asked) != 1 || w.asked[0] != want {
				t.Errorf("throttle asked %q, want [%q]", w.asked, want)
			}
			if len(w.verifications) != 1 || len(w.queued) != 1 {
				t.Errorf("%d verifications, %d deliveries, want one each", len(w.verifications), len(w.queued))
			}
		})
		t.Run(name+" over the limit sends nothing", func(t *testing.T) {
			w := newThrottleWorld(t, spent())
			_, err := run(w)
			var tooMany *domain.TooManyRequestsError
			switch {
			case name == "resend" && !errors.As(err, &tooMany):
				t.Errorf("resend = %v, want a *domain.TooManyRequestsError", err)
			case name != "resend" && err != nil:
				t.Errorf("= %v, want the form change kept", err)
			}
			if len(w.asked) != 1 {
				t.Errorf("throttle asked %d times, want once", len(w.asked))
			}
			if len(w.verifications) != 0 || len(w.queued) != 0 {
				t.Errorf("%d verifications, %d deliveries, want none", len(w.verifications), len(w.queued))
			}
		})
	}
}

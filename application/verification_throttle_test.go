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

// throttleWorld is integrationWorld with the account, whose transaction
// reports a given history of verification mails and notes what it was
// asked.
type throttleWorld struct {
	*integrationWorld
	recent verification.RecentRequests
	asked  []string // subject/account/email of each throttle read
}

func newThrottleWorld(t *testing.T, recent verification.RecentRequests) *throttleWorld {
	t.Helper()
	w := &throttleWorld{integrationWorld: newIntegrationWorld(t), recent: recent}
	w.Seed("acct-1", account.Registered{AccountID: "acct-1", Email: "ada@example.com", WorkspaceID: "ws-1"}, account.EmailVerified{})
	return w
}

func (w *throttleWorld) InTx(ctx context.Context, md Metadata, fn func(Tx) error) error {
	return w.integrationWorld.InTx(ctx, md, func(tx Tx) error { return fn(throttledTx{Tx: tx, w: w}) })
}

// throttledTx is the in-memory unit of work with the throttle's history
// given by the test.
type throttledTx struct {
	Tx
	w *throttleWorld
}

func (t throttledTx) RecentVerificationRequests(_ context.Context, kind verification.Kind, subjectID, accountID, email string, _ time.Time) (verification.RecentRequests, error) {
	t.w.asked = append(t.w.asked, string(kind)+" "+subjectID+" "+accountID+" "+email)
	return t.w.recent, nil
}

// verifications are the verifications requested.
func (w *throttleWorld) verifications() []verification.Requested {
	var out []verification.Requested
	for _, r := range w.Events() {
		if e, ok := r.Event.(verification.Requested); ok {
			out = append(out, e)
		}
	}
	return out
}

func (w *throttleWorld) LatestVerification(context.Context, verification.Kind, string) (VerificationRecord, error) {
	vs := w.verifications()
	if len(vs) == 0 {
		return VerificationRecord{}, domain.ErrNotFound
	}
	v := vs[len(vs)-1]
	return VerificationRecord{ID: v.VerificationID, Kind: v.Kind, SubjectID: v.SubjectID, Email: v.Email, DeliveryID: v.DeliveryID,
		Status: verification.StatusPending, ExpiresAt: v.ExpiresAt}, nil
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
			if err == nil && (rec.Settings.RecipientEmail != to || w.form().Settings().RecipientEmail != to) {
				err = errors.New("recipientEmail not changed")
			}
			return "form-1", err
		},
		"resend": func(w *throttleWorld) (string, error) {
			to := "victim@example.com"
			w.change(func(f *form.Form) error {
				return f.ChangeSettings(form.Patch{RecipientEmail: &to}, form.Policy{}, fixedClock{}.Now())
			})
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
			if len(w.verifications()) != 1 || len(w.Queued()) != 1 {
				t.Errorf("%d verifications, %d deliveries, want one each", len(w.verifications()), len(w.Queued()))
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
			if len(w.verifications()) != 0 || len(w.Queued()) != 0 {
				t.Errorf("%d verifications, %d deliveries, want none", len(w.verifications()), len(w.Queued()))
			}
		})
	}
}

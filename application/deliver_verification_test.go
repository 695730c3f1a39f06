package application

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/formd/formd/adapters/i18n"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/verification"
)

// noVerifications knows no verification.
type noVerifications struct{}

func (noVerifications) VerificationByID(context.Context, string) (VerificationRecord, error) {
	return VerificationRecord{}, domain.ErrNotFound
}

// oneVerification knows one verification.
type oneVerification struct{ rec VerificationRecord }

func (o oneVerification) VerificationByID(_ context.Context, id string) (VerificationRecord, error) {
	if id != o.rec.ID {
		return VerificationRecord{}, domain.ErrNotFound
	}
	return o.rec, nil
}

// prefixTokens derives a link token visibly from the verification id.
type prefixTokens struct{}

func (prefixTokens) Token(id string) string { return "tok-" + id }

func (t prefixTokens) Tokens(id string) []string { return []string{t.Token(id)} }

func (t prefixTokens) Verify(id, token string) bool { return token == t.Token(id) }

// mailResult records the mails it is asked to send and answers err.
type mailResult struct {
	err  error
	sent *[]Mail
}

func (m mailResult) Send(_ context.Context, mail Mail) error {
	*m.sent = append(*m.sent, mail)
	return m.err
}

// A verification mail is a delivery with no submission and no sealed
// payload: the sender rebuilds it from the verification record, and what a
// failure means is decided like any delivery's (a 5xx refusal is final at
// once, anything else is retried on the schedule).
func TestDeliverSendsAVerificationMailFromItsRecord(t *testing.T) {
	now := fixedClock{}.Now()
	account := VerificationRecord{ID: "ver-1", Kind: verification.KindAccount, SubjectID: "acct-1", Email: "ada@example.com",
		DeliveryID: "del-1", Status: verification.StatusPending, ExpiresAt: now.Add(verification.Lifetime), TokenHash: HashSecret("tok-ver-1")}
	recipient := account
	recipient.Kind, recipient.SubjectID, recipient.Email = verification.KindRecipient, "form-1", "inbox@example.com"
	expired := account
	expired.ExpiresAt = now.Add(-time.Second)
	tests := []struct {
		name    string
		kind    string
		rec     VerificationRecord
		before  int
		sendErr error
		want    string // delivery.Status of the outcome
		mailed  bool
		subject string
	}{
		{name: "an account verification is sent", kind: delivery.KindAccountVerification, rec: account,
			want: "succeeded", mailed: true, subject: "Verify your formd account email"},
		{name: "a recipient verification is sent", kind: delivery.KindRecipientVerification, rec: recipient,
			want: "succeeded", mailed: true, subject: "Confirm you want to receive form submissions"},
		{name: "a refused address fails at once", kind: delivery.KindAccountVerification, rec: account,
			sendErr: fmt.Errorf("%w: 550 5.1.1 no such user", ErrPermanent), want: "failed", mailed: true},
		{name: "a transient failure is retried", kind: delivery.KindAccountVerification, rec: account,
			sendErr: errors.New("451 4.3.0 try again later"), want: "retrying", mailed: true},
		{name: "the last transient failure gives up", kind: delivery.KindAccountVerification, rec: account, before: delivery.MaxAttempts - 1,
			sendErr: errors.New("451 4.3.0 try again later"), want: "failed", mailed: true},
		{name: "an unknown verification fails at once", kind: delivery.KindAccountVerification, rec: VerificationRecord{ID: "other"},
			want: "failed"},
		{name: "an expired link is not mailed", kind: delivery.KindAccountVerification, rec: expired,
			want: "failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := &oneDelivery{claimed: ClaimedDelivery{Attempts: tt.before,
				Queued: delivery.Queued{DeliveryID: "del-1", VerificationID: "ver-1", Kind: tt.kind}}}
			var sent []Mail
			h := NewDeliverHandler(store, plainSealer{}, mailResult{err: tt.sendErr, sent: &sent}, webhookResult{}, noSecrets{}, NewMemoryTransactor(),
				oneVerification{tt.rec}, prefixTokens{}, MailSettings{BaseURL: "https://formd.example/", From: "formd@formd.example"}, fixedClock{}, discardLog, NopMetrics{}, plainLinks{}, plainSpamLinks{}, plainTemplates{}, testCatalogs(t))
			n, err := h.Handle(context.Background(), DeliverDue{Limit: 1})
			if err != nil || n != 1 {
				t.Fatalf("Handle: %d, %v", n, err)
			}
			if len(store.recorded) != 1 {
				t.Fatalf("recorded %+v", store.recorded)
			}
			a := store.recorded[0]
			if got := delivery.Status(a.Outcome); got != tt.want || a.Number != tt.before+1 {
				t.Errorf("outcome %#v (status %s), attempt %d; want %s at attempt %d", a.Outcome, got, a.Number, tt.want, tt.before+1)
			}
			if !tt.mailed {
				if len(sent) != 0 {
					t.Errorf("mailed %+v", sent)
				}
				return
			}
			if len(sent) != 1 {
				t.Fatalf("sent %d mails, want 1", len(sent))
			}
			m := sent[0]
			if m.To != tt.rec.Email || m.DeliveryID != "del-1" || m.MessageID != "del-1@formd" || m.From != "formd@formd.example" {
				t.Errorf("mail %+v: want to %s with the delivery's id", m, tt.rec.Email)
			}
			if !strings.Contains(m.Text, "https://formd.example/verify/tok-ver-1\n") {
				t.Errorf("text %q lacks the link derived from the verification id", m.Text)
			}
			if tt.subject != "" && m.Subject != tt.subject {
				t.Errorf("subject %q, want %q", m.Subject, tt.subject)
			}
		})
	}
}

// A verification's mail is queued in the transaction that requests it, so
// it exists exactly when the verification does.
func TestRequestingAVerificationQueuesItsMail(t *testing.T) {
	store := NewMemoryTransactor()
	now := fixedClock{}.Now()
	ctx := context.Background()
	err := store.InTx(ctx, Metadata{}, func(tx Tx) error {
		return requestVerification(ctx, tx, &seqIDs{}, prefixTokens{}, verification.KindRecipient, "form-1", "acct-1", "inbox@example.com", "", now)
	})
	if err != nil {
		t.Fatal(err)
	}
	saved := store.Events()
	if len(saved) != 1 {
		t.Fatalf("saved %+v, want one verification", saved)
	}
	v := saved[0].Event.(verification.Requested)
	want := []delivery.Queued{{DeliveryID: v.DeliveryID, VerificationID: v.VerificationID, FormID: "form-1",
		Kind: delivery.KindRecipientVerification, Target: "example.com", At: now}}
	if queued := store.Queued(); !reflect.DeepEqual(queued, want) {
		t.Errorf("queued %+v, want %+v", queued, want)
	}
	if v.TokenHash != hexHash("tok-"+v.VerificationID) {
		t.Errorf("token hash %s is not the hash of the derived token", v.TokenHash)
	}
}

// Regression (issue 9, item 1): formd's own mails named themselves "formd"
// even when the operator's sender had a display name of its own.
func TestSystemMailsKeepTheOperatorsSenderName(t *testing.T) {
	for from, want := range map[string]string{
		"Acme Forms <forms@acme.example>": "",
		"forms@acme.example":              "formd",
		"<forms@acme.example>":            "formd",
	} {
		m := verificationMail(VerificationRecord{}, "d1", "tok", MailSettings{From: from}, testCatalogs(t))
		if m.FromName != want || m.From != from {
			t.Errorf("FORMD_MAIL_FROM=%q: From %q under name %q; want the configured sender under %q", from, m.From, m.FromName, want)
		}
	}
}

// A recipient verification mail is in its form's language (the catalogs'
// words, the same in English as formd's own), an account's in English.
func TestARecipientVerificationMailIsInItsFormsLanguage(t *testing.T) {
	catalogs, err := i18n.Load()
	if err != nil {
		t.Fatal(err)
	}
	now := fixedClock{}.Now()
	base := VerificationRecord{ID: "ver-1", Kind: verification.KindRecipient, SubjectID: "form-1", Email: "inbox@example.com",
		DeliveryID: "del-1", Status: verification.StatusPending, ExpiresAt: now.Add(verification.Lifetime), TokenHash: HashSecret("tok-ver-1")}
	settings := MailSettings{BaseURL: "https://formd.example/", From: "formd@formd.example"}
	english := verificationMail(base, "del-1", "tok-ver-1", settings, catalogs)
	for _, tc := range []struct {
		language string
		want     func(Mail) bool
	}{
		{"de", func(m Mail) bool {
			return strings.HasPrefix(m.Subject, "Bestätigen Sie") && strings.Contains(m.Text, "https://formd.example/verify/tok-ver-1\n") &&
				strings.Contains(m.Text, "inbox@example.com") && strings.Contains(m.Text, english.Text[strings.Index(english.Text, "expires at ")+11:][:20])
		}},
		{"en", func(m Mail) bool { return m.Subject == english.Subject && m.Text == english.Text }},
		{"", func(m Mail) bool { return m.Subject == english.Subject && m.Text == english.Text }},
	} {
		rec := base
		rec.Language = tc.language
		store := &oneDelivery{claimed: ClaimedDelivery{Queued: delivery.Queued{DeliveryID: "del-1", VerificationID: "ver-1", Kind: delivery.KindRecipientVerification}}}
		var sent []Mail
		h := NewDeliverHandler(store, plainSealer{}, mailResult{sent: &sent}, webhookResult{}, noSecrets{}, NewMemoryTransactor(),
			oneVerification{rec}, prefixTokens{}, settings, fixedClock{}, discardLog, NopMetrics{}, plainLinks{}, plainSpamLinks{}, plainTemplates{}, catalogs)
		if _, err := h.Handle(context.Background(), DeliverDue{Limit: 1}); err != nil || len(sent) != 1 {
			t.Fatalf("%q: %v, sent %d", tc.language, err, len(sent))
		}
		if !tc.want(sent[0]) {
			t.Errorf("%q: mail %q\n%s", tc.language, sent[0].Subject, sent[0].Text)
		}
	}
}

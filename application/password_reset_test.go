package application

import (
	"context"
	"encoding/hex"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/verification"
)

// resetWorld is one account and its verifications, as the transaction and
// the read model of the password reset use cases see them.
type resetWorld struct {
	acc           *account.Account
	verifications map[string]*verification.Verification
	sessionsEnded []string
	accountSaved  []account.Event
	md            Metadata
	hashed        []string
	queued        []delivery.Queued
	resets        map[string][]time.Time // password reset requests by address
	calls         []string               // the transactions and the steps in them
}

func (w *resetWorld) InTx(_ context.Context, md Metadata, fn func(Tx) error) error {
	w.md = md
	w.calls = append(w.calls, "InTx")
	return fn(w)
}
func (w *resetWorld) PasswordResetRequests(_ context.Context, email string, since time.Time) ([]time.Time, error) {
	w.calls = append(w.calls, "PasswordResetRequests")
	var out []time.Time
	for _, at := range w.resets[email] {
		if at.After(since) {
			out = append(out, at)
		}
	}
	return out, nil
}
func (w *resetWorld) RecordPasswordResetRequest(_ context.Context, email string, at time.Time) error {
	w.calls = append(w.calls, "RecordPasswordResetRequest")
	if w.resets == nil {
		w.resets = map[string][]time.Time{}
	}
	w.resets[email] = append(w.resets[email], at)
	return nil
}
func (w *resetWorld) LoadForm(context.Context, string) (*form.Form, error) {
	return nil, domain.ErrNotFound
}
func (w *resetWorld) SaveForm(context.Context, *form.Form) error { return errors.New("unexpected") }
func (w *resetWorld) LoadAccount(_ context.Context, id string) (*account.Account, error) {
	if w.acc.ID() != id {
		return nil, domain.ErrNotFound
	}
	return w.acc, nil
}
func (w *resetWorld) SaveAccount(_ context.Context, a *account.Account) error {
	w.accountSaved = append(w.accountSaved, a.Changes()...)
	return nil
}
func (w *resetWorld) LoadVerification(_ context.Context, id string) (*verification.Verification, error) {
	v, ok := w.verifications[id]
	if !ok {
		return nil, domain.ErrNotFound
	}
	return verification.FromHistory(v.Changes())
}
func (w *resetWorld) SaveVerification(_ context.Context, v *verification.Verification) error {
	w.calls = append(w.calls, "SaveVerification")
	if w.verifications == nil {
		w.verifications = map[string]*verification.Verification{}
	}
	w.verifications[v.VerificationID] = v
	return nil
}
func (w *resetWorld) CreateSession(context.Context, []byte, string, time.Time) error {
	return errors.New("unexpected")
}
func (w *resetWorld) QueueDelivery(_ context.Context, q delivery.Queued) error {
	w.calls = append(w.calls, "QueueDelivery")
	w.queued = append(w.queued, q)
	return nil
}

func (w *resetWorld) EndSessions(_ context.Context, accountID string) error {
	w.sessionsEnded = append(w.sessionsEnded, accountID)
	return nil
}

func (w *resetWorld) EndSession(context.Context, []byte) error { return errors.New("unexpected") }

func (w *resetWorld) StoreWebhookSecret(context.Context, StoredWebhookSecret, time.Time) error {
	return errors.New("unexpected")
}
func (w *resetWorld) StoreCaptchaSecret(context.Context, StoredCaptchaSecret) error {
	return errors.New("unexpected")
}
func (w *resetWorld) DeleteCaptchaSecret(context.Context, string) error {
	return errors.New("unexpected")
}

// AccountByEmail, VerificationByTokenHash and LatestVerification make w the
// read model too.
func (w *resetWorld) AccountByEmail(_ context.Context, email string) (AccountRecord, error) {
	w.calls = append(w.calls, "AccountByEmail")
	if w.acc == nil || w.acc.Email() != email {
		return AccountRecord{}, domain.ErrNotFound
	}
	return AccountRecord{ID: w.acc.ID(), Email: w.acc.Email(), EmailVerified: w.acc.EmailVerified()}, nil
}
func (w *resetWorld) VerificationByTokenHash(_ context.Context, hash []byte) (VerificationRecord, error) {
	for _, v := range w.verifications {
		if v.TokenHash == hexOf(hash) {
			return record(v), nil
		}
	}
	return VerificationRecord{}, domain.ErrNotFound
}
func (w *resetWorld) LatestVerification(_ context.Context, kind verification.Kind, subjectID string) (VerificationRecord, error) {
	var latest *verification.Verification
	for _, v := range w.verifications {
		if v.Kind == kind && v.SubjectID == subjectID && (latest == nil || v.At.After(latest.At)) {
			latest = v
		}
	}
	if latest == nil {
		return VerificationRecord{}, domain.ErrNotFound
	}
	return record(latest), nil
}
func (w *resetWorld) SessionByTokenHash(context.Context, []byte, time.Time) (AccountRecord, error) {
	return AccountRecord{}, domain.ErrNotFound
}
func (w *resetWorld) FormsByAccount(context.Context, string) ([]FormRecord, error) { return nil, nil }
func (w *resetWorld) FormByID(context.Context, string) (FormRecord, error) {
	return FormRecord{}, domain.ErrNotFound
}
func (w *resetWorld) FormByAccessKeyHash(context.Context, []byte) (FormRecord, error) {
	return FormRecord{}, domain.ErrNotFound
}
func (w *resetWorld) StreamHistory(context.Context, string) ([]HistoryEntry, error) { return nil, nil }
func (w *resetWorld) WorkspacesByAccount(context.Context, string) ([]WorkspaceRecord, error) {
	return nil, nil
}

// Hash and Verify make w the password hasher: it records what it hashed.
func (w *resetWorld) Hash(pw string) (string, error) {
	w.hashed = append(w.hashed, pw)
	return "$hash$" + pw, nil
}
func (w *resetWorld) Verify(pw, encoded string) (bool, error) { return encoded == "$hash$"+pw, nil }

func hexOf(b []byte) string { return hex.EncodeToString(b) }

func record(v *verification.Verification) VerificationRecord {
	return VerificationRecord{ID: v.VerificationID, Kind: v.Kind, SubjectID: v.SubjectID, Email: v.Email,
		DeliveryID: v.DeliveryID, Status: v.Status(), ExpiresAt: v.ExpiresAt}
}

// nowLater runs later work at once, before Handle returns.
type nowLater struct{}

func (nowLater) Go(_ string, work func(context.Context) error) { _ = work(context.Background()) }

// heldLater keeps later work until the test runs it.
type heldLater struct{ work []func(context.Context) error }

func (l *heldLater) Go(_ string, work func(context.Context) error) { l.work = append(l.work, work) }

// idTokens derives a link token from the verification id, as the HMAC does.
type idTokens struct{}

func (idTokens) Token(id string) string { return "tok-" + id }

func (t idTokens) Tokens(id string) []string { return []string{t.Token(id)} }

func (t idTokens) Verify(id, token string) bool { return token == t.Token(id) }

// clockAt is a clock the test moves.
type clockAt struct{ t time.Time }

func (c *clockAt) Now() time.Time { return c.t }

// claimedAccount is an account an attacker registered under the owner's
// address with the attacker's password, never verified.
func claimedAccount(t *testing.T) *resetWorld {
	t.Helper()
	acc, err := account.FromHistory([]account.Event{account.Registered{AccountID: "acct-1", Email: "owner@example.com",
		PasswordHash: "$hash$attacker's password", WorkspaceID: "ws-1"}})
	if err != nil {
		t.Fatal(err)
	}
	return &resetWorld{acc: acc}
}

func TestRequestPasswordResetAnswersTheSameForUnknownAddresses(t *testing.T) {
	w := claimedAccount(t)
	h := NewRequestPasswordResetHandler(w, w, &seqIDs{}, fixedClock{}, idTokens{}, nowLater{})
	if err := h.Handle(context.Background(), RequestPasswordReset{Email: "nobody@example.com"}); err != nil {
		t.Fatalf("an address without an account: %v, want no error", err)
	}
	if len(w.verifications) != 0 {
		t.Fatalf("recorded %v for an address without an account", w.verifications)
	}
	if err := h.Handle(context.Background(), RequestPasswordReset{Email: " Owner@Example.com ", RequestID: "req-1"}); err != nil {
		t.Fatal(err)
	}
	if len(w.verifications) != 1 {
		t.Fatalf("recorded %d verifications, want 1", len(w.verifications))
	}
	for _, v := range w.verifications {
		if v.Kind != verification.KindPasswordReset || v.SubjectID != "acct-1" || v.Email != "owner@example.com" ||
			v.ExpiresAt != (fixedClock{}).Now().Add(time.Hour) || v.TokenHash != hexHash("tok-"+v.VerificationID) {
			t.Errorf("recorded %+v, want a one-hour password reset of acct-1 to owner@example.com, its token hashed", v.Requested)
		}
	}
	if w.md.Actor != (Actor{Type: ActorAnonymous}) || w.md.AccountID != "acct-1" || w.md.RequestID != "req-1" {
		t.Errorf("metadata %+v", w.md)
	}
	var invalid *domain.InvalidInputError
	if err := h.Handle(context.Background(), RequestPasswordReset{Email: "not an address"}); !errors.As(err, &invalid) {
		t.Errorf("an invalid address: %v, want a validation error", err)
	}
}

func TestResetPasswordTakesTheAccountBackAndEndsItsSessions(t *testing.T) {
	w := claimedAccount(t)
	clock := &clockAt{t: fixedClock{}.Now()}
	ids := &seqIDs{}
	request := NewRequestPasswordResetHandler(w, w, ids, clock, idTokens{}, nowLater{})
	reset := NewResetPasswordHandler(w, w, w, clock, idTokens{})
	if err := request.Handle(context.Background(), RequestPasswordReset{Email: "owner@example.com"}); err != nil {
		t.Fatal(err)
	}
	older := "tok-id-1"
	clock.t = clock.t.Add(time.Minute)
	if err := request.Handle(context.Background(), RequestPasswordReset{Email: "owner@example.com"}); err != nil {
		t.Fatal(err)
	}
	newer := "tok-id-3"
	clock.t = clock.t.Add(time.Minute)

	if _, err := reset.Handle(context.Background(), ResetPassword{Token: newer, Password: "short"}); err == nil {
		t.Error("a password under 12 characters was accepted")
	}
	if len(w.sessionsEnded) != 0 || len(w.accountSaved) != 0 {
		t.Fatalf("a refused reset changed the account (%v) or ended sessions (%v)", w.accountSaved, w.sessionsEnded)
	}
	out, err := reset.Handle(context.Background(), ResetPassword{Token: newer, Password: "the owner's new password", RequestID: "req-2"})
	if err != nil {
		t.Fatal(err)
	}
	if out.Email != "owner@example.com" {
		t.Errorf("answered %+v", out)
	}
	want := []account.Event{
		account.PasswordReset{PasswordHash: "$hash$the owner's new password", At: clock.t},
		account.EmailVerified{At: clock.t},
	}
	if !reflect.DeepEqual(w.accountSaved, want) {
		t.Errorf("account saved %+v, want %+v", w.accountSaved, want)
	}
	if !reflect.DeepEqual(w.sessionsEnded, []string{"acct-1"}) {
		t.Errorf("sessions ended %v, want every session of acct-1", w.sessionsEnded)
	}
	if w.md.Actor != (Actor{Type: ActorLink, ID: "id-3"}) || w.md.AccountID != "acct-1" {
		t.Errorf("metadata %+v, want the link as actor on acct-1", w.md)
	}
	if w.verifications["id-3"].Status() != verification.StatusVerified {
		t.Error("the link was not used up")
	}

	// The older link was not spent by the newer one being sent, but by the
	// newer one resetting the password.
	if _, err := reset.Handle(context.Background(), ResetPassword{Token: older, Password: "the owner's new password"}); !errors.Is(err, verification.ErrPasswordResetSince) {
		t.Errorf("the older link after the reset: %v, want ErrPasswordResetSince", err)
	}
	hashesBefore := len(w.hashed)
	if _, err := reset.Handle(context.Background(), ResetPassword{Token: newer, Password: "another long password"}); !errors.Is(err, verification.ErrAlreadyUsed) {
		t.Errorf("the link again: %v, want ErrAlreadyUsed", err)
	}
	if _, err := NewVerificationLinkHandler(w, clock, idTokens{}).Handle(context.Background(), VerificationLinkQuery{Token: newer}); !errors.Is(err, verification.ErrAlreadyUsed) {
		t.Errorf("opening the used link: %v, want ErrAlreadyUsed (no password form)", err)
	}
	if len(w.hashed) != hashesBefore {
		t.Error("a used link still cost a password hash")
	}
}

func TestResetPasswordRefusesExpiredAndOtherLinks(t *testing.T) {
	w := claimedAccount(t)
	clock := &clockAt{t: fixedClock{}.Now()}
	if err := NewRequestPasswordResetHandler(w, w, &seqIDs{}, clock, idTokens{}, nowLater{}).Handle(context.Background(), RequestPasswordReset{Email: "owner@example.com"}); err != nil {
		t.Fatal(err)
	}
	reset := NewResetPasswordHandler(w, w, w, clock, idTokens{})
	clock.t = clock.t.Add(time.Hour)
	if _, err := reset.Handle(context.Background(), ResetPassword{Token: "tok-id-1", Password: "the owner's new password"}); !errors.Is(err, verification.ErrExpired) {
		t.Errorf("an hour later: %v, want ErrExpired", err)
	}
	if _, err := NewVerificationLinkHandler(w, clock, idTokens{}).Handle(context.Background(), VerificationLinkQuery{Token: "tok-id-1"}); !errors.Is(err, verification.ErrExpired) {
		t.Errorf("opening the expired link: %v, want ErrExpired", err)
	}
	if _, err := reset.Handle(context.Background(), ResetPassword{Token: "tok-unknown", Password: "the owner's new password"}); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("an unknown token: %v, want ErrNotFound", err)
	}

	// An account verification link is no password reset link, and a reset
	// link does not verify through VerifyLink.
	v, _ := verification.Request(verification.Requested{VerificationID: "acct-link", Kind: verification.KindAccount, SubjectID: "acct-1",
		AccountID: "acct-1", Email: "owner@example.com", TokenHash: hexHash("tok-acct-link"), DeliveryID: "d"}, clock.t)
	_ = w.SaveVerification(context.Background(), v)
	if _, err := reset.Handle(context.Background(), ResetPassword{Token: "tok-acct-link", Password: "the owner's new password"}); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("an account link as reset: %v, want ErrNotFound", err)
	}
	clock.t = fixedClock{}.Now()
	if _, err := NewVerifyLinkHandler(w, w, clock, idTokens{}).Handle(context.Background(), VerifyLink{Token: "tok-id-1"}); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("a reset link through VerifyLink: %v, want ErrNotFound", err)
	}
	if len(w.accountSaved) != 0 || len(w.sessionsEnded) != 0 {
		t.Errorf("refused links changed the account: %v %v", w.accountSaved, w.sessionsEnded)
	}
}

func TestVerificationLinkChangesNothing(t *testing.T) {
	w := claimedAccount(t)
	v, _ := verification.Request(verification.Requested{VerificationID: "acct-link", Kind: verification.KindAccount, SubjectID: "acct-1",
		AccountID: "acct-1", Email: "owner@example.com", TokenHash: hexHash("tok-acct-link"), DeliveryID: "d"}, fixedClock{}.Now())
	_ = w.SaveVerification(context.Background(), v)
	view, err := NewVerificationLinkHandler(w, fixedClock{}, idTokens{}).Handle(context.Background(), VerificationLinkQuery{Token: "tok-acct-link"})
	if err != nil || view != (LinkView{Kind: verification.KindAccount, Email: "owner@example.com"}) {
		t.Errorf("view = %+v, %v", view, err)
	}
	if w.verifications["acct-link"].Status() != verification.StatusPending || w.acc.EmailVerified() {
		t.Error("opening the link verified something")
	}
	if _, err := NewVerificationLinkHandler(w, fixedClock{}, idTokens{}).Handle(context.Background(), VerificationLinkQuery{Token: "nope"}); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("an unknown token: %v", err)
	}
}

func (w *resetWorld) RecentVerificationRequests(context.Context, verification.Kind, string, string, string, time.Time) (verification.RecentRequests, error) {
	return verification.RecentRequests{}, nil
}

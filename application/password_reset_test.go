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
	"github.com/formd/formd/domain/verification"
)

// resetWorld is one account and its verifications in the in-memory unit of
// work, as the transaction and the read model of the password reset use
// cases see them, with the steps they take.
type resetWorld struct {
	*MemoryTransactor
	t      *testing.T
	hashed []string
	calls  []string // the transactions and the steps in them
}

func (w *resetWorld) InTx(ctx context.Context, md Metadata, fn func(Tx) error) error {
	w.calls = append(w.calls, "InTx")
	return w.MemoryTransactor.InTx(ctx, md, func(tx Tx) error { return fn(stepsTx{Tx: tx, w: w}) })
}

// stepsTx notes the steps a password reset takes in its transaction.
type stepsTx struct {
	Tx
	w *resetWorld
}

func (s stepsTx) PasswordResetRequests(ctx context.Context, email string, since time.Time) ([]time.Time, error) {
	s.w.calls = append(s.w.calls, "PasswordResetRequests")
	return s.Tx.PasswordResetRequests(ctx, email, since)
}
func (s stepsTx) RecordPasswordResetRequest(ctx context.Context, email string, at time.Time) error {
	s.w.calls = append(s.w.calls, "RecordPasswordResetRequest")
	return s.Tx.RecordPasswordResetRequest(ctx, email, at)
}
func (s stepsTx) SaveVerification(ctx context.Context, v *verification.Verification) error {
	s.w.calls = append(s.w.calls, "SaveVerification")
	return s.Tx.SaveVerification(ctx, v)
}
func (s stepsTx) QueueDelivery(ctx context.Context, q delivery.Queued) error {
	s.w.calls = append(s.w.calls, "QueueDelivery")
	return s.Tx.QueueDelivery(ctx, q)
}

// account is the account as committed.
func (w *resetWorld) account() *account.Account {
	w.t.Helper()
	var events []account.Event
	for _, e := range w.Stream("acct-1") {
		events = append(events, e.(account.Event))
	}
	a, err := account.FromHistory(events)
	if err != nil {
		w.t.Fatal(err)
	}
	return a
}

// verifications are every verification as committed, by id.
func (w *resetWorld) verifications() map[string]*verification.Verification {
	w.t.Helper()
	out := map[string]*verification.Verification{}
	for id, h := range w.Streams() {
		if StreamType(h[0]) != "verification" {
			continue
		}
		events := make([]verification.Event, len(h))
		for i, e := range h {
			events[i] = e.(verification.Event)
		}
		v, err := verification.FromHistory(events)
		if err != nil {
			w.t.Fatal(err)
		}
		out[id] = v
	}
	return out
}

// sessionKept says whether the session the attacker signed in with is
// still stored.
func (w *resetWorld) sessionKept() bool {
	_, _, ok := w.Session(attackerSession)
	return ok
}

var attackerSession = []byte("attacker's session")

// AccountByEmail, VerificationByTokenHash and LatestVerification make w the
// read model too.
func (w *resetWorld) AccountByEmail(_ context.Context, email string) (AccountRecord, error) {
	w.calls = append(w.calls, "AccountByEmail")
	a := w.account()
	if a.Email() != email {
		return AccountRecord{}, domain.ErrNotFound
	}
	return AccountRecord{ID: a.ID(), Email: a.Email(), EmailVerified: a.EmailVerified()}, nil
}
func (w *resetWorld) VerificationByTokenHash(_ context.Context, hash []byte) (VerificationRecord, error) {
	for _, v := range w.verifications() {
		if v.TokenHash == hexOf(hash) {
			return record(v), nil
		}
	}
	return VerificationRecord{}, domain.ErrNotFound
}

// LatestVerificationTo implements VerificationReader; the world's
// verifications are account and password reset links, one address each.
func (w *resetWorld) LatestVerificationTo(ctx context.Context, kind verification.Kind, subjectID, _ string) (VerificationRecord, error) {
	return w.LatestVerification(ctx, kind, subjectID)
}

func (w *resetWorld) LatestVerification(_ context.Context, kind verification.Kind, subjectID string) (VerificationRecord, error) {
	var latest *verification.Verification
	for _, v := range w.verifications() {
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
	m := NewMemoryTransactor()
	m.Seed("acct-1", account.Registered{AccountID: "acct-1", Email: "owner@example.com",
		PasswordHash: "$hash$attacker's password", WorkspaceID: "ws-1"})
	if err := m.InTx(context.Background(), Metadata{}, func(tx Tx) error {
		return tx.CreateSession(context.Background(), attackerSession, "acct-1", fixedClock{}.Now().Add(24*time.Hour))
	}); err != nil {
		t.Fatal(err)
	}
	return &resetWorld{MemoryTransactor: m, t: t}
}

func TestRequestPasswordResetAnswersTheSameForUnknownAddresses(t *testing.T) {
	w := claimedAccount(t)
	h := NewRequestPasswordResetHandler(w, w, &seqIDs{}, fixedClock{}, idTokens{}, nowLater{})
	if err := h.Handle(context.Background(), RequestPasswordReset{Email: "nobody@example.com"}); err != nil {
		t.Fatalf("an address without an account: %v, want no error", err)
	}
	if vs := w.verifications(); len(vs) != 0 {
		t.Fatalf("recorded %v for an address without an account", vs)
	}
	if err := h.Handle(context.Background(), RequestPasswordReset{Email: " Owner@Example.com ", RequestID: "req-1"}); err != nil {
		t.Fatal(err)
	}
	if len(w.verifications()) != 1 {
		t.Fatalf("recorded %d verifications, want 1", len(w.verifications()))
	}
	for _, v := range w.verifications() {
		if v.Kind != verification.KindPasswordReset || v.SubjectID != "acct-1" || v.Email != "owner@example.com" ||
			v.ExpiresAt != (fixedClock{}).Now().Add(time.Hour) || v.TokenHash != hexHash("tok-"+v.VerificationID) {
			t.Errorf("recorded %+v, want a one-hour password reset of acct-1 to owner@example.com, its token hashed", v.Requested)
		}
	}
	if w.Metadata().Actor != (Actor{Type: ActorAnonymous}) || w.Metadata().AccountID != "acct-1" || w.Metadata().RequestID != "req-1" {
		t.Errorf("metadata %+v", w.Metadata())
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
	if saved := savedAccountEvents(w.MemoryTransactor); len(saved) != 0 || !w.sessionKept() {
		t.Fatalf("a refused reset changed the account (%v) or ended sessions (kept: %v)", saved, w.sessionKept())
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
	if saved := savedAccountEvents(w.MemoryTransactor); !reflect.DeepEqual(saved, want) {
		t.Errorf("account saved %+v, want %+v", saved, want)
	}
	if w.sessionKept() {
		t.Error("the attacker's session was kept; want every session of acct-1 ended")
	}
	if w.Metadata().Actor != (Actor{Type: ActorLink, ID: "id-3"}) || w.Metadata().AccountID != "acct-1" {
		t.Errorf("metadata %+v, want the link as actor on acct-1", w.Metadata())
	}
	if w.verifications()["id-3"].Status() != verification.StatusVerified {
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
	w.Seed(v.VerificationID, anys(v.Changes())...)
	if _, err := reset.Handle(context.Background(), ResetPassword{Token: "tok-acct-link", Password: "the owner's new password"}); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("an account link as reset: %v, want ErrNotFound", err)
	}
	clock.t = fixedClock{}.Now()
	if _, err := NewVerifyLinkHandler(w, w, clock, idTokens{}).Handle(context.Background(), VerifyLink{Token: "tok-id-1"}); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("a reset link through VerifyLink: %v, want ErrNotFound", err)
	}
	if saved := savedAccountEvents(w.MemoryTransactor); len(saved) != 0 || !w.sessionKept() {
		t.Errorf("refused links changed the account (%v) or ended sessions (kept: %v)", saved, w.sessionKept())
	}
}

func TestVerificationLinkChangesNothing(t *testing.T) {
	w := claimedAccount(t)
	v, _ := verification.Request(verification.Requested{VerificationID: "acct-link", Kind: verification.KindAccount, SubjectID: "acct-1",
		AccountID: "acct-1", Email: "owner@example.com", TokenHash: hexHash("tok-acct-link"), DeliveryID: "d"}, fixedClock{}.Now())
	w.Seed(v.VerificationID, anys(v.Changes())...)
	view, err := NewVerificationLinkHandler(w, fixedClock{}, idTokens{}).Handle(context.Background(), VerificationLinkQuery{Token: "tok-acct-link"})
	if err != nil || view != (LinkView{Kind: verification.KindAccount, Email: "owner@example.com"}) {
		t.Errorf("view = %+v, %v", view, err)
	}
	if w.verifications()["acct-link"].Status() != verification.StatusPending || w.account().EmailVerified() {
		t.Error("opening the link verified something")
	}
	if _, err := NewVerificationLinkHandler(w, fixedClock{}, idTokens{}).Handle(context.Background(), VerificationLinkQuery{Token: "nope"}); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("an unknown token: %v", err)
	}
}

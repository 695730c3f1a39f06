package application

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/verification"
)

// A reset request for an address with an account and for one without does
// the same steps before it answers: its timing cannot tell them apart. The
// account is looked up, and the link issued, only in the work left for later.
func TestRequestPasswordResetDoesTheSameWorkForKnownAndUnknownAddressesBeforeItAnswers(t *testing.T) {
	before := map[string][]string{}
	for _, email := range []string{"owner@example.com", "nobody@example.com"} {
		w := claimedAccount(t)
		later := &heldLater{}
		h := NewRequestPasswordResetHandler(w, w, &seqIDs{}, fixedClock{}, idTokens{}, later)
		if err := h.Handle(context.Background(), RequestPasswordReset{Email: email}); err != nil {
			t.Fatalf("%s: %v", email, err)
		}
		before[email] = w.calls
		if len(later.work) != 1 {
			t.Fatalf("%s: %d pieces of later work, want 1", email, len(later.work))
		}
		if len(w.verifications()) != 0 || len(w.Queued()) != 0 {
			t.Fatalf("%s: a link was issued before the answer", email)
		}
		if err := later.work[0](context.Background()); err != nil {
			t.Fatal(err)
		}
		if wantLinks := map[string]int{"owner@example.com": 1}[email]; len(w.verifications()) != wantLinks || len(w.Queued()) != wantLinks {
			t.Errorf("%s: later work issued %d links and queued %d mails, want %d", email, len(w.verifications()), len(w.Queued()), wantLinks)
		}
	}
	want := []string{"InTx", "PasswordResetRequests", "RecordPasswordResetRequest"}
	for email, calls := range before {
		if !reflect.DeepEqual(calls, want) {
			t.Errorf("%s: before the answer %v, want %v", email, calls, want)
		}
	}
}

// The limit per address answers alike whether or not an account uses the
// address, and a refused request issues no link: the owner's last link
// stays the newest.
func TestRequestPasswordResetLimitsEachAddressAlike(t *testing.T) {
	for _, email := range []string{"owner@example.com", "nobody@example.com"} {
		w := claimedAccount(t)
		clock := &clockAt{t: fixedClock{}.Now()}
		later := &heldLater{}
		h := NewRequestPasswordResetHandler(w, w, &seqIDs{}, clock, idTokens{}, later)
		for i := range verification.ResetRequestBurst {
			if err := h.Handle(context.Background(), RequestPasswordReset{Email: email}); err != nil {
				t.Fatalf("%s: request %d: %v", email, i+1, err)
			}
		}
		w.calls = nil
		err := h.Handle(context.Background(), RequestPasswordReset{Email: email})
		var tooMany *domain.TooManyRequestsError
		if !errors.As(err, &tooMany) || tooMany.RetryAfter != verification.ResetRequestEvery {
			t.Fatalf("%s: the request past the burst: %v, want a *domain.TooManyRequestsError to wait %v", email, err, verification.ResetRequestEvery)
		}
		if want := []string{"InTx", "PasswordResetRequests"}; !reflect.DeepEqual(w.calls, want) {
			t.Errorf("%s: a refused request did %v, want %v", email, w.calls, want)
		}
		if len(later.work) != verification.ResetRequestBurst {
			t.Errorf("%s: %d pieces of later work, want one per request let through", email, len(later.work))
		}
		clock.t = clock.t.Add(verification.ResetRequestEvery)
		if err := h.Handle(context.Background(), RequestPasswordReset{Email: email}); err != nil {
			t.Errorf("%s: a request %v later: %v", email, verification.ResetRequestEvery, err)
		}
	}
}

// A reset link is not spent by a newer one being sent (someone else may have
// asked for it), only by a reset: the owner's first link still works after
// more were requested, and then spends every other.
func TestAnOlderResetLinkWorksUntilAPasswordIsReset(t *testing.T) {
	w := claimedAccount(t)
	clock := &clockAt{t: fixedClock{}.Now()}
	request := NewRequestPasswordResetHandler(w, w, &seqIDs{}, clock, idTokens{}, nowLater{})
	for range 2 {
		if err := request.Handle(context.Background(), RequestPasswordReset{Email: "owner@example.com"}); err != nil {
			t.Fatal(err)
		}
		clock.t = clock.t.Add(time.Minute)
	}
	reset := NewResetPasswordHandler(w, w, w, clock, idTokens{})
	if _, err := reset.Handle(context.Background(), ResetPassword{Token: "tok-id-1", Password: "the owner's new password"}); err != nil {
		t.Fatalf("the first link after a second was sent: %v", err)
	}
	clock.t = clock.t.Add(time.Minute)
	if _, err := reset.Handle(context.Background(), ResetPassword{Token: "tok-id-3", Password: "someone else's password"}); !errors.Is(err, verification.ErrPasswordResetSince) {
		t.Errorf("the second link after the reset: %v, want ErrPasswordResetSince", err)
	}
}

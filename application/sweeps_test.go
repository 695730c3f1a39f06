package application

import (
	"context"
	"errors"
	"testing"
	"time"
)

// sweepClock is the time the sweeps' stores must be asked at.
type sweepClock struct{}

func (sweepClock) Now() time.Time { return time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC) }

// sweptStores records what each sweep was asked, and answers with n.
type sweptStores struct {
	n      int64
	err    error
	asked  []time.Time
	topic  string
	unread time.Duration
}

func (s *sweptStores) note(now time.Time) { s.asked = append(s.asked, now) }

func (s *sweptStores) Heartbeat(_ context.Context, now time.Time) error { s.note(now); return s.err }
func (s *sweptStores) ReleaseDeadClaims(_ context.Context, now time.Time) (int64, error) {
	s.note(now)
	return s.n, s.err
}
func (s *sweptStores) PruneMessages(_ context.Context, topic string, unread time.Duration) (int64, error) {
	s.topic, s.unread = topic, unread
	return s.n, s.err
}
func (s *sweptStores) ShredExpiredPayloads(_ context.Context, now time.Time) (int, error) {
	s.note(now)
	return int(s.n), s.err
}
func (s *sweptStores) PruneIdempotencyKeys(context.Context) (int64, error) { return s.n, s.err }
func (s *sweptStores) PruneAutoresponderReservations(context.Context) (int64, error) {
	return s.n, s.err
}
func (s *sweptStores) PruneSpentChallenges(_ context.Context, now time.Time) (int64, error) {
	s.note(now)
	return s.n, s.err
}
func (s *sweptStores) PruneThrottles(_ context.Context, now time.Time) error {
	s.note(now)
	return s.err
}

func TestSweepsAskTheirStoreAtTheClocksTimeAndReportItsCount(t *testing.T) {
	ctx := context.Background()
	s := &sweptStores{n: 3}
	counted := map[string]func(context.Context) (int, error){
		"release dead claims":       NewReleaseDeadClaimsHandler(s, sweepClock{}).Handle,
		"shred expired payloads":    NewShredExpiredPayloadsHandler(s, sweepClock{}).Handle,
		"prune idempotency keys":    NewPruneIdempotencyKeysHandler(s).Handle,
		"prune autoresponder slots": NewPruneAutoresponderReservationsHandler(s).Handle,
		"prune spent challenges":    NewPruneSpentChallengesHandler(s, sweepClock{}).Handle,
	}
	for name, handle := range counted {
		if n, err := handle(ctx); n != 3 || err != nil {
			t.Errorf("%s = %d, %v; want the store's 3", name, n, err)
		}
	}
	if err := NewHeartbeatHandler(s, sweepClock{}).Handle(ctx); err != nil {
		t.Fatal(err)
	}
	if err := NewPruneThrottlesHandler(s, sweepClock{}).Handle(ctx); err != nil {
		t.Fatal(err)
	}
	if len(s.asked) != 5 {
		t.Fatalf("the clock's time went to %d stores, want 5", len(s.asked))
	}
	for _, at := range s.asked {
		if !at.Equal(sweepClock{}.Now()) {
			t.Errorf("store asked at %s, want the clock's %s", at, sweepClock{}.Now())
		}
	}
	n, err := NewPruneMessagesHandler(s, UnreadMessageRetention(2*time.Hour)).Handle(ctx, PruneMessages{Topic: TopicDelivery})
	if n != 3 || err != nil || s.topic != TopicDelivery || s.unread != 2*time.Hour {
		t.Errorf("prune messages = %d, %v on %q keeping unread %s; want 3 on %q keeping 2h", n, err, s.topic, s.unread, TopicDelivery)
	}
}

func TestSweepsPassTheirStoresFailure(t *testing.T) {
	away := errors.New("away")
	s := &sweptStores{err: away}
	if _, err := NewPruneIdempotencyKeysHandler(s).Handle(context.Background()); !errors.Is(err, away) {
		t.Errorf("err %v, want the store's", err)
	}
	if err := NewPruneThrottlesHandler(s, sweepClock{}).Handle(context.Background()); !errors.Is(err, away) {
		t.Errorf("err %v, want the store's", err)
	}
}

func TestSweepsRefuseANilStore(t *testing.T) {
	for name, build := range map[string]func(){
		"heartbeat":     func() { NewHeartbeatHandler(nil, sweepClock{}) },
		"dead claims":   func() { NewReleaseDeadClaimsHandler(nil, sweepClock{}) },
		"messages":      func() { NewPruneMessagesHandler(nil, 0) },
		"payloads":      func() { NewShredExpiredPayloadsHandler(nil, sweepClock{}) },
		"keys":          func() { NewPruneIdempotencyKeysHandler(nil) },
		"autoresponder": func() { NewPruneAutoresponderReservationsHandler(nil) },
		"challenges":    func() { NewPruneSpentChallengesHandler(nil, sweepClock{}) },
		"throttles":     func() { NewPruneThrottlesHandler(nil, sweepClock{}) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: a nil store was accepted", name)
				}
			}()
			build()
		}()
	}
}

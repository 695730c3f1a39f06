package watermillpg

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	wsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/formd/formd/adapters/postgres/pgtest"
)

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func TestWakerWakeEndsEveryWait(t *testing.T) {
	t.Parallel()
	w := NewWaker()
	seq0, ch0 := w.state()
	if isClosed(ch0) {
		t.Fatal("a new waker's channel is already closed")
	}
	if again, ch := w.state(); again != seq0 || ch != ch0 {
		t.Fatal("state changed without a Wake")
	}

	const waiters = 5
	var ended sync.WaitGroup
	for range waiters {
		ended.Go(func() { <-ch0 })
	}
	w.Wake()
	done := make(chan struct{})
	go func() { ended.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Wake did not end the waits")
	}

	seq1, ch1 := w.state()
	if seq1 != seq0+1 {
		t.Errorf("seq after one Wake = %d, want %d", seq1, seq0+1)
	}
	if ch1 == ch0 || isClosed(ch1) {
		t.Error("after Wake the waker must hand out a new, open channel")
	}

	// Waits begun after a Wake last until the next one.
	w.Wake()
	w.Wake()
	if seq, _ := w.state(); seq != seq0+3 {
		t.Errorf("seq after three Wakes = %d, want %d", seq, seq0+3)
	}
	if !isClosed(ch1) {
		t.Error("the second Wake did not close the channel handed out after the first")
	}
}

func TestWakerConcurrentUse(t *testing.T) {
	t.Parallel()
	w := NewWaker()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				w.Wake()
			}
		})
		wg.Go(func() {
			for range 100 {
				_, ch := w.state()
				select {
				case <-ch:
				case <-time.After(time.Millisecond):
				}
			}
		})
	}
	wg.Wait()
	if seq, _ := w.state(); seq != 800 {
		t.Errorf("seq = %d after 800 Wakes", seq)
	}
}

func newBackoff(w *Waker) *backoff {
	return &backoff{waker: w, fallback: wsql.NewDefaultBackoffManager(PollInterval, time.Second)}
}

func TestBackoffWaitsForWake(t *testing.T) {
	t.Parallel()
	w := NewWaker()
	b := newBackoff(w)
	start := time.Now()
	returned := make(chan time.Duration, 1)
	go func() { returned <- b.HandleError(watermill.NopLogger{}, true, nil) }()

	time.Sleep(PollInterval / 5)
	select {
	case <-returned:
		t.Fatal("an idle subscriber with nothing new did not wait")
	default:
	}
	w.Wake()
	select {
	case d := <-returned:
		if d != GatherDelay {
			t.Errorf("backoff after a wake-up = %v, want GatherDelay", d)
		}
		// The wake came at PollInterval/5; the poll timer would end the wait only at PollInterval.
		if elapsed := time.Since(start); elapsed >= PollInterval {
			t.Errorf("wait ended after %v: by the poll timer, not the wake-up", elapsed)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Wake did not end the backoff")
	}

	// The wake-up is consumed: the next empty query waits again.
	if d := b.HandleError(watermill.NopLogger{}, true, nil); d != GatherDelay {
		t.Errorf("backoff = %v, want GatherDelay", d)
	}
}

func TestBackoffPollsWithoutWake(t *testing.T) {
	t.Parallel()
	b := newBackoff(NewWaker())
	start := time.Now()
	if d := b.HandleError(watermill.NopLogger{}, true, nil); d != GatherDelay {
		t.Errorf("backoff = %v, want GatherDelay (the wait happens inside HandleError)", d)
	}
	if elapsed := time.Since(start); elapsed < PollInterval {
		t.Errorf("without a wake-up the wait ended after %v, want at least PollInterval %v", elapsed, PollInterval)
	}
}

func TestBackoffLooksAgainAfterWakeDuringQuery(t *testing.T) {
	t.Parallel()
	w := NewWaker()
	b := newBackoff(w)
	b.lastSeen.Store(0)
	w.Wake() // a commit while the subscriber was querying
	start := time.Now()
	if d := b.HandleError(watermill.NopLogger{}, true, nil); d != 0 {
		t.Errorf("backoff = %v, want 0", d)
	}
	if elapsed := time.Since(start); elapsed >= PollInterval/2 {
		t.Errorf("a wake-up during the query should re-query at once; waited %v", elapsed)
	}
}

func TestBackoffDelegatesErrorsAndMessages(t *testing.T) {
	t.Parallel()
	b := newBackoff(NewWaker())
	log := watermill.NopLogger{}
	start := time.Now()
	if d := b.HandleError(log, false, nil); d != GatherDelay {
		t.Errorf("after a batch of messages the backoff = %v, want GatherDelay to let more gather", d)
	}
	if d := b.HandleError(log, false, errors.New("connection refused")); d != time.Second {
		t.Errorf("after an error the backoff = %v, want the 1s retry interval", d)
	}
	if d := b.HandleError(log, true, errors.New("could not serialize access due to concurrent update")); d != 0 {
		t.Errorf("after losing a race for the offsets row the backoff = %v, want 0", d)
	}
	if elapsed := time.Since(start); elapsed >= PollInterval {
		t.Errorf("delegated cases must not wait for a wake-up; took %v", elapsed)
	}
}

// testChannel is the NOTIFY channel of these tests; in production the
// postgres adapter's event store names it.
const testChannel = "formd_test_events"

// TestListenWakesOnNotifyAndReconnects needs PostgreSQL: a NOTIFY on
// the transport's channel wakes the topic's waker, and after the listening
// connection is killed Listen wakes everyone, reconnects and hears
// notifications again.
func TestListenWakesOnNotifyAndReconnects(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), 25*time.Second)
	defer cancel()
	url, drop, err := pgtest.NewDatabase(ctx)
	if err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(drop)
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)

	ws := NewWakers(Transport{Channel: testChannel})
	w := ws.For("form")
	listenCtx, stopListening := context.WithCancel(ctx)
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		ws.Listen(listenCtx, pool, slog.New(slog.NewTextHandler(io.Discard, nil)))
	}()
	t.Cleanup(func() {
		stopListening()
		select {
		case <-stopped:
		case <-time.After(10 * time.Second):
			t.Error("Listen did not return after its context ended")
		}
	})

	// notifyUntilWoken notifies until a wait begun now ends: the listener
	// may not be listening yet.
	notifyUntilWoken := func(what string) {
		t.Helper()
		_, ch := w.state()
		deadline := time.After(10 * time.Second)
		for {
			if _, err := pool.Exec(ctx, "SELECT pg_notify($1, 'form')", testChannel); err != nil {
				t.Fatal(err)
			}
			select {
			case <-ch:
				return
			case <-time.After(100 * time.Millisecond):
			case <-deadline:
				t.Fatalf("%s: a NOTIFY did not wake the waker", what)
			}
		}
	}
	notifyUntilWoken("first listen")

	var pid int
	if err := pool.QueryRow(ctx, `
		SELECT pid FROM pg_stat_activity
		WHERE datname = current_database() AND query = 'LISTEN '||$1`, testChannel).Scan(&pid); err != nil {
		t.Fatalf("find the listening backend: %v", err)
	}
	_, lost := w.state()
	if _, err := pool.Exec(ctx, "SELECT pg_terminate_backend($1)", pid); err != nil {
		t.Fatal(err)
	}
	select {
	case <-lost:
	case <-time.After(10 * time.Second):
		t.Fatal("losing the listening connection did not wake subscribers")
	}
	notifyUntilWoken("after reconnect")
}

// A commit wakes only the subscribers of the topics it published to: waking
// every subscriber on every commit made each one query its topic in vain.
func TestWakersWakeOnlyTheNotifiedTopic(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), 25*time.Second)
	defer cancel()
	pool := pgtest.Open(t)

	ws := NewWakers(Transport{Channel: testChannel})
	if ws.For("delivery") != ws.For("delivery") {
		t.Fatal("For must return one waker per topic")
	}
	delivery, verification := ws.For("delivery").Next(), ws.For("verification").Next()
	go ws.Listen(ctx, pool, slog.New(slog.NewTextHandler(io.Discard, nil)))
	deadline := time.After(10 * time.Second)
	for woken := false; !woken; {
		// LISTEN may not be in place yet: notify until the waiter hears one.
		if _, err := pool.Exec(ctx, "SELECT pg_notify($1, 'delivery')", testChannel); err != nil {
			t.Fatal(err)
		}
		select {
		case <-delivery:
			woken = true
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			t.Fatal("the delivery waker was not woken by its notification")
		}
	}
	select {
	case <-verification:
		t.Fatal("a delivery notification woke the verification waker")
	default:
	}
}

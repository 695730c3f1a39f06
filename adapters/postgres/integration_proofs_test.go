package postgres_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/domain/form"
)

func TestIntegrationTestLimitsHoldUnderConcurrentCalls(t *testing.T) {
	e := newUoWEnv(t)
	_, formID := e.seedForm(t)
	_, other := e.seedForm(t)
	proofs := postgres.NewIntegrationProofs(e.pool)
	t0 := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	var taken atomic.Int32
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			ok, _, err := proofs.Take(e.ctx, formID, 5, 10*time.Minute, t0)
			if err != nil {
				t.Error(err)
			}
			if ok {
				taken.Add(1)
			}
		})
	}
	wg.Wait()
	if n := taken.Load(); n != 5 {
		t.Fatalf("20 concurrent calls took %d, want 5", n)
	}
	ok, wait, err := proofs.Take(e.ctx, formID, 5, 10*time.Minute, t0.Add(time.Minute))
	if err != nil || ok || wait != 9*time.Minute {
		t.Fatalf("one more: ok %v, wait %v, %v; want refused for 9m", ok, wait, err)
	}
	if ok, _, err := proofs.Take(e.ctx, other, 5, 10*time.Minute, t0); err != nil || !ok {
		t.Fatalf("another form: %v, %v", ok, err)
	}
	if ok, _, err := proofs.Take(e.ctx, formID, 5, 10*time.Minute, t0.Add(10*time.Minute)); err != nil || !ok {
		t.Fatalf("after the window: %v, %v", ok, err)
	}
}

func TestIntegrationCodesAreRedeemedOnceBeforeTheyExpire(t *testing.T) {
	e := newUoWEnv(t)
	_, formID := e.seedForm(t)
	proofs := postgres.NewIntegrationProofs(e.pool)
	t0 := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	tg := form.IntegrationTelegram
	if err := proofs.Issue(e.ctx, formID, tg, []byte("old"), t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := proofs.Issue(e.ctx, formID, tg, []byte("new"), t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := proofs.Redeem(e.ctx, tg, []byte("old"), t0); err != nil || ok {
		t.Fatalf("a replaced code: %v, %v", ok, err)
	}
	if _, ok, err := proofs.Redeem(e.ctx, form.IntegrationGoogleSheets, []byte("new"), t0); err != nil || ok {
		t.Fatalf("another integration's code: %v, %v", ok, err)
	}
	if _, ok, err := proofs.Redeem(e.ctx, tg, []byte("new"), t0.Add(time.Hour)); err != nil || ok {
		t.Fatalf("an expired code: %v, %v", ok, err)
	}
	if err := proofs.Issue(e.ctx, formID, tg, []byte("fresh"), t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	got, ok, err := proofs.Redeem(e.ctx, tg, []byte("fresh"), t0)
	if err != nil || !ok || got != formID {
		t.Fatalf("redeem = %q, %v, %v", got, ok, err)
	}
	if _, ok, _ := proofs.Redeem(e.ctx, tg, []byte("fresh"), t0); ok {
		t.Fatal("a code was redeemed twice")
	}
}

func TestTelegramPollingIsOneProcessAtATimeAndKeepsItsOffset(t *testing.T) {
	e := newUoWEnv(t)
	a, b := postgres.NewIntegrationProofs(e.pool), postgres.NewIntegrationProofs(e.pool)
	inside := make(chan struct{})
	release := make(chan struct{})
	done := make(chan error)
	go func() {
		_, err := a.Poll(e.ctx, func(next int64) (int64, error) {
			if next != 0 {
				t.Errorf("first offset = %d", next)
			}
			close(inside)
			<-release
			return 42, nil
		})
		done <- err
	}()
	<-inside
	ran, err := b.Poll(e.ctx, func(int64) (int64, error) { t.Error("ran while the lease was held"); return 0, nil })
	if err != nil || ran {
		t.Fatalf("second poller: ran %v, %v", ran, err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// A failed round still keeps the offset of the updates it handled.
	ran, err = b.Poll(e.ctx, func(next int64) (int64, error) {
		if next != 42 {
			t.Errorf("offset = %d, want 42", next)
		}
		return 44, errors.New("bot down")
	})
	if !ran || err == nil {
		t.Fatalf("ran %v, err %v", ran, err)
	}
	_, _ = a.Poll(context.Background(), func(next int64) (int64, error) {
		if next != 44 {
			t.Errorf("offset after a failed round = %d, want 44", next)
		}
		return next, nil
	})
}

// Upgrading a database where owners typed Telegram chat ids in: the forms
// read model forgets them (the aggregate drops them when rehydrated), so no
// submission goes to a chat nobody proved; other integrations stay as they are.
func TestMigration35DisconnectsTypedTelegramChats(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	pool := freshDatabase(t, ctx, "formd_migrate35_")
	migrateTo(t, ctx, pool, 34)
	e := uowEnv{ctx: ctx, pool: pool, tx: postgres.NewTransactor(pool, postgres.NewEventStore(), wallClock{})}
	_, typed := e.seedForm(t)
	_, untouched := e.seedForm(t)
	const before = `[{"type":"slack","enabled":true,"targetUrl":"https://hooks.slack.com/x"},{"type":"telegram","enabled":true,"chatId":"-1009"}]`
	if _, err := pool.Exec(ctx, `UPDATE forms SET integrations = $1 WHERE id = $2`, before, typed); err != nil {
		t.Fatal(err)
	}
	migrateTo(t, ctx, pool, 35)
	var got, other string
	if err := pool.QueryRow(ctx, `SELECT integrations::text FROM forms WHERE id = $1`, typed).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if want := `[{"type": "slack", "enabled": true, "targetUrl": "https://hooks.slack.com/x"}, {"type": "telegram", "enabled": true}]`; got != want {
		t.Fatalf("integrations = %s\nwant %s", got, want)
	}
	if err := pool.QueryRow(ctx, `SELECT integrations::text FROM forms WHERE id = $1`, untouched).Scan(&other); err != nil || other != "[]" {
		t.Fatalf("a form without integrations: %s, %v", other, err)
	}
}

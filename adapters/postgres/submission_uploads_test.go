package postgres_test

import (
	"errors"
	"io"
	"log/slog"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/account"
)

// A submission's commit consumes its clean keys, on either path; a key
// consumed once is refused to every later submission, which commits
// nothing.
func TestTheGroupCommitConsumesUploadKeysOnce(t *testing.T) {
	t.Parallel()
	for _, path := range []struct {
		name   string
		commit postgres.CommitPath
	}{{"pipelined", postgres.CommitPipelined}, {"careful", postgres.CommitCarefully}} {
		t.Run(path.name, func(t *testing.T) {
			t.Parallel()
			u := newUploadEnv(t)
			links := now().Add(7 * 24 * time.Hour)
			key, other := u.cleanKey(t), u.cleanKey(t)
			first := u.using(u.accepted(1, ""), links, key, other)
			if _, errs, err := path.commit(u.subs, u.ctx, []application.AcceptedSubmission{first}); err != nil || errs[0] != nil {
				t.Fatalf("%s: %v %v", path.name, err, errs)
			}
			if !u.committed(t, first) {
				t.Fatal("the submission was not committed")
			}
			for _, k := range []string{key, other} {
				if r := u.reservation(t, k); r.ConsumedBy != first.Accepted.SubmissionID || !r.LinksExpire.Equal(links) {
					t.Errorf("reservation %+v: want it consumed by %s with links until %s", r, first.Accepted.SubmissionID, links)
				}
			}

			again := u.using(u.accepted(1, "retry-key"), links, key)
			_, errs, err := postgres.Commit(u.subs, u.ctx, []application.AcceptedSubmission{again})
			if err != nil {
				t.Fatal(err)
			}
			wantUnavailable(t, "a second submission with the key", errs[0], key)
			if u.committed(t, again) {
				t.Error("the refused submission was committed")
			}
			if stored, err := u.subs.IdempotentResponse(u.ctx, u.formID, "retry-key"); err != nil || stored != nil {
				t.Errorf("the refused submission's Idempotency-Key answers: %+v, %v", stored, err)
			}
			if r := u.reservation(t, key); r.ConsumedBy != first.Accepted.SubmissionID {
				t.Errorf("the key changed hands: %+v", r)
			}
		})
	}
}

// A key is refused to a submission of another form, once it expired, and
// until it is scanned clean; the submission commits nothing, and a batch
// sharing the commit with it is not held back.
func TestTheGroupCommitRefusesUnavailableUploadKeys(t *testing.T) {
	t.Parallel()
	u := newUploadEnv(t)
	_, otherForm := u.seedForm(t)
	links := now().Add(time.Hour)
	ofOtherForm := u.reserve(t, otherForm, now().Add(time.Hour)).Key
	u.scanned(t, ofOtherForm, application.ScanClean)
	expired := u.reserve(t, u.formID, now().Add(-time.Second)).Key
	u.scanned(t, expired, application.ScanClean)
	unscanned := u.reserve(t, u.formID, now().Add(time.Hour)).Key
	infected := u.reserve(t, u.formID, now().Add(time.Hour)).Key
	u.scanned(t, infected, application.ScanInfected("Eicar-Test-Signature"))
	for name, key := range map[string]string{
		"a key of another form": ofOtherForm, "an expired key": expired, "an unscanned key": unscanned, "an infected key": infected,
		"a key never reserved": newKey(t),
	} {
		t.Run(name, func(t *testing.T) {
			clean := u.cleanKey(t)
			// The refused submission also names a clean key: it must not be
			// consumed by a submission that does not commit.
			refused := u.using(u.accepted(1, ""), links, clean, key)
			bystander := u.accepted(1, "")
			if _, _, err := postgres.CommitPipelined(u.subs, u.ctx, []application.AcceptedSubmission{bystander, refused}); err == nil {
				t.Fatal("CommitPipelined succeeded; the careful path must sort this batch out")
			}
			_, errs, err := postgres.Commit(u.subs, u.ctx, []application.AcceptedSubmission{bystander, refused})
			if err != nil {
				t.Fatal(err)
			}
			if errs[0] != nil {
				t.Errorf("the bystander was refused: %v", errs[0])
			}
			wantUnavailable(t, name, errs[1], key)
			if !u.committed(t, bystander) || u.committed(t, refused) {
				t.Error("want the bystander committed and the refused submission not")
			}
			if r := u.reservation(t, clean); r.ConsumedBy != "" {
				t.Errorf("the refused submission consumed its other key: %+v", r)
			}
		})
	}
	if r := u.reservation(t, ofOtherForm); r.ConsumedBy != "" {
		t.Errorf("the other form's key was consumed: %+v", r)
	}
}

// Two submissions naming one key in one batch: exactly one commits.
func TestTwoSubmissionsOfOneBatchCannotBothConsumeAKey(t *testing.T) {
	t.Parallel()
	for _, path := range []struct {
		name   string
		commit postgres.CommitPath
	}{{"careful", postgres.CommitCarefully}, {"fallback", postgres.Commit}} {
		t.Run(path.name, func(t *testing.T) {
			t.Parallel()
			u := newUploadEnv(t)
			key := u.cleanKey(t)
			links := now().Add(time.Hour)
			batch := []application.AcceptedSubmission{u.using(u.accepted(1, ""), links, key), u.using(u.accepted(1, ""), links, key)}
			_, errs, err := path.commit(u.subs, u.ctx, batch)
			if err != nil {
				t.Fatal(err)
			}
			if errs[0] != nil {
				t.Errorf("the first submission was refused: %v", errs[0])
			}
			wantUnavailable(t, "the second submission", errs[1], key)
			if !u.committed(t, batch[0]) || u.committed(t, batch[1]) {
				t.Error("want the first submission committed and the second not")
			}
			if r := u.reservation(t, key); r.ConsumedBy != batch[0].Accepted.SubmissionID {
				t.Errorf("reservation %+v, want it consumed by the first", r)
			}
		})
	}
	t.Run("pipelined", func(t *testing.T) {
		t.Parallel()
		u := newUploadEnv(t)
		key := u.cleanKey(t)
		links := now().Add(time.Hour)
		batch := []application.AcceptedSubmission{u.using(u.accepted(1, ""), links, key), u.using(u.accepted(1, ""), links, key)}
		if _, _, err := postgres.CommitPipelined(u.subs, u.ctx, batch); err == nil {
			t.Error("CommitPipelined committed two submissions consuming one key; the careful path must sort it out")
		}
	})
}

// Many submissions racing for one key through the store's queue: exactly
// one wins, every other is refused with the key and commits nothing.
func TestSubmissionsRacingForAnUploadKeyOneWins(t *testing.T) {
	t.Parallel()
	const n = 60
	race := func(t *testing.T, u uploadEnv, store *postgres.SubmissionStore, key string, enqueued func()) {
		t.Helper()
		links := now().Add(time.Hour)
		subs := make([]application.AcceptedSubmission, n)
		errs := make([]error, n)
		for i := range subs {
			subs[i] = u.using(u.accepted(1, ""), links, key)
		}
		var wg sync.WaitGroup
		for i := range subs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = store.Accept(u.ctx, subs[i])
			}()
		}
		enqueued()
		wg.Wait()
		winner := -1
		for i, err := range errs {
			switch {
			case err == nil && winner >= 0:
				t.Fatalf("submissions %d and %d both consumed the key", winner, i)
			case err == nil:
				winner = i
			default:
				wantUnavailable(t, "a losing submission", err, key)
			}
			if u.committed(t, subs[i]) != (err == nil) {
				t.Fatalf("submission %d: committed and answered disagree (%v)", i, err)
			}
		}
		if winner < 0 {
			t.Fatal("no submission consumed the key")
		}
		if r := u.reservation(t, key); r.ConsumedBy != subs[winner].Accepted.SubmissionID {
			t.Errorf("reservation %+v, want it consumed by the winner %s", r, subs[winner].Accepted.SubmissionID)
		}
	}
	t.Run("as they come", func(t *testing.T) {
		t.Parallel()
		u := newUploadEnv(t)
		race(t, u, u.subs, u.cleanKey(t), func() {})
	})
	// The store's one lane is held on a locked reservation while all the
	// submissions queue up: they are committed as one batch.
	t.Run("in one batch", func(t *testing.T) {
		t.Parallel()
		u := newUploadEnv(t)
		store, closeStore := postgres.NewSubmissionStoreWithLanes(u.pool, postgres.NewEventStore(), slog.New(slog.NewTextHandler(io.Discard, nil)), 1)
		t.Cleanup(closeStore)
		held := u.cleanKey(t)
		blocker, err := u.pool.Begin(u.ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer blocker.Rollback(u.ctx) //nolint:errcheck
		if _, err := blocker.Exec(u.ctx, `SELECT 1 FROM upload_reservations WHERE key = $1 FOR UPDATE`, held); err != nil {
			t.Fatal(err)
		}
		decoy := make(chan error, 1)
		go func() {
			_, err := store.Accept(u.ctx, u.using(u.accepted(1, ""), now().Add(time.Hour), held))
			decoy <- err
		}()
		u.waitFor(t, "the lane's commit to wait for the held reservation", func() bool {
			var waiting int
			err := u.pool.QueryRow(u.ctx, `SELECT count(*) FROM pg_stat_activity
				WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&waiting)
			return err == nil && waiting > 0
		})
		race(t, u, store, u.cleanKey(t), func() {
			u.waitFor(t, "every submission to queue", func() bool { return postgres.QueuedSubmissions(store) == n })
			if err := blocker.Rollback(u.ctx); err != nil {
				t.Error(err)
			}
		})
		if err := <-decoy; err != nil {
			t.Errorf("the decoy submission: %v", err)
		}
	})
}

// waitFor polls cond until it holds, failing when the test's context ends.
func (u uploadEnv) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		if u.ctx.Err() != nil {
			t.Fatalf("gave up waiting for %s", what)
		}
		runtime.Gosched()
	}
}

// A submission its quota refuses gives its keys back for another to use.
func TestASubmissionRefusedByItsQuotaGivesItsUploadKeysBack(t *testing.T) {
	t.Parallel()
	u := newUploadEnv(t)
	quotas := account.Quotas{Free: 3, Pro: 100, Lifetime: 100}
	u.setUsed(t, 2)
	key, other := u.cleanKey(t), u.cleanKey(t)
	links := now().Add(time.Hour)
	batch := []application.AcceptedSubmission{u.charged("", quotas), u.using(u.charged("", quotas), links, key, other)}
	_, errs, err := postgres.Commit(u.subs, u.ctx, batch)
	var exhausted *application.QuotaExhaustedError
	if err != nil || errs[0] != nil || !errors.As(errs[1], &exhausted) {
		t.Fatalf("Commit: %v %v, want the first committed and the second refused by the quota", err, errs)
	}
	if u.committed(t, batch[1]) {
		t.Fatal("the refused submission was committed")
	}
	for _, k := range []string{key, other} {
		if r := u.reservation(t, k); r.ConsumedBy != "" || !r.LinksExpire.IsZero() {
			t.Errorf("reservation %+v: the refused submission kept the key", r)
		}
	}
	u.setUsed(t, 0)
	later := u.using(u.charged("", quotas), links, key, other)
	if _, errs, err := postgres.Commit(u.subs, u.ctx, []application.AcceptedSubmission{later}); err != nil || errs[0] != nil {
		t.Fatalf("a later submission with the keys given back: %v %v", err, errs)
	}
}

package postgres_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/url"
	"testing"
	"time"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/adapters/postgres/pgtest"
	"github.com/formd/formd/application"
)

// A group commit whose connection breaks during its COMMIT is answered by
// what the database holds: committed, not committed, or, while the database
// stays away, unavailable.

// newCutEnv is a groupEnv whose submission store reaches PostgreSQL through
// a commitCutter; the env's own pool, for seeding and checking, does not.
func newCutEnv(t *testing.T) (groupEnv, *commitCutter) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	t.Cleanup(cancel)
	dbURL, drop, err := pgtest.NewDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(drop)
	direct, err := postgres.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(direct.Close)
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	cutter := newCommitCutter(t, u.Host)
	u.Host = cutter.ln.Addr().String()
	proxied, err := postgres.Connect(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proxied.Close)

	events := postgres.NewEventStore()
	e := uowEnv{ctx: ctx, pool: direct, tx: postgres.NewTransactor(direct, events, wallClock{}), read: postgres.NewReadModel(direct, events)}
	accountID, formID := e.seedForm(t)
	subs, closeStore := postgres.NewSubmissionStore(proxied, events, postgres.NewDeliveryStore(proxied, events),
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(closeStore)
	return groupEnv{uowEnv: e, subs: subs, accountID: accountID, formID: formID, version: 1}, cutter
}

func wasCut(t *testing.T, c *commitCutter) {
	t.Helper()
	select {
	case <-c.cut:
	default:
		t.Fatal("no commit was cut")
	}
}

func TestCommitCutAfterItLandedIsAnsweredCommitted(t *testing.T) {
	g, cutter := newCutEnv(t)
	s := g.accepted(g.version, "cut-after-commit")
	s.ClaimedUntil = time.Now().Add(time.Minute) // handed off to this process's workers

	cutter.arm(false)
	acc, err := g.subs.Accept(g.ctx, s)
	wasCut(t, cutter)
	if err != nil || acc.Prior != nil {
		// A prior response would mean the store committed it a second
		// time, and found its own Idempotency-Key.
		t.Fatalf("a commit cut after it landed was answered %v, prior %v; want committed", err, acc.Prior)
	}
	if !g.committed(t, s) {
		t.Fatal("the submission answered committed is not stored")
	}
	var claimed int
	if err := g.pool.QueryRow(g.ctx, `SELECT count(*) FROM deliveries WHERE id = $1 AND claimed_by IS NOT NULL`,
		s.Queued[0].DeliveryID).Scan(&claimed); err != nil || claimed != 1 {
		t.Fatalf("the handed-off delivery is claimed %d times (%v), want once", claimed, err)
	}
}

func TestCarefulCommitCutAfterItLandedIsAnsweredCommitted(t *testing.T) {
	g, cutter := newCutEnv(t)
	subs := []application.AcceptedSubmission{g.accepted(g.version, "careful-cut"), g.accepted(g.version, "")}

	cutter.explicit.Store(true)
	cutter.arm(false)
	priors, errs, err := postgres.CommitCarefully(g.subs, g.ctx, subs)
	wasCut(t, cutter)
	if err != nil {
		t.Fatalf("a transaction cut after its COMMIT landed was answered %v; want committed", err)
	}
	wantAnswers(t, "careful", priors, errs, []string{"", ""})
	for _, s := range subs {
		if !g.committed(t, s) {
			t.Fatalf("submission %s answered committed is not stored", s.Accepted.SubmissionID)
		}
	}
}

func TestCommitTerminatedBeforeItLandedIsRefusedAndRetriedOnce(t *testing.T) {
	g, _ := newCutEnv(t)
	// Every commit of a payload sleeps, and is terminated while it does.
	if _, err := g.pool.Exec(g.ctx, `
		CREATE FUNCTION sleep_at_commit() RETURNS trigger LANGUAGE plpgsql AS
			$$ BEGIN PERFORM pg_sleep(60); RETURN NULL; END $$;
		CREATE CONSTRAINT TRIGGER sleep_at_commit AFTER INSERT ON submission_payloads
			DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION sleep_at_commit()`); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	terminated := make(chan int)
	go func() {
		n := 0
		defer func() { terminated <- n }()
		for {
			var killed int
			_ = g.pool.QueryRow(g.ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
				WHERE datname = current_database() AND wait_event = 'PgSleep'`).Scan(&killed)
			n += killed
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	s := g.accepted(g.version, "terminated-at-commit")
	_, err := g.subs.Accept(g.ctx, s)
	close(stop)
	if n := <-terminated; n == 0 {
		t.Fatal("no commit was terminated")
	}
	var interrupted *postgres.CommitInterruptedError
	if !errors.As(err, &interrupted) || interrupted.Unknown || !errors.Is(err, application.ErrUnavailable) {
		t.Fatalf("a commit terminated before it landed was answered %v; want an interruption known not to have landed", err)
	}
	if g.committed(t, s) {
		t.Fatal("the refused submission is stored")
	}

	if _, err := g.pool.Exec(g.ctx, `DROP TRIGGER sleep_at_commit ON submission_payloads`); err != nil {
		t.Fatal(err)
	}
	retry := g.accepted(g.version, "terminated-at-commit")
	acc, err := g.subs.Accept(g.ctx, retry)
	if err != nil || acc.Prior != nil {
		t.Fatalf("the retry with the same Idempotency-Key was answered %v, prior %v; want committed", err, acc.Prior)
	}
	if !g.committed(t, retry) {
		t.Fatal("the retry is not stored")
	}
}

func TestCommitCutWhileTheDatabaseStaysAwayIsUnavailable(t *testing.T) {
	g, cutter := newCutEnv(t)
	postgres.SetOutcomeBound(g.subs, 200*time.Millisecond)
	s := g.accepted(g.version, "cut-and-away")

	cutter.arm(true)
	_, err := g.subs.Accept(g.ctx, s)
	wasCut(t, cutter)
	var interrupted *postgres.CommitInterruptedError
	if !errors.As(err, &interrupted) || !interrupted.Unknown || !errors.Is(err, application.ErrUnavailable) {
		t.Fatalf("a commit whose database stayed away was answered %v; want its outcome unknown, unavailable", err)
	}

	cutter.heal()
	if !g.committed(t, s) {
		t.Fatal("the cut commit did not land; the test cut too early")
	}
	acc, err := g.subs.Accept(g.ctx, g.accepted(g.version, "cut-and-away"))
	if err != nil || acc.Prior == nil || acc.Prior.Response.RequestID != s.Response.Response.RequestID {
		t.Fatalf("the retry with the same Idempotency-Key was answered %v, prior %+v; want the first answer", err, acc.Prior)
	}
}

func TestCommitOnAConnectionTheServerDroppedIsCommittedOnce(t *testing.T) {
	g, _ := newCutEnv(t)
	g.accept(t, g.accepted(g.version, "")) // leaves an idle connection in the store's pool
	// The server restarting looks the same to the pool: its idle
	// connections are gone, and the first use of one fails.
	if _, err := g.pool.Exec(g.ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE datname = current_database() AND pid <> pg_backend_pid()`); err != nil {
		t.Fatal(err)
	}
	s := g.accepted(g.version, "")
	if acc, err := g.subs.Accept(g.ctx, s); err != nil || acc.Prior != nil {
		t.Fatalf("a submission after the server dropped the pool's connections was answered %v, prior %v; want committed", err, acc.Prior)
	}
	if !g.committed(t, s) {
		t.Fatal("the submission answered committed is not stored")
	}
}

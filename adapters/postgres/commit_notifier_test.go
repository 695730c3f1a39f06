package postgres_test

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/formd/formd/adapters/postgres"
)

// listen holds a connection on LISTEN formd_events until t ends.
func listen(t *testing.T, db testDB) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(db.ctx, db.url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	if _, err := conn.Exec(db.ctx, "LISTEN "+postgres.NotifyChannel); err != nil {
		t.Fatal(err)
	}
	return conn
}

// heard collects the payloads notified within wait.
func heard(t *testing.T, conn *pgx.Conn, wait time.Duration) []string {
	t.Helper()
	var got []string
	for {
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		n, err := conn.WaitForNotification(ctx)
		cancel()
		if err != nil {
			return got
		}
		got = append(got, n.Payload)
	}
}

// The hot paths' appends carry no NOTIFY: PostgreSQL serializes notifying
// commits on one lock held through each commit's WAL flush, which kept
// concurrent group commits from sharing a flush. The wake-up comes after
// the commit, from the notifier, and names each topic once.
func TestAppendBatchWakesListenersAfterTheCommitNotInIt(t *testing.T) {
	t.Parallel()
	db := newTestDB(t)
	notifier := postgres.NewCommitNotifier(db.pool, slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(notifier.Close)
	store := postgres.NewEventStore().WithCommitNotifier(notifier)
	conn := listen(t, db)

	formID, otherID := uuid.NewString(), uuid.NewString()
	streams := []postgres.StreamEvents{
		streamOf(postgres.StreamForm, formID, 0, testMetadata("req-1"), noted{Text: "one", N: 1}),
		streamOf(postgres.StreamForm, otherID, 0, testMetadata("req-1"), noted{Text: "two", N: 2}),
		streamOf(postgres.StreamAccount, uuid.NewString(), 0, testMetadata("req-1"), noted{Text: "three", N: 3}),
	}
	b, err := store.AppendBatch(time.Now(), nil, streams...)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range b.QueuedQueries {
		if strings.Contains(strings.ToLower(q.SQL), "notify") {
			t.Fatalf("the append notifies inside its transaction: %s", q.SQL)
		}
	}
	if err := db.pool.SendBatch(db.ctx, b).Close(); err != nil {
		t.Fatal(err)
	}
	if got := heard(t, conn, 300*time.Millisecond); len(got) != 0 {
		t.Fatalf("listeners heard %v before Committed", got)
	}
	store.Committed(streams...)
	got := heard(t, conn, 2*time.Second)
	if strings.Join(sorted(got), ",") != postgres.StreamAccount+","+postgres.StreamForm {
		t.Errorf("after the commit listeners heard %v, want each topic once: %s and %s", got, postgres.StreamAccount, postgres.StreamForm)
	}
	if events := load(t, db, store, formID); len(events) != 1 {
		t.Errorf("stored %d events of the form, want 1", len(events))
	}
}

// Without a notifier (tools, tests), an append keeps its NOTIFY in the
// transaction, so listeners still wake.
func TestAppendBatchWithoutANotifierNotifiesInTheTransaction(t *testing.T) {
	t.Parallel()
	db := newTestDB(t)
	store := postgres.NewEventStore()
	conn := listen(t, db)
	b, err := store.AppendBatch(time.Now(), nil,
		streamOf(postgres.StreamForm, uuid.NewString(), 0, testMetadata("req-1"), noted{Text: "one", N: 1}))
	if err != nil {
		t.Fatal(err)
	}
	if err := db.pool.SendBatch(db.ctx, b).Close(); err != nil {
		t.Fatal(err)
	}
	if got := heard(t, conn, 2*time.Second); len(got) != 1 || got[0] != postgres.StreamForm {
		t.Errorf("listeners heard %v, want [%s]", got, postgres.StreamForm)
	}
}

// Wake-ups asked for while a send is under way, or closing, are not lost.
func TestCommitNotifierSendsWhatIsPendingAtClose(t *testing.T) {
	t.Parallel()
	db := newTestDB(t)
	conn := listen(t, db)
	notifier := postgres.NewCommitNotifier(db.pool, slog.New(slog.NewTextHandler(io.Discard, nil)))
	for range 50 {
		notifier.Notify(postgres.NotifyChannel, "submission", "delivery")
	}
	notifier.Close()
	got := sorted(heard(t, conn, time.Second))
	if len(got) == 0 || got[len(got)-1] != "submission" || !strings.Contains(strings.Join(got, ","), "delivery") {
		t.Errorf("listeners heard %v, want both topics", got)
	}
	if len(got) > 2*50 {
		t.Errorf("heard %d notifications for 50 asks of 2 topics", len(got))
	}
}

func sorted(xs []string) []string { return slices.Sorted(slices.Values(xs)) }

// A process without delivery workers wakes the others after every group
// commit; one NOTIFY transaction each cost its intake 12% at 8 clients. The
// notifier sends the first wake-up at once and those asked for within its
// interval after a send together, with the next send (here, Close's).
func TestCommitNotifierSendsTheWakeUpsOfAnIntervalTogether(t *testing.T) {
	t.Parallel()
	db := newTestDB(t)
	conn := listen(t, db)
	notifier := postgres.NewCommitNotifierEvery(db.pool, slog.New(slog.NewTextHandler(io.Discard, nil)), time.Hour)
	notifier.Notify(postgres.NotifyChannel, "first")
	if got := heard(t, conn, 2*time.Second); !slices.Equal(got, []string{"first"}) {
		t.Fatalf("after a quiet spell listeners heard %v, want [first] at once", got)
	}
	notifier.Notify(postgres.NotifyChannel, "second")
	notifier.Notify(postgres.NotifyChannel, "third")
	if got := heard(t, conn, 300*time.Millisecond); len(got) != 0 {
		t.Fatalf("listeners heard %v within the interval after a send", got)
	}
	notifier.Close()
	if got := sorted(heard(t, conn, 2*time.Second)); !slices.Equal(got, []string{"second", "third"}) {
		t.Errorf("at Close listeners heard %v, want [second third]", got)
	}
}

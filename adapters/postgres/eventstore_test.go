package postgres_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	wsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/adapters/postgres/eventcodec"
	"github.com/formd/formd/adapters/postgres/pgtest"
	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/form"
)

// testTimeout bounds every test: a broken delivery fails the test instead of
// hanging it.
const testTimeout = 25 * time.Second

// noted is a small event defined only for these tests.
type noted struct {
	Text string `json:"text"`
	N    int    `json:"n"`
}

func (noted) EventType() string { return "test.noted.v1" }

// noted is stored as itself: the store's tests are about the store, not
// about the shapes eventcodec keeps.
func init() {
	eventcodec.Register(func(n noted) noted { return n }, func(n noted) noted { return n })
}

type event = interface{ EventType() string }

// testDB is one fresh, migrated database with an open pool.
type testDB struct {
	ctx  context.Context
	url  string
	pool *pgxpool.Pool
}

// newTestDB creates a fresh database for t and drops it when t ends.
func newTestDB(t *testing.T) testDB {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	t.Cleanup(cancel)
	url, drop, err := pgtest.NewDatabase(ctx)
	if err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(drop)
	return testDB{ctx: ctx, url: url, pool: connect(t, ctx, url)}
}

// connect opens another pool on url, as a separate process would, and closes
// it when t ends.
func connect(t *testing.T, ctx context.Context, url string) *pgxpool.Pool {
	t.Helper()
	pool, err := postgres.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// streamOf builds the StreamEvents of one stream.
func streamOf(streamType, id string, expected int, md application.Metadata, events ...event) postgres.StreamEvents {
	s := postgres.StreamEvents{StreamType: streamType, StreamID: id, ExpectedVersion: expected, Metadata: md}
	for _, e := range events {
		s.Events = append(s.Events, e)
	}
	return s
}

func testMetadata(requestID string) application.Metadata {
	return application.Metadata{
		Actor:         application.Actor{Type: application.ActorSession, ID: "sess-1234"},
		AccountID:     "0b6a3f8e-4b59-4c59-9a43-2a9d5a1c2e11",
		RequestID:     requestID,
		CausationID:   "cause-1",
		CorrelationID: "corr-1",
	}
}

// appendCommitted appends streams in one committed transaction.
func appendCommitted(t *testing.T, db testDB, store *postgres.EventStore, now time.Time, streams ...postgres.StreamEvents) {
	t.Helper()
	err := pgx.BeginFunc(db.ctx, db.pool, func(tx pgx.Tx) error {
		return store.Append(db.ctx, tx, now, streams...)
	})
	if err != nil {
		t.Fatalf("append: %v", err)
	}
}

func load(t *testing.T, db testDB, store *postgres.EventStore, id string) []postgres.StoredEvent {
	t.Helper()
	events, err := store.Load(db.ctx, db.pool, id)
	if err != nil {
		t.Fatalf("load %s: %v", id, err)
	}
	return events
}

// assertJSONEqual compares JSON documents by value: jsonb does not keep key
// order or spacing.
func assertJSONEqual(t *testing.T, what string, got []byte, want any) {
	t.Helper()
	wantJSON, err := json.Marshal(want)
	if e, ok := want.(eventcodec.Event); ok {
		stored, encErr := eventcodec.Encode(e)
		if encErr != nil {
			t.Fatal(encErr)
		}
		wantJSON = stored.Data // a domain event is stored in its codec's shape
	}
	if err != nil {
		t.Fatal(err)
	}
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: invalid JSON %s: %v", what, got, err)
	}
	if err := json.Unmarshal(wantJSON, &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s = %s, want %s", what, got, wantJSON)
	}
}

func TestEventStoreAppendLoadRoundTrip(t *testing.T) {
	t.Parallel()
	db := newTestDB(t)
	store := postgres.NewEventStore()
	now := time.Date(2025, 3, 14, 15, 9, 26, 535897000, time.UTC)

	formID, otherID := uuid.NewString(), uuid.NewString()
	first := []event{
		noted{Text: "one", N: 1},
		form.RecipientVerified{RecipientEmail: "owner@example.com", At: now},
		noted{Text: "three", N: 3},
	}
	second := []event{noted{Text: "four", N: 4}, noted{Text: "five ünïcödé \"quoted\"", N: 5}}
	md1, md2 := testMetadata("req-1"), testMetadata("req-2")
	md2.Actor = application.Actor{Type: application.ActorAgent, ID: "agent-9"}

	// One transaction appends to two streams; a later one continues the first.
	appendCommitted(t, db, store, now,
		streamOf(postgres.StreamForm, formID, 0, md1, first...),
		streamOf(postgres.StreamAccount, otherID, 0, md1, noted{Text: "other", N: 1}))
	later := now.Add(time.Hour)
	appendCommitted(t, db, store, later, streamOf(postgres.StreamForm, formID, 3, md2, second...))

	// A transaction with nothing to append is a no-op.
	appendCommitted(t, db, store, now, streamOf(postgres.StreamForm, formID, 5, md2))

	got := load(t, db, store, formID)
	want := append(append([]event{}, first...), second...)
	if len(got) != len(want) {
		t.Fatalf("loaded %d events, want %d: %+v", len(got), len(want), got)
	}
	for i, e := range got {
		md, at := md1, now
		if i >= len(first) {
			md, at = md2, later
		}
		if e.StreamType != postgres.StreamForm || e.StreamID != formID {
			t.Errorf("event %d stream = %s/%s, want %s/%s", i, e.StreamType, e.StreamID, postgres.StreamForm, formID)
		}
		if e.Version != i+1 {
			t.Errorf("event %d version = %d, want %d", i, e.Version, i+1)
		}
		if e.Type != want[i].EventType() {
			t.Errorf("event %d type = %q, want %q", i, e.Type, want[i].EventType())
		}
		assertJSONEqual(t, fmt.Sprintf("event %d data", i), e.Data, want[i])
		if e.Metadata != md {
			t.Errorf("event %d metadata = %+v, want %+v", i, e.Metadata, md)
		}
		if !e.RecordedAt.Equal(at) {
			t.Errorf("event %d recorded at %v, want %v", i, e.RecordedAt, at)
		}
	}

	// A stored domain event decodes back to the value appended.
	decoded, err := postgres.Decode(got[1])
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	if rv, ok := decoded.(form.RecipientVerified); !ok || rv.RecipientEmail != "owner@example.com" || !rv.At.Equal(now) {
		t.Errorf("decoded %#v, want the RecipientVerified appended", decoded)
	}

	// The other stream holds only its own event; Load inside a transaction works too.
	err = pgx.BeginFunc(db.ctx, db.pool, func(tx pgx.Tx) error {
		other, err := store.Load(db.ctx, tx, otherID)
		if err != nil {
			return err
		}
		if len(other) != 1 || other[0].StreamType != postgres.StreamAccount || other[0].Version != 1 || other[0].Metadata != md1 {
			t.Errorf("other stream = %+v, want its one event", other)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if unknown := load(t, db, store, uuid.NewString()); len(unknown) != 0 {
		t.Errorf("unknown stream loaded %d events", len(unknown))
	}

	// Each event was published to its stream type's topic in the same transaction.
	var published int
	if err := db.pool.QueryRow(db.ctx, `SELECT count(*) FROM watermill_form WHERE convert_from(payload, 'UTF8')::jsonb->>'streamId' = $1`, formID).Scan(&published); err != nil {
		t.Fatal(err)
	}
	if published != len(want) {
		t.Errorf("published %d messages to watermill_form, want %d", published, len(want))
	}
}

func TestEventStoreConcurrentAppendsOneWins(t *testing.T) {
	t.Parallel()
	db := newTestDB(t)
	store := postgres.NewEventStore()
	const rounds = 20

	for round := range rounds {
		id := uuid.NewString()
		expected := round % 3 // also race on streams that already have events
		for v := range expected {
			appendCommitted(t, db, store, time.Now(), streamOf(postgres.StreamForm, id, v, testMetadata("seed"), noted{Text: "seed", N: v + 1}))
		}

		var ready sync.WaitGroup
		start := make(chan struct{})
		errs := make([]error, 2)
		var done sync.WaitGroup
		for w := range 2 {
			ready.Add(1)
			done.Go(func() {
				tx, err := db.pool.Begin(db.ctx)
				ready.Done()
				if err != nil {
					errs[w] = err
					return
				}
				defer tx.Rollback(context.Background()) //nolint:errcheck // no-op after commit
				<-start
				err = store.Append(db.ctx, tx, time.Now(), streamOf(postgres.StreamForm, id, expected, testMetadata(fmt.Sprint("writer-", w)),
					noted{Text: fmt.Sprint("writer-", w), N: w}))
				if err == nil {
					err = tx.Commit(db.ctx)
				}
				errs[w] = err
			})
		}
		ready.Wait() // both transactions are open
		close(start)
		done.Wait()

		winner := -1
		for w, err := range errs {
			switch {
			case err == nil:
				if winner != -1 {
					t.Fatalf("round %d: both appends at version %d committed", round, expected)
				}
				winner = w
			case !errors.Is(err, domain.ErrConcurrency):
				t.Fatalf("round %d: writer %d failed with %v, want domain.ErrConcurrency", round, w, err)
			}
		}
		if winner == -1 {
			t.Fatalf("round %d: no append committed: %v", round, errs)
		}

		events := load(t, db, store, id)
		if len(events) != expected+1 {
			t.Fatalf("round %d: stream has %d events, want %d", round, len(events), expected+1)
		}
		last := events[expected]
		var data noted
		if err := json.Unmarshal(last.Data, &data); err != nil {
			t.Fatal(err)
		}
		if last.Version != expected+1 || data.N != winner || last.Metadata.RequestID != fmt.Sprint("writer-", winner) {
			t.Fatalf("round %d: last event = %+v, want writer %d's at version %d", round, last, winner, expected+1)
		}
		var published int
		if err := db.pool.QueryRow(db.ctx, `SELECT count(*) FROM watermill_form WHERE convert_from(payload, 'UTF8')::jsonb->>'streamId' = $1`, id).Scan(&published); err != nil {
			t.Fatal(err)
		}
		if published != expected+1 {
			t.Fatalf("round %d: %d messages published for the stream, want %d", round, published, expected+1)
		}
	}
}

// receive waits for the next message on ch or fails after timeout.
func receive(t *testing.T, ch <-chan *messageEvent, timeout time.Duration) *messageEvent {
	t.Helper()
	select {
	case m, ok := <-ch:
		if !ok {
			t.Fatal("subscription closed")
		}
		return m
	case <-time.After(timeout):
		t.Fatalf("no message within %v", timeout)
		return nil
	}
}

// messageEvent is a delivered message decoded as a StoredEvent.
type messageEvent struct {
	postgres.StoredEvent
	instance string
	uuid     string
}

// consume subscribes sub to topic and forwards every message, decoded and
// acked, to the returned channel. The subscriber is closed when t ends.
func consume(t *testing.T, ctx context.Context, sub *wsql.Subscriber, topic, instance string, record func(*messageEvent)) {
	t.Helper()
	msgs, err := sub.Subscribe(ctx, topic)
	if err != nil {
		t.Fatalf("subscribe %s: %v", instance, err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for msg := range msgs {
			var e postgres.StoredEvent
			if err := json.Unmarshal(msg.Payload, &e); err != nil {
				t.Errorf("%s: payload is not a StoredEvent: %v: %s", instance, err, msg.Payload)
			}
			// The message refers to its event: its data and metadata are
			// read from the store in the message's transaction.
			e, err := postgres.ResolveMessage(msg.Context(), e)
			if err != nil {
				t.Errorf("%s: reading the event of %s: %v", instance, msg.Payload, err)
			}
			// Recorded before the ack: the next message of the group is only
			// delivered after it, so the record order is the delivery order.
			record(&messageEvent{StoredEvent: e, instance: instance, uuid: msg.UUID})
			msg.Ack()
		}
	}()
	t.Cleanup(func() {
		if err := sub.Close(); err != nil {
			t.Errorf("close %s: %v", instance, err)
		}
		<-done
	})
}

// testPoll is how often the tests' subscribers look for messages: the event
// store is tested with watermill-sql's own subscriber, so no other adapter
// (the NOTIFY wake-ups of watermillpg) is needed to keep the tests quick.
const testPoll = 50 * time.Millisecond

// newSubscriber subscribes one consumer group to the tables the event store
// publishes into.
func newSubscriber(t *testing.T, pool *pgxpool.Pool, group string) *wsql.Subscriber {
	t.Helper()
	ack := 30 * time.Second
	sub, err := wsql.NewSubscriber(wsql.BeginnerFromPgx(pool), wsql.SubscriberConfig{
		ConsumerGroup: group, AckDeadline: &ack, SchemaAdapter: postgres.Schema, OffsetsAdapter: postgres.Offsets,
		PollInterval: testPoll, ResendInterval: time.Second,
	}, watermill.NopLogger{})
	if err != nil {
		t.Fatalf("new subscriber: %v", err)
	}
	return sub
}

func TestEventStoreRollbackPublishesNothing(t *testing.T) {
	t.Parallel()
	db := newTestDB(t)
	store := postgres.NewEventStore()
	id := uuid.NewString()

	// A plain LISTEN connection shows that NOTIFY, too, follows the transaction.
	waitNotification := notifications(t, db)

	tx, err := db.pool.Begin(db.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Append(db.ctx, tx, time.Now(), streamOf(postgres.StreamForm, id, 0, testMetadata("rolled-back"), noted{Text: "rolled back", N: 1})); err != nil {
		t.Fatalf("append: %v", err)
	}
	if err := tx.Rollback(db.ctx); err != nil {
		t.Fatal(err)
	}

	if events := load(t, db, store, id); len(events) != 0 {
		t.Fatalf("rolled-back stream has events: %+v", events)
	}
	var forStream, total int
	if err := db.pool.QueryRow(db.ctx, `
		SELECT count(*) FILTER (WHERE convert_from(payload, 'UTF8')::jsonb->>'streamId' = $1), count(*) FROM watermill_form`, id).Scan(&forStream, &total); err != nil {
		t.Fatal(err)
	}
	if forStream != 0 || total != 0 {
		t.Fatalf("watermill_form has %d rows for the rolled-back stream, %d in all; want none", forStream, total)
	}
	if n, err := waitNotification(300 * time.Millisecond); err == nil {
		t.Fatalf("rolled-back append notified %q", n.Payload)
	} else if !pgconn.Timeout(err) {
		t.Fatalf("wait for notification: %v", err)
	}

	// A subscriber started afterwards sees only what a later transaction commits.
	received := make(chan *messageEvent, 10)
	consume(t, db.ctx, newSubscriber(t, db.pool, "rollback-test"), postgres.StreamForm, "sub",
		func(m *messageEvent) { received <- m })

	appendCommitted(t, db, store, time.Now(), streamOf(postgres.StreamForm, id, 0, testMetadata("committed"), noted{Text: "committed", N: 2}))
	n, err := waitNotification(10 * time.Second)
	if err != nil {
		t.Fatalf("committed append did not notify: %v", err)
	}
	if n.Channel != postgres.NotifyChannel || n.Payload != postgres.StreamForm {
		t.Errorf("notification = %s %q, want %s %q", n.Channel, n.Payload, postgres.NotifyChannel, postgres.StreamForm)
	}

	m := receive(t, received, 20*time.Second)
	var data noted
	if err := json.Unmarshal(m.Data, &data); err != nil {
		t.Fatal(err)
	}
	if m.StreamID != id || m.Version != 1 || data.Text != "committed" || m.Metadata.RequestID != "committed" {
		t.Fatalf("received %+v (data %s), want the committed event", m.StoredEvent, m.Data)
	}
	select {
	case m := <-received:
		t.Fatalf("received a second message: %+v (data %s)", m.StoredEvent, m.Data)
	case <-time.After(4 * testPoll):
	}
}

func TestEventStoreDeliversOnceInOrderPerConsumerGroup(t *testing.T) {
	t.Parallel()
	db := newTestDB(t)
	store := postgres.NewEventStore()
	const (
		total   = 50
		perTx   = 5
		topic   = postgres.StreamForm
		groupA  = "group-a"
		groupB  = "group-b"
		settled = 4 * testPoll
	)
	id := uuid.NewString()

	var mu sync.Mutex
	got := map[string][]*messageEvent{}
	record := func(group string) func(*messageEvent) {
		return func(m *messageEvent) {
			mu.Lock()
			got[group] = append(got[group], m)
			mu.Unlock()
		}
	}
	counts := func() (a, b int) {
		mu.Lock()
		defer mu.Unlock()
		return len(got[groupA]), len(got[groupB])
	}
	appendBatch := func(from int) {
		var events []event
		for v := from; v < from+perTx; v++ {
			events = append(events, noted{Text: fmt.Sprint("event-", v+1), N: v + 1})
		}
		appendCommitted(t, db, store, time.Now(), streamOf(topic, id, from, testMetadata(fmt.Sprint("batch-", from/perTx)), events...))
	}

	// Some events wait in the table before anyone subscribes.
	for v := 0; v < total/2; v += perTx {
		appendBatch(v)
	}

	// Process 1 runs group A and group B; process 2, with its own pool, runs
	// a competing instance of group A.
	pool2 := connect(t, db.ctx, db.url)
	consume(t, db.ctx, newSubscriber(t, db.pool, groupA), topic, "a1", record(groupA))
	consume(t, db.ctx, newSubscriber(t, pool2, groupA), topic, "a2", record(groupA))
	consume(t, db.ctx, newSubscriber(t, db.pool, groupB), topic, "b", record(groupB))

	// The rest are committed while the subscribers run.
	var lastAppend time.Time
	for v := total / 2; v < total; v += perTx {
		time.Sleep(20 * time.Millisecond)
		appendBatch(v)
		lastAppend = time.Now()
	}

	deadline := time.After(20 * time.Second)
	for a, b := counts(); a < total || b < total; a, b = counts() {
		select {
		case <-deadline:
			t.Fatalf("after 20s group A received %d and group B %d of %d events", a, b, total)
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Logf("all events delivered to both groups %v after the last append committed", time.Since(lastAppend))
	time.Sleep(settled) // let any duplicate show up

	mu.Lock()
	defer mu.Unlock()
	for _, group := range []string{groupA, groupB} {
		msgs := got[group]
		if len(msgs) != total {
			t.Errorf("group %s received %d messages, want %d", group, len(msgs), total)
		}
		perInstance := map[string]int{}
		seenUUIDs := map[string]bool{}
		for i, m := range msgs {
			perInstance[m.instance]++
			if seenUUIDs[m.uuid] {
				t.Errorf("group %s: message %s delivered twice", group, m.uuid)
			}
			seenUUIDs[m.uuid] = true
			var data noted
			if err := json.Unmarshal(m.Data, &data); err != nil {
				t.Fatal(err)
			}
			if m.StreamID != id || m.StreamType != topic || m.Version != i+1 || data.N != i+1 || m.Type != (noted{}).EventType() {
				t.Errorf("group %s: message %d (from %s) = %s v%d %s %s, want %s v%d", group, i, m.instance,
					m.StreamID, m.Version, m.Type, m.Data, id, i+1)
			}
		}
		t.Logf("group %s deliveries per instance: %v", group, perInstance)
	}
}

func TestEventsAreAppendOnly(t *testing.T) {
	t.Parallel()
	db := newTestDB(t)
	store := postgres.NewEventStore()
	id := uuid.NewString()
	appendCommitted(t, db, store, time.Now(), streamOf(postgres.StreamForm, id, 0, testMetadata("r"), noted{Text: "keep", N: 1}, noted{Text: "me", N: 2}))

	for _, stmt := range []string{
		`UPDATE events SET data = '{"text":"changed"}' WHERE stream_id = $1`,
		`UPDATE events SET version = version + 10 WHERE stream_id = $1`,
		`DELETE FROM events WHERE stream_id = $1`,
		`DELETE FROM events WHERE stream_id = $1 AND version = 2`,
	} {
		_, err := db.pool.Exec(db.ctx, stmt, id)
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "P0001" || pgErr.Message != "events are append-only" {
			t.Errorf("%s: err = %v, want the append-only exception", stmt, err)
		}
	}

	events := load(t, db, store, id)
	if len(events) != 2 || events[0].Version != 1 || events[1].Version != 2 {
		t.Fatalf("events after refused changes = %+v, want both untouched", events)
	}
	assertJSONEqual(t, "first event data", events[0].Data, noted{Text: "keep", N: 1})
}

// TestEventOrderFollowsStreamVersion reproduces a known ordering bug; set
// FORMD_TEST_KNOWN_BUGS=1 to run it.
//
// watermill-sql delivers a topic in transaction-id order, and a transaction
// takes its id at its first write. Under READ COMMITTED a transaction that
// wrote something first can then read, and extend, a stream version committed
// by a transaction with a larger id: its later version is delivered first.
// TestEventOrderFollowsStreamVersion is the regression test for delivery out
// of version order: Watermill orders a topic by transaction id, so a unit of
// work that wrote first (smaller id) must not append after a newer commit.
// The Transactor runs at REPEATABLE READ, where that late append fails with
// domain.ErrConcurrency (and is retried) instead of being published early.
func TestEventOrderFollowsStreamVersion(t *testing.T) {
	t.Parallel()
	db := newTestDB(t)
	store := postgres.NewEventStore()
	formID, verificationID := uuid.NewString(), uuid.NewString()
	now := time.Now()

	// B writes first (like a unit of work saving a verification before it
	// loads the form), so it holds the smaller transaction id.
	txB, err := db.pool.BeginTx(db.ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead})
	if err != nil {
		t.Fatal(err)
	}
	defer txB.Rollback(context.Background()) //nolint:errcheck
	if err := store.Append(db.ctx, txB, now, streamOf(postgres.StreamVerification, verificationID, 0, testMetadata("b"), noted{Text: "b", N: 1})); err != nil {
		t.Fatal(err)
	}
	// A creates the form and commits.
	appendCommitted(t, db, store, now, streamOf(postgres.StreamForm, formID, 0, testMetadata("a"), noted{Text: "v1", N: 1}))
	// B's snapshot predates A's commit: it sees no form, and its append at
	// version 1 loses the race instead of landing behind A's in the topic.
	events, err := store.Load(db.ctx, txB, formID)
	if err != nil || len(events) != 0 {
		t.Fatalf("load in B: %v %+v", err, events)
	}
	err = store.Append(db.ctx, txB, now, streamOf(postgres.StreamForm, formID, 0, testMetadata("b"), noted{Text: "late", N: 2}))
	if !errors.Is(err, domain.ErrConcurrency) {
		t.Fatalf("late append: got %v, want ErrConcurrency", err)
	}
	_ = txB.Rollback(db.ctx)
	// The retried command sees version 1 and appends version 2 after it.
	appendCommitted(t, db, store, now, streamOf(postgres.StreamForm, formID, 1, testMetadata("b"), noted{Text: "v2", N: 2}))

	received := make(chan *messageEvent, 10)
	consume(t, db.ctx, newSubscriber(t, db.pool, "order"), postgres.StreamForm, "sub",
		func(m *messageEvent) { received <- m })
	for want := 1; want <= 2; want++ {
		if m := receive(t, received, 20*time.Second); m.Version != want {
			t.Errorf("message %d has version %d, want %d", want, m.Version, want)
		}
	}
}

// retitled is a test event whose stored shape is at version 2: version 1
// called the field "title".
type retitled struct {
	Name string `json:"name"`
}

func (retitled) EventType() string { return "test.retitled.v1" }

func init() {
	eventcodec.Register(func(r retitled) retitled { return r }, func(r retitled) retitled { return r },
		func(v1 json.RawMessage) (json.RawMessage, error) {
			var old struct {
				Title string `json:"title"`
			}
			if err := json.Unmarshal(v1, &old); err != nil {
				return nil, err
			}
			return json.Marshal(retitled{Name: old.Title})
		})
}

func TestEventStoreWritesSchemaVersionAndUpcastsOldRows(t *testing.T) {
	t.Parallel()
	db := newTestDB(t)
	store := postgres.NewEventStore()
	id := uuid.NewString()
	// A row written by an older build, in the version-1 shape.
	if _, err := db.pool.Exec(db.ctx, `INSERT INTO events (stream_type, stream_id, version, event_type, schema_version, data, metadata, recorded_at)
		VALUES ('form', $1, 1, 'test.retitled.v1', 1, '{"title":"old"}', '{}', now())`, id); err != nil {
		t.Fatal(err)
	}
	appendCommitted(t, db, store, time.Now(), streamOf(postgres.StreamForm, id, 1, testMetadata("new"), retitled{Name: "new"}))

	var versions []int32
	if err := db.pool.QueryRow(db.ctx, `SELECT array_agg(schema_version ORDER BY version) FROM events WHERE stream_id = $1`, id).Scan(&versions); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(versions, []int32{1, 2}) {
		t.Fatalf("schema_version column = %v, want [1 2]", versions)
	}
	got := load(t, db, store, id)
	for i, want := range []retitled{{Name: "old"}, {Name: "new"}} {
		if got[i].SchemaVersion != int(versions[i]) {
			t.Errorf("event %d loaded with schema version %d, want %d", i, got[i].SchemaVersion, versions[i])
		}
		e, err := postgres.Decode(got[i])
		if err != nil || e != want {
			t.Errorf("event %d decoded to %#v, %v; want %#v", i, e, err, want)
		}
	}
}

// A store told which topics are read wakes only their subscribers: a commit
// on another topic sends no NOTIFY (the submission topic's, sent by every
// group commit, was 6% of formd's CPU), and its message is stored all the
// same.
func TestEventStoreWakesOnlyTheTopicsItIsToldAreRead(t *testing.T) {
	t.Parallel()
	db := newTestDB(t)
	store := postgres.NewEventStore().WakingOnly(postgres.StreamAccount)
	waitNotification := notifications(t, db)

	formID := uuid.NewString()
	appendCommitted(t, db, store, time.Now(), streamOf(postgres.StreamForm, formID, 0, testMetadata("unread"), noted{Text: "unread", N: 1}))
	if n, err := waitNotification(300 * time.Millisecond); err == nil {
		t.Fatalf("a commit on a topic no one reads notified %q", n.Payload)
	} else if !pgconn.Timeout(err) {
		t.Fatalf("wait for notification: %v", err)
	}
	var messages int
	if err := db.pool.QueryRow(db.ctx, `SELECT count(*) FROM watermill_form`).Scan(&messages); err != nil || messages != 1 {
		t.Fatalf("%d messages on the unread topic (%v); want its one message stored", messages, err)
	}

	appendCommitted(t, db, store, time.Now(), streamOf(postgres.StreamAccount, uuid.NewString(), 0, testMetadata("read"), noted{Text: "read", N: 1}))
	n, err := waitNotification(10 * time.Second)
	if err != nil {
		t.Fatalf("a commit on a read topic did not notify: %v", err)
	}
	if n.Payload != postgres.StreamAccount {
		t.Errorf("notified %q, want %q", n.Payload, postgres.StreamAccount)
	}
}

// A delivery's outcomes go on their own topic, which no consumer group
// reads: the delivery topic's group, which queues deliveries, is woken and
// reads only for delivery.queued, not once per delivery made.
func TestADeliverysOutcomesArePublishedApartFromItsQueuing(t *testing.T) {
	t.Parallel()
	db := newTestDB(t)
	store := postgres.NewEventStore().WakingOnly(application.TopicDelivery)
	waitNotification := notifications(t, db)
	count := func(table string) int {
		t.Helper()
		var n int
		if err := db.pool.QueryRow(db.ctx, `SELECT count(*) FROM `+table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	appendCommitted(t, db, store, time.Now(), streamOf(postgres.StreamDelivery, uuid.NewString(), 0, testMetadata("outcome"), noted{Text: "sent", N: 1}))
	if n, err := waitNotification(300 * time.Millisecond); err == nil {
		t.Fatalf("an outcome woke the delivery topic's readers: %q", n.Payload)
	} else if !pgconn.Timeout(err) {
		t.Fatalf("wait for notification: %v", err)
	}
	if outcomes, queued := count("watermill_delivery_outcome"), count("watermill_delivery"); outcomes != 1 || queued != 0 {
		t.Fatalf("%d messages on delivery_outcome and %d on delivery; want the outcome on its own topic", outcomes, queued)
	}

	id := uuid.NewString()
	appendCommitted(t, db, store, time.Now(), streamOf(postgres.StreamDelivery, id, 0, testMetadata("queued"),
		delivery.Queued{DeliveryID: id, SubmissionID: uuid.NewString(), FormID: uuid.NewString(), Kind: delivery.KindEmail, At: time.Now()}))
	n, err := waitNotification(10 * time.Second)
	if err != nil || n.Payload != application.TopicDelivery {
		t.Fatalf("queuing a delivery notified %v, %v; want %q", n, err, application.TopicDelivery)
	}
	if queued := count("watermill_delivery"); queued != 1 {
		t.Fatalf("%d messages on delivery, want the queued one", queued)
	}
}

// notifications listens on the event store's channel (listen) and returns
// a wait for the next notification.
func notifications(t *testing.T, db testDB) func(timeout time.Duration) (*pgconn.Notification, error) {
	t.Helper()
	listener := listen(t, db)
	return func(timeout time.Duration) (*pgconn.Notification, error) {
		ctx, cancel := context.WithTimeout(db.ctx, timeout)
		defer cancel()
		return listener.WaitForNotification(ctx)
	}
}

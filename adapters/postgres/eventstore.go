package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	wsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/formd/formd/adapters/postgres/eventcodec"
	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
)

// NotifyChannel is the LISTEN/NOTIFY channel on which a committed append names
// its topic, so subscribers in every process wake at once instead of polling.
const NotifyChannel = "formd_events"

// StoredEvent is an event as stored; it is published as it is, so it is the
// application's event envelope.
type StoredEvent = application.EventMessage

// Event is any domain event: each knows its versioned type name, and
// eventcodec knows its stored shape.
type Event = eventcodec.Event

// Schema is the watermill-sql schema shared by publishers and subscribers:
// tables watermill_<topic>, created by migrations, with bytea payloads.
// Its consumer query is outboxSchema's.
var Schema = outboxSchema{wsql.DefaultPostgreSQLSchema{GeneratePayloadType: func(string) string { return "BYTEA" }}}

// Offsets is the watermill-sql offsets adapter: one row per consumer group.
var Offsets = wsql.DefaultPostgreSQLOffsetsAdapter{}

// EventStore appends events and publishes them to Watermill in the caller's
// transaction, so an event is published if and only if it is stored.
type EventStore struct {
	// notifier wakes listeners after the commits of AppendBatch's callers;
	// without one, their NOTIFY stays in the transaction.
	notifier *CommitNotifier
	// woken are the topics whose subscribers a commit wakes (WakingOnly);
	// nil wakes every topic.
	woken []string
}

// NewEventStore builds an event store.
func NewEventStore() *EventStore {
	return &EventStore{}
}

// WithCommitNotifier makes AppendBatch leave the NOTIFY out of the
// transaction: its callers wake listeners with Committed once they commit.
func (s *EventStore) WithCommitNotifier(n *CommitNotifier) *EventStore {
	s.notifier = n
	return s
}

// WakingOnly makes commits wake the subscribers of topics only: the topics
// that formd's own consumer groups read. Otherwise every group commit of
// submissions would send a NOTIFY for the submission topic, which no group
// reads: a statement and a round of wake-ups in every process per commit,
// for nothing. A subscriber of another topic (in another version
// of formd, say) still finds its messages on its poll
// (watermillpg.PollInterval).
func (s *EventStore) WakingOnly(topics ...string) *EventStore {
	s.woken = slices.Clone(topics)
	return s
}

// wakes names those of topics whose subscribers a commit wakes, in a slice
// of its own.
func (s *EventStore) wakes(topics []string) []string {
	if s.woken == nil {
		return slices.Clone(topics)
	}
	return slices.DeleteFunc(slices.Clone(topics), func(t string) bool { return !slices.Contains(s.woken, t) })
}

// Committed wakes the subscribers of the streams' topics in every process,
// after the commit of an append built by AppendBatch. Without a notifier
// the NOTIFY was part of the transaction, and there is nothing to do.
func (s *EventStore) Committed(streams ...StreamEvents) {
	if topics := s.wakes(topicsOf(streams)); len(topics) > 0 {
		s.wakeAfterCommit(topics...)
	}
}

// queueWake adds NOTIFY payloads to b when there is no notifier to send
// them after the commit (wakeAfterCommit).
func (s *EventStore) queueWake(b *pgx.Batch, payloads ...string) {
	if s.notifier == nil {
		queueNotify(b, payloads)
	}
}

// queueNotify adds a transactional NOTIFY of each payload to b: listeners
// hear it only once b's transaction commits.
func queueNotify(b *pgx.Batch, payloads []string) {
	b.Queue("SELECT pg_notify($1, t) FROM unnest($2::text[]) AS t", NotifyChannel, payloads)
}

// wakeAfterCommit sends NOTIFY payloads through the notifier, if there is one.
func (s *EventStore) wakeAfterCommit(payloads ...string) {
	if s.notifier != nil {
		s.notifier.Notify(NotifyChannel, payloads...)
	}
}

// StreamEvents are new events of one stream, appended after ExpectedVersion.
type StreamEvents struct {
	StreamType      string
	StreamID        string
	ExpectedVersion int
	Events          []Event
	Metadata        application.Metadata
}

// Append stores the events of every stream and publishes them, in tx. A stream
// that moved past its expected version fails the whole append with
// domain.ErrConcurrency.
func (s *EventStore) Append(ctx context.Context, tx pgx.Tx, now time.Time, streams ...StreamEvents) error {
	return s.AppendWith(ctx, tx, now, nil, streams...)
}

// AppendWith is Append plus the caller's own statements (projections written
// with the events), all sent in one round trip.
//
// Its NOTIFY is part of tx: the caller commits later, and a wake-up before
// that commit would find nothing. Hot paths that commit themselves use
// AppendBatch or AppendUnannounced, then Committed.
func (s *EventStore) AppendWith(ctx context.Context, tx pgx.Tx, now time.Time, extra *pgx.Batch, streams ...StreamEvents) error {
	b, err := s.appendBatch(now, extra, true, streams...)
	if err != nil || b == nil {
		return err
	}
	return sendAppend(ctx, tx, b)
}

// AppendUnannounced is AppendWith for a caller that commits tx itself and
// then calls Committed: with a notifier, tx holds no NOTIFY.
func (s *EventStore) AppendUnannounced(ctx context.Context, tx pgx.Tx, now time.Time, extra *pgx.Batch, streams ...StreamEvents) error {
	b, err := s.AppendBatch(now, extra, streams...)
	if err != nil || b == nil {
		return err
	}
	return sendAppend(ctx, tx, b)
}

// sendAppend sends an append's statements in tx (or on a connection whose
// transaction the statements open or close), reporting a stream that moved
// past its expected version as domain.ErrConcurrency.
func sendAppend(ctx context.Context, tx batchSender, b *pgx.Batch) error {
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return appendError(err)
	}
	return nil
}

// batchSender is what a transaction and a pooled connection offer for
// sending a pipeline.
type batchSender interface {
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// appendError reports a stream that moved past its expected version (its
// event's key is taken) as domain.ErrConcurrency.
func appendError(err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" && pgErr.ConstraintName == "events_pkey" {
		return domain.ErrConcurrency
	}
	return fmt.Errorf("append events: %w", err)
}

// AppendBatch builds the statements of an append — the caller's extra ones
// first, then events and Watermill messages — without sending them; nil
// when there is nothing to append. Sent as one pipeline outside an explicit
// transaction, they run in one implicit transaction. Once they commit, the
// caller calls Committed (with a notifier, the batch holds no NOTIFY).
func (s *EventStore) AppendBatch(now time.Time, extra *pgx.Batch, streams ...StreamEvents) (*pgx.Batch, error) {
	return s.appendBatch(now, extra, s.notifier == nil, streams...)
}

func (s *EventStore) appendBatch(now time.Time, extra *pgx.Batch, notifyInTx bool, streams ...StreamEvents) (*pgx.Batch, error) {
	var (
		types, ids, eventTypes []string
		versions, schemas      []int32
		datas, metas           [][]byte
		recorded               []time.Time
	)
	// Insert in stream-id order so two appends to the same streams lock them
	// in the same order and cannot deadlock.
	streams = slices.Clone(streams)
	slices.SortStableFunc(streams, func(a, b StreamEvents) int { return strings.Compare(a.StreamID, b.StreamID) })
	byTopic := map[string]message.Messages{}
	for _, st := range streams {
		meta, err := json.Marshal(st.Metadata)
		if err != nil {
			return nil, err
		}
		for i, e := range st.Events {
			stored, err := eventcodec.Encode(e)
			if err != nil {
				return nil, err
			}
			version := st.ExpectedVersion + i + 1
			types, ids, eventTypes = append(types, st.StreamType), append(ids, st.StreamID), append(eventTypes, stored.Type)
			versions, schemas = append(versions, int32(version)), append(schemas, int32(stored.SchemaVersion))
			datas, metas = append(datas, stored.Data), append(metas, meta)
			recorded = append(recorded, now)
			// The message refers to the event rather than repeat it: the data
			// and metadata were a quarter of the WAL a submission wrote, and
			// most messages are read by no consumer group.
			payload, err := json.Marshal(StoredEvent{
				StreamType: st.StreamType, StreamID: st.StreamID, Version: version, Type: stored.Type,
				SchemaVersion: stored.SchemaVersion, RecordedAt: now,
			})
			if err != nil {
				return nil, err
			}
			msg := message.NewMessage(uuid.NewString(), payload)
			msg.Metadata.Set("event_type", e.EventType())
			topic := application.TopicOf(st.StreamType, e.EventType())
			byTopic[topic] = append(byTopic[topic], msg)
		}
	}
	if len(types) == 0 {
		return nil, nil
	}
	b := &pgx.Batch{}
	if extra != nil {
		for _, q := range extra.QueuedQueries {
			b.Queue(q.SQL, q.Arguments...)
		}
	}
	// The arrays are unnested in the select list (zipped, as the arrays are
	// of one length), not as unnest(...) in FROM, whose function scan
	// stores each array's elements before reading them back, which makes
	// the statement slower.
	b.Queue(`
		INSERT INTO events (stream_type, stream_id, version, event_type, schema_version, data, metadata, recorded_at)
		SELECT unnest($1::text[]), unnest($2::uuid[]), unnest($3::int[]), unnest($4::text[]), unnest($5::int[]),
		       unnest($6::jsonb[]), unnest($7::jsonb[]), unnest($8::timestamptz[])`,
		types, ids, versions, eventTypes, schemas, datas, metas, recorded)
	// Publishing is watermill-sql's own insert (the query its Publisher runs),
	// in the same transaction: a message exists if and only if its event does.
	topics := topicsOf(streams)
	for _, topic := range topics {
		q, err := Schema.InsertQuery(wsql.InsertQueryParams{Topic: topic, Msgs: byTopic[topic]})
		if err != nil {
			return nil, fmt.Errorf("publish to %s: %w", topic, err)
		}
		b.Queue(q.Query, q.Args...)
	}
	if notifyInTx {
		if woken := s.wakes(topics); len(woken) > 0 {
			queueNotify(b, woken)
		}
	}
	return b, nil
}

// topicsOf names the topics the streams' events are published on, each
// once, in the order of their first event.
func topicsOf(streams []StreamEvents) []string {
	var topics []string
	for _, st := range streams {
		for _, e := range st.Events {
			if topic := application.TopicOf(st.StreamType, e.EventType()); !slices.Contains(topics, topic) {
				topics = append(topics, topic)
			}
		}
	}
	return topics
}

// Load reads a stream's events in order.
func (s *EventStore) Load(ctx context.Context, q querier, streamID string) ([]StoredEvent, error) {
	rows, err := q.Query(ctx, `
		SELECT stream_type, stream_id::text, version, event_type, schema_version, data, metadata, recorded_at
		FROM events WHERE stream_id = $1 ORDER BY version`, streamID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (StoredEvent, error) {
		var e StoredEvent
		var meta []byte
		err := row.Scan(&e.StreamType, &e.StreamID, &e.Version, &e.Type, &e.SchemaVersion, &e.Data, &meta, &e.RecordedAt)
		if err == nil {
			err = json.Unmarshal(meta, &e.Metadata)
		}
		return e, err
	})
}

// querier is what both a pool and a transaction offer for reads.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

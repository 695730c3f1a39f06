package postgres

import (
	"bytes"
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/formd/formd/adapters/postgres/eventchain"
	"github.com/formd/formd/application"
)

// EventChain implements application.EventChain over the events table: the
// events_chain trigger chains what writers append; ChainPending chains the
// rest (package eventchain has the encoding).
type EventChain struct {
	pool *pgxpool.Pool
}

// NewEventChain builds the chain over the pool.
func NewEventChain(pool *pgxpool.Pool) *EventChain { return &EventChain{pool: pool} }

// chainLock keys the transaction-scoped advisory lock one chain job holds,
// so processes do not chain the same events at once.
const chainLock = 0x666f726d64636861 // "formdcha"

// chainColumns are what an event's digest covers, then its position and
// stored hash.
const chainColumns = `stream_type, stream_id::text, version, event_type, schema_version, data, metadata, recorded_at,
	global_position, hash`

// chainRow is an event as the chain reads it.
type chainRow struct {
	event    eventchain.Event
	position int64
	hash     []byte
}

func scanChainRow(rows pgx.Rows) (chainRow, error) {
	var r chainRow
	e := &r.event
	err := rows.Scan(&e.StreamType, &e.StreamID, &e.Version, &e.Type, &e.SchemaVersion, &e.Data, &e.Metadata, &e.RecordedAt,
		&r.position, &r.hash)
	return r, err
}

// ChainPending implements application.EventChain: in stream order, each
// unchained event whose predecessor is chained (or that starts its stream)
// gets its hash; an event after a gap in its stream is left, for
// VerifyChains to report.
func (c *EventChain) ChainPending(ctx context.Context, limit int) (int, error) {
	chained := 0
	err := pgx.BeginFunc(ctx, c.pool, func(tx pgx.Tx) error {
		var locked bool
		if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock($1)`, int64(chainLock)).Scan(&locked); err != nil || !locked {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT `+chainColumns+`, (SELECT p.hash FROM events p WHERE p.stream_id = e.stream_id AND p.version = e.version - 1)
			FROM events e WHERE hash IS NULL ORDER BY stream_id, version LIMIT $1`, limit)
		if err != nil {
			return err
		}
		var ids []string
		var versions []int32
		var hashes [][]byte
		var stream string
		var prev []byte // the hash of the stream's event before, nil when unknown
		for rows.Next() {
			var r chainRow
			e := &r.event
			var before []byte
			if err := rows.Scan(&e.StreamType, &e.StreamID, &e.Version, &e.Type, &e.SchemaVersion, &e.Data, &e.Metadata, &e.RecordedAt,
				&r.position, &r.hash, &before); err != nil {
				rows.Close()
				return err
			}
			switch {
			case e.Version == 1:
				prev = []byte{}
			case e.StreamID != stream || prev == nil:
				prev = before // chained already, or nil: this stream waits
			}
			stream = e.StreamID
			if prev == nil {
				continue
			}
			digest, err := eventchain.Digest(*e)
			if err != nil {
				rows.Close()
				return err
			}
			prev = eventchain.Link(prev, digest)
			ids, versions, hashes = append(ids, e.StreamID), append(versions, int32(e.Version)), append(hashes, prev)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if len(ids) == 0 {
			return nil
		}
		tag, err := tx.Exec(ctx, `UPDATE events e SET hash = c.hash
			FROM (SELECT unnest($1::uuid[]) AS stream_id, unnest($2::int[]) AS version, unnest($3::bytea[]) AS hash) c
			WHERE e.stream_id = c.stream_id AND e.version = c.version AND e.hash IS NULL`, ids, versions, hashes)
		chained = int(tag.RowsAffected())
		return err
	})
	return chained, err
}

// VerifyChains implements application.EventChain, reading every event in
// stream order in one pass.
func (c *EventChain) VerifyChains(ctx context.Context, found func(application.ChainFinding)) (application.ChainTally, error) {
	var tally application.ChainTally
	rows, err := c.pool.Query(ctx, `SELECT `+chainColumns+` FROM events ORDER BY stream_id, version`)
	if err != nil {
		return tally, err
	}
	defer rows.Close()
	var v streamVerifier
	for rows.Next() {
		r, err := scanChainRow(rows)
		if err != nil {
			return tally, err
		}
		tally.Events++
		if r.event.StreamID != v.stream {
			tally.Unchained += v.waiting()
			tally.Streams++
			v = streamVerifier{stream: r.event.StreamID, streamType: r.event.StreamType, prev: []byte{}}
		}
		if err := v.check(r, found); err != nil {
			return tally, err
		}
	}
	tally.Unchained += v.waiting()
	return tally, rows.Err()
}

// streamVerifier follows one stream's chain, reporting its first finding.
type streamVerifier struct {
	stream, streamType string
	version            int
	prev               []byte
	// unchained counts the events since the last chained one; pending is
	// the first of them.
	unchained int
	pending   *chainRow
	failed    bool
}

func (v *streamVerifier) check(r chainRow, found func(application.ChainFinding)) error {
	if v.failed {
		return nil
	}
	e := r.event
	report := func(version int, position int64, eventType, problem string) {
		v.failed = true
		found(application.ChainFinding{StreamType: v.streamType, StreamID: v.stream, Version: version, Position: position,
			EventType: eventType, Problem: problem})
	}
	if e.Version != v.version+1 {
		report(v.version+1, 0, "", fmt.Sprintf("version %d is missing: the stream goes from version %d to %d (an event was deleted)",
			v.version+1, v.version, e.Version))
		return nil
	}
	v.version = e.Version
	if r.hash == nil {
		if v.pending == nil {
			v.pending = &r
		}
		v.unchained++
		return nil
	}
	if v.pending != nil {
		p := v.pending
		report(p.event.Version, p.position, p.event.Type, "it is not chained, but a later event of its stream is: its hash was removed")
		return nil
	}
	digest, err := eventchain.Digest(e)
	if err != nil {
		return err
	}
	want := eventchain.Link(v.prev, digest)
	if !bytes.Equal(want, r.hash) {
		report(e.Version, r.position, e.Type, "its hash does not match its content: its data, metadata, type, time or place in the stream was changed")
		return nil
	}
	v.prev = r.hash
	return nil
}

// waiting is how many events of a stream without a finding wait for the
// chain job.
func (v *streamVerifier) waiting() int {
	if v.failed {
		return 0
	}
	return v.unchained
}

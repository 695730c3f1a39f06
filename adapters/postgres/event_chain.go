package postgres

import (
	"bytes"
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/audit"
)

// EventChain implements application.EventChain over the events table: the
// events_chain trigger chains what writers append; ChainPending chains the
// rest (package domain/audit has the rule).
type EventChain struct {
	pool *pgxpool.Pool
}

// NewEventChain builds the chain over the pool.
func NewEventChain(pool *pgxpool.Pool) *EventChain { return &EventChain{pool: pool} }

// chainLock keys the transaction-scoped advisory lock one chain job holds,
// so processes do not chain the same events at once.
const chainLock = 0x666f726d64636861 // "formdcha"

// chainColumns are what the chain reads of an event e: who it is, its
// canonical encoding (event_canonical, the one definition of it) and its
// stored hash.
const chainColumns = `e.stream_type, e.stream_id::text, e.version, e.event_type, e.global_position, event_canonical(e), e.hash`

// chainRow is an event as the chain reads it.
type chainRow struct {
	streamType, streamID, eventType string
	version                         int
	position                        int64
	canonical, hash                 []byte
}

func scanChainRow(row pgx.Row, more ...any) (chainRow, error) {
	var r chainRow
	err := row.Scan(append([]any{&r.streamType, &r.streamID, &r.version, &r.eventType, &r.position, &r.canonical, &r.hash}, more...)...)
	return r, err
}

// ChainPending implements application.EventChain: in stream order, each
// unchained event whose predecessor is chained, or which has no predecessor
// stored (its stream's first stored event), gets its hash, as the
// events_chain trigger would have given it.
func (c *EventChain) ChainPending(ctx context.Context, limit int) (int, error) {
	chained := 0
	err := pgx.BeginFunc(ctx, c.pool, func(tx pgx.Tx) error {
		var locked bool
		if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock($1)`, int64(chainLock)).Scan(&locked); err != nil || !locked {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT `+chainColumns+`, p.hash, p.version IS NOT NULL
			FROM events e LEFT JOIN events p ON p.stream_id = e.stream_id AND p.version = e.version - 1
			WHERE e.hash IS NULL ORDER BY e.stream_id, e.version LIMIT $1`, limit)
		if err != nil {
			return err
		}
		var ids []string
		var versions []int32
		var hashes [][]byte
		var stream string
		var prev []byte // the hash of the stream's event before, nil when unknown
		for rows.Next() {
			var before []byte
			var hasPredecessor bool
			r, err := scanChainRow(rows, &before, &hasPredecessor)
			if err != nil {
				rows.Close()
				return err
			}
			switch {
			case !hasPredecessor:
				prev = []byte{} // the stream's first stored event (events_chain's rule)
			case r.streamID != stream || prev == nil:
				prev = before // chained already, or nil: this stream waits
			}
			stream = r.streamID
			if prev == nil {
				continue
			}
			prev = audit.Link(prev, r.canonical)
			ids, versions, hashes = append(ids, r.streamID), append(versions, int32(r.version)), append(hashes, prev)
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
	rows, err := c.pool.Query(ctx, `SELECT `+chainColumns+` FROM events e ORDER BY e.stream_id, e.version`)
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
		if r.streamID != v.stream {
			tally.Unchained += v.waiting()
			tally.Streams++
			// A stream's chain starts at its first stored event: a
			// delivery queued by its submission starts at version 2.
			v = streamVerifier{stream: r.streamID, streamType: r.streamType, prev: []byte{}, version: r.version - 1}
		}
		v.check(r, found)
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

func (v *streamVerifier) check(r chainRow, found func(application.ChainFinding)) {
	if v.failed {
		return
	}
	report := func(version int, position int64, eventType, problem string) {
		v.failed = true
		found(application.ChainFinding{StreamType: v.streamType, StreamID: v.stream, Version: version, Position: position,
			EventType: eventType, Problem: problem})
	}
	if r.version != v.version+1 {
		report(v.version+1, 0, "", fmt.Sprintf("version %d is missing: the stream goes from version %d to %d (an event was deleted)",
			v.version+1, v.version, r.version))
		return
	}
	v.version = r.version
	if r.hash == nil {
		if v.pending == nil {
			v.pending = &r
		}
		v.unchained++
		return
	}
	if p := v.pending; p != nil {
		report(p.version, p.position, p.eventType, "it is not chained, but a later event of its stream is: its hash was removed")
		return
	}
	if !bytes.Equal(audit.Link(v.prev, r.canonical), r.hash) {
		report(r.version, r.position, r.eventType, "its hash does not match its content: its data, metadata, type, time or place in the stream was changed")
		return
	}
	v.prev = r.hash
}

// waiting is how many events of a stream without a finding wait for the
// chain job.
func (v *streamVerifier) waiting() int {
	if v.failed {
		return 0
	}
	return v.unchained
}

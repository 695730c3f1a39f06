package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/transparency-dev/merkle/compact"
	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/audit"
)

// AuditTree implements application.AuditTree: the leaves in
// audit_leaves, every perfect subtree's hash in audit_tree_nodes, the
// signed checkpoints in audit_checkpoints (migrations/00105).
type AuditTree struct {
	pool *pgxpool.Pool
}

// NewAuditTree builds the tree over the pool.
func NewAuditTree(pool *pgxpool.Pool) *AuditTree { return &AuditTree{pool: pool} }

// treeLock keys the transaction-scoped advisory lock of the one process
// extending the tree.
const treeLock = 0x666f726d64747265 // "formdtre"

var (
	hasher  = rfc6962.DefaultHasher
	ranges  = &compact.RangeFactory{Hash: hasher.HashChildren}
	errSize = errors.New("audit tree: stored nodes do not cover the tree")
)

// treeLeaf is an event added to the tree.
type treeLeaf struct {
	position      int64
	streamID      string
	version       int32
	transactionID int64
	hash          []byte
}

// Extend implements application.AuditTree. Log order is (transaction id,
// global position) over the events whose transaction id is below the
// snapshot's xmin: every transaction that could still commit an event has
// a transaction id at or above it, so none can later sort before a leaf.
func (t *AuditTree) Extend(ctx context.Context, limit int, sign func(uint64, []byte) (string, error)) (application.Checkpoint, bool, error) {
	var cp application.Checkpoint
	var grown bool
	err := pgx.BeginFunc(ctx, t.pool, func(tx pgx.Tx) error {
		var locked bool
		if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock($1)`, int64(treeLock)).Scan(&locked); err != nil || !locked {
			return err
		}
		var size, lastXID, lastPosition int64
		err := tx.QueryRow(ctx, `SELECT tree_size, last_transaction_id, last_position FROM audit_checkpoints
			ORDER BY tree_size DESC LIMIT 1`).Scan(&size, &lastXID, &lastPosition)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		rebased, err := rebaseRestored(ctx, tx, lastXID)
		if err != nil {
			return err
		}
		if rebased {
			lastXID, lastPosition = 0, 0
		}
		leaves, err := nextLeaves(ctx, tx, lastXID, lastPosition, limit)
		if err != nil || len(leaves) == 0 {
			return err
		}
		rng, err := loadRange(ctx, tx, uint64(size))
		if err != nil {
			return err
		}
		var nodes nodeBatch
		for _, l := range leaves {
			if err := rng.Append(audit.LeafHash(l.hash), nodes.add); err != nil {
				return err
			}
		}
		root, err := rng.GetRootHash(nil)
		if err != nil {
			return err
		}
		signed, err := sign(rng.End(), root)
		if err != nil {
			return fmt.Errorf("sign the checkpoint: %w", err)
		}
		if err := storeLeaves(ctx, tx, uint64(size), leaves); err != nil {
			return err
		}
		if err := nodes.store(ctx, tx); err != nil {
			return err
		}
		last := leaves[len(leaves)-1]
		if _, err := tx.Exec(ctx, `INSERT INTO audit_checkpoints (tree_size, root, signed_note, last_transaction_id, last_position)
			VALUES ($1, $2, $3, $4, $5)`, int64(rng.End()), root, signed, last.transactionID, last.position); err != nil {
			return err
		}
		cp, grown = application.Checkpoint{Size: rng.End(), Root: root, Signed: signed}, true
		return nil
	})
	return cp, grown, err
}

// rebaseRestored sets to 0 the transaction ids a restore brought from
// another cluster: ids at or above this cluster's next one, which a row
// committed here cannot have. Those events then sort first, in position
// order, and the ones not in the tree yet are added. It reports whether the
// log's order must be read again from its start: after such a rebase, or
// when the last checkpoint's own transaction id came from the other
// cluster.
func rebaseRestored(ctx context.Context, tx pgx.Tx, lastXID int64) (bool, error) {
	tag, err := tx.Exec(ctx, `UPDATE events SET transaction_id = 0 WHERE transaction_id >= pg_snapshot_xmax(pg_current_snapshot())::text::bigint`)
	if err != nil || tag.RowsAffected() > 0 {
		return err == nil, err
	}
	var ahead bool
	err = tx.QueryRow(ctx, `SELECT $1 >= pg_snapshot_xmax(pg_current_snapshot())::text::bigint`, lastXID).Scan(&ahead)
	return ahead, err
}

// nextLeaves reads, in log order, up to limit events after the last leaf
// whose transactions have ended and which are not leaves yet, stopping
// before the first one the chain job has not chained.
func nextLeaves(ctx context.Context, tx pgx.Tx, lastXID, lastPosition int64, limit int) ([]treeLeaf, error) {
	// transaction_id >= $1 alone is what the BRIN index can use.
	rows, err := tx.Query(ctx, `SELECT e.global_position, e.stream_id::text, e.version, e.transaction_id, e.hash
		FROM events e
		WHERE e.transaction_id >= $1 AND (e.transaction_id, e.global_position) > ($1, $2)
		  AND e.transaction_id < pg_snapshot_xmin(pg_current_snapshot())::text::bigint
		  AND NOT EXISTS (SELECT 1 FROM audit_leaves l WHERE l.global_position = e.global_position)
		ORDER BY e.transaction_id, e.global_position LIMIT $3`, lastXID, lastPosition, limit)
	if err != nil {
		return nil, err
	}
	var out []treeLeaf
	for rows.Next() {
		var l treeLeaf
		if err := rows.Scan(&l.position, &l.streamID, &l.version, &l.transactionID, &l.hash); err != nil {
			rows.Close()
			return nil, err
		}
		if l.hash == nil {
			break // waits for the chain job, and so does everything after it
		}
		out = append(out, l)
	}
	rows.Close()
	return out, rows.Err()
}

// loadRange is the compact range of the tree's first size leaves, from the
// stored roots of its perfect subtrees.
func loadRange(ctx context.Context, q pgxQuerier, size uint64) (*compact.Range, error) {
	hashes, err := nodeHashes(ctx, q, compact.RangeNodes(0, size, nil))
	if err != nil {
		return nil, err
	}
	return ranges.NewRange(0, size, hashes)
}

// pgxQuerier is a pool or a transaction.
type pgxQuerier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// nodeHashes reads the hashes of the given nodes, in their order.
func nodeHashes(ctx context.Context, q pgxQuerier, ids []compact.NodeID) ([][]byte, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	levels, indexes := make([]int16, len(ids)), make([]int64, len(ids))
	for i, id := range ids {
		levels[i], indexes[i] = int16(id.Level), int64(id.Index)
	}
	rows, err := q.Query(ctx, `SELECT n.hash FROM unnest($1::smallint[], $2::bigint[]) WITH ORDINALITY AS w(level, node_index, i)
		LEFT JOIN audit_tree_nodes n ON n.level = w.level AND n.node_index = w.node_index ORDER BY w.i`, levels, indexes)
	if err != nil {
		return nil, err
	}
	hashes, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
	if err != nil {
		return nil, err
	}
	for _, h := range hashes {
		if h == nil {
			return nil, errSize
		}
	}
	return hashes, nil
}

// nodeBatch collects the perfect subtrees a growing range completes.
type nodeBatch struct {
	levels  []int16
	indexes []int64
	hashes  [][]byte
}

func (b *nodeBatch) add(id compact.NodeID, hash []byte) {
	b.levels, b.indexes, b.hashes = append(b.levels, int16(id.Level)), append(b.indexes, int64(id.Index)), append(b.hashes, hash)
}

func (b *nodeBatch) store(ctx context.Context, tx pgx.Tx) error {
	_, err := tx.Exec(ctx, `INSERT INTO audit_tree_nodes (level, node_index, hash)
		SELECT * FROM unnest($1::smallint[], $2::bigint[], $3::bytea[])`, b.levels, b.indexes, b.hashes)
	return err
}

// storeLeaves records the leaves from index first on.
func storeLeaves(ctx context.Context, tx pgx.Tx, first uint64, leaves []treeLeaf) error {
	indexes, positions := make([]int64, len(leaves)), make([]int64, len(leaves))
	streams, versions := make([]string, len(leaves)), make([]int32, len(leaves))
	for i, l := range leaves {
		indexes[i], positions[i], streams[i], versions[i] = int64(first)+int64(i), l.position, l.streamID, l.version
	}
	_, err := tx.Exec(ctx, `INSERT INTO audit_leaves (leaf_index, global_position, stream_id, version)
		SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::uuid[], $4::int[])`, indexes, positions, streams, versions)
	return err
}

// StreamEvidence implements application.AuditTree, in one snapshot.
func (t *AuditTree) StreamEvidence(ctx context.Context, streamID string) (application.AuditEvidence, error) {
	var ev application.AuditEvidence
	err := pgx.BeginTxFunc(ctx, t.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var size int64
		err := tx.QueryRow(ctx, `SELECT tree_size, root, signed_note FROM audit_checkpoints ORDER BY tree_size DESC LIMIT 1`).
			Scan(&size, &ev.Checkpoint.Root, &ev.Checkpoint.Signed)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		} else if err != nil {
			return err
		}
		ev.Checkpoint.Size = uint64(size)
		rows, err := tx.Query(ctx, `SELECT e.version, l.leaf_index, event_canonical(e), e.hash FROM events e
			JOIN audit_leaves l ON l.global_position = e.global_position
			WHERE e.stream_id = $1 AND l.leaf_index < $2 ORDER BY e.version`, streamID, size)
		if err != nil {
			return err
		}
		for rows.Next() {
			var e application.EvidenceEvent
			var index int64
			var version int
			if err := rows.Scan(&version, &index, &e.Canonical, &e.Hash); err != nil {
				rows.Close()
				return err
			}
			e.LeafIndex = uint64(index)
			if version != len(ev.Events)+1 {
				break // a later version's transaction ended first: the rest waits for the next checkpoint
			}
			ev.Events = append(ev.Events, e)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for i := range ev.Events {
			if ev.Events[i].Proof, err = inclusionProof(ctx, tx, ev.Events[i].LeafIndex, ev.Checkpoint.Size); err != nil {
				return err
			}
		}
		return nil
	})
	return ev, err
}

// inclusionProof is leaf index's RFC 6962 inclusion proof in the tree of
// size leaves.
func inclusionProof(ctx context.Context, q pgxQuerier, index, size uint64) ([][]byte, error) {
	nodes, err := proof.Inclusion(index, size)
	if err != nil {
		return nil, err
	}
	hashes, err := nodeHashes(ctx, q, nodes.IDs)
	if err != nil {
		return nil, err
	}
	return nodes.Rehash(hashes, hasher.HashChildren)
}

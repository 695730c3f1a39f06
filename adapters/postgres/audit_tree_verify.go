package postgres

import (
	"bytes"
	"context"
	"fmt"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/audit"
)

// storedCheckpoint is a checkpoint row, and what its signature says once
// opened.
type storedCheckpoint struct {
	size   uint64
	root   []byte
	signed string
}

// VerifyCheckpoints implements application.AuditTree: every checkpoint's
// signature, then the tree rebuilt from the events in leaf order, its root
// compared with each checkpoint's as it reaches its size.
func (t *AuditTree) VerifyCheckpoints(ctx context.Context, open func(string) (uint64, []byte, error), found func(application.ChainFinding)) (application.CheckpointTally, error) {
	var tally application.CheckpointTally
	checkpoints, err := t.checkpoints(ctx)
	if err != nil {
		return tally, err
	}
	for i, c := range checkpoints {
		size, root, err := open(c.signed)
		switch {
		case err != nil:
			found(application.ChainFinding{TreeSize: c.size, Problem: err.Error()})
		case size != c.size || !bytes.Equal(root, c.root):
			found(application.ChainFinding{TreeSize: c.size, Problem: fmt.Sprintf("its signed note says %d events, not the stored size or root", size)})
		default:
			checkpoints[i].root = root
		}
	}
	tally.Checkpoints = len(checkpoints)
	if len(checkpoints) > 0 {
		tally.Leaves = checkpoints[len(checkpoints)-1].size
	}
	return tally, t.rebuild(ctx, checkpoints, found)
}

func (t *AuditTree) checkpoints(ctx context.Context) ([]storedCheckpoint, error) {
	rows, err := t.pool.Query(ctx, `SELECT tree_size, root, signed_note FROM audit_checkpoints ORDER BY tree_size`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []storedCheckpoint
	for rows.Next() {
		var c storedCheckpoint
		var size int64
		if err := rows.Scan(&size, &c.root, &c.signed); err != nil {
			return nil, err
		}
		c.size = uint64(size)
		out = append(out, c)
	}
	return out, rows.Err()
}

// rebuild reads the leaves in order with the events they name and the
// leaf hashes stored when they were added, and grows the tree.
func (t *AuditTree) rebuild(ctx context.Context, checkpoints []storedCheckpoint, found func(application.ChainFinding)) error {
	rows, err := t.pool.Query(ctx, `SELECT l.leaf_index, l.global_position, l.stream_id::text, l.version,
			e.stream_type, e.event_type, e.stream_id::text, e.version, e.hash, n.hash
		FROM audit_leaves l
		LEFT JOIN events e ON e.global_position = l.global_position
		LEFT JOIN audit_tree_nodes n ON n.level = 0 AND n.node_index = l.leaf_index
		ORDER BY l.leaf_index`)
	if err != nil {
		return err
	}
	defer rows.Close()
	rng := ranges.NewEmptyRange(0)
	next := 0 // the next checkpoint to reach
	for rows.Next() {
		var index, position int64
		var leafStream string
		var leafVersion int32
		var streamType, eventType, streamID *string
		var version *int32
		var hash, stored []byte
		if err := rows.Scan(&index, &position, &leafStream, &leafVersion, &streamType, &eventType, &streamID, &version, &hash, &stored); err != nil {
			return err
		}
		if uint64(index) != rng.End() {
			found(application.ChainFinding{TreeSize: treeSizeAfter(checkpoints, rng.End()),
				Problem: fmt.Sprintf("leaf %d of the tree is missing: the record of which event it is was deleted", rng.End())})
			return rows.Err()
		}
		event := application.ChainFinding{StreamID: leafStream, Version: int(leafVersion), Position: position}
		leaf := stored
		switch {
		case streamID == nil:
			event.Problem = fmt.Sprintf("it is leaf %d of the checkpointed log but is no longer stored: it was deleted", index)
			found(event)
		case *streamID != leafStream || *version != leafVersion:
			event.StreamType, event.EventType = *streamType, *eventType
			event.Problem = fmt.Sprintf("log position %d holds %s version %d, not the event checkpointed as leaf %d", position, *streamID, *version, index)
			found(event)
		case !bytes.Equal(audit.LeafHash(hash), stored):
			event.StreamType, event.EventType = *streamType, *eventType
			event.Problem = fmt.Sprintf("its hash is not the one checkpointed as leaf %d: the event or its hash was changed", index)
			found(event) // the tree goes on with the leaf checkpointed, which the roots check
		}
		if leaf == nil {
			leaf = hasher.EmptyRoot() // neither the event nor its leaf is left: no root after it can match
		}
		if err := rng.Append(leaf, nil); err != nil {
			return err
		}
		for next < len(checkpoints) && checkpoints[next].size == rng.End() {
			if root, err := rng.GetRootHash(nil); err != nil {
				return err
			} else if !bytes.Equal(root, checkpoints[next].root) {
				found(application.ChainFinding{TreeSize: checkpoints[next].size,
					Problem: "its root does not match the tree of the stored events and leaves: the log was rewritten"})
			}
			next++
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if next < len(checkpoints) {
		found(application.ChainFinding{TreeSize: checkpoints[next].size,
			Problem: fmt.Sprintf("it covers %d events but the tree has %d leaves: leaves were deleted", checkpoints[next].size, rng.End())})
	}
	return nil
}

// treeSizeAfter is the size of the first checkpoint covering leaf index.
func treeSizeAfter(checkpoints []storedCheckpoint, index uint64) uint64 {
	for _, c := range checkpoints {
		if c.size > index {
			return c.size
		}
	}
	return 0
}

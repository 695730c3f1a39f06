package postgres_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/audit"
	"github.com/formd/formd/domain/form"
)

// testSign and testOpen stand in for the Ed25519 note signer (package
// auditlog has its own tests): a "signature" any test can check.
func testSign(size uint64, root []byte) (string, error) {
	return fmt.Sprintf("test\n%d\n%x\n", size, root), nil
}

func testOpen(signed string) (uint64, []byte, error) {
	var size uint64
	var root []byte
	if _, err := fmt.Sscanf(signed, "test\n%d\n%x\n", &size, &root); err != nil {
		return 0, nil, fmt.Errorf("it is not signed by the test key")
	}
	return size, root, nil
}

type treeEnv struct {
	chainEnv
	tree *postgres.AuditTree
}

func newTreeEnv(t *testing.T) treeEnv {
	t.Helper()
	c := newChainEnv(t)
	return treeEnv{chainEnv: c, tree: postgres.NewAuditTree(c.pool)}
}

// eraseOnce appends one event to the form's stream.
func (e treeEnv) eraseOnce(t *testing.T, tx application.Tx) error {
	f, err := tx.LoadForm(e.ctx, e.formID)
	if err != nil {
		return err
	}
	if err := f.RecordSubmissionsErased(1, form.ErasedByID, "s", "", time.Now()); err != nil {
		return err
	}
	return tx.SaveForm(e.ctx, f)
}

func (e treeEnv) extend(t *testing.T) (application.Checkpoint, bool) {
	t.Helper()
	cp, grown, err := e.tree.Extend(e.ctx, 1000, testSign)
	if err != nil {
		t.Fatal(err)
	}
	return cp, grown
}

// extendAll extends the tree until it covers every stored event. Snapshots
// are cluster-wide: a transaction of another test, in another database,
// holds back what a checkpoint may cover until it ends.
func (e treeEnv) extendAll(t *testing.T) application.Checkpoint {
	t.Helper()
	var events int64
	if err := e.pool.QueryRow(e.ctx, `SELECT count(*) FROM events`).Scan(&events); err != nil {
		t.Fatal(err)
	}
	var last application.Checkpoint
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if cp, grown := e.extend(t); grown {
			last = cp
		}
		var size int64
		if err := e.pool.QueryRow(e.ctx, `SELECT coalesce(max(tree_size), 0) FROM audit_checkpoints`).Scan(&size); err != nil {
			t.Fatal(err)
		}
		if size == events {
			return last
		}
		if time.Now().After(deadline) {
			t.Fatalf("the tree covers %d of %d events", size, events)
		}
	}
}

func (e treeEnv) verify(t *testing.T) []application.ChainFinding {
	t.Helper()
	var out []application.ChainFinding
	if _, err := e.tree.VerifyCheckpoints(e.ctx, testOpen, func(f application.ChainFinding) { out = append(out, f) }); err != nil {
		t.Fatal(err)
	}
	return out
}

// Every stored event becomes a leaf once, and the form's evidence proves
// each of its events is in the checkpoint.
func TestCheckpointsCoverEveryEventOnceWithProofsToTheirRoot(t *testing.T) {
	t.Parallel()
	e := newTreeEnv(t)
	first := e.extendAll(t)
	if _, grown := e.extend(t); grown {
		t.Fatal("a checkpoint with nothing new")
	}
	e.run(t, func(tx application.Tx) error { return e.eraseOnce(t, tx) })
	second := e.extendAll(t)
	if second.Size != first.Size+1 {
		t.Fatalf("second checkpoint %d leaves, want %d", second.Size, first.Size+1)
	}
	ev, err := e.tree.StreamEvidence(e.ctx, e.formID)
	if err != nil || len(ev.Events) != 5 || ev.Checkpoint.Size != second.Size {
		t.Fatalf("evidence %d events at %d (%v)", len(ev.Events), ev.Checkpoint.Size, err)
	}
	prev := []byte{}
	for i, x := range ev.Events {
		if !bytes.Equal(audit.Link(prev, x.Canonical), x.Hash) {
			t.Fatalf("event %d: hash does not chain", i+1)
		}
		if err := proof.VerifyInclusion(rfc6962.DefaultHasher, x.LeafIndex, second.Size, audit.LeafHash(x.Hash), x.Proof, second.Root); err != nil {
			t.Fatalf("event %d: %v", i+1, err)
		}
		prev = x.Hash
	}
	if found := e.verify(t); len(found) != 0 {
		t.Fatalf("findings on an untouched log: %+v", found)
	}
}

// An event whose transaction began before one still open is left out of
// the checkpoint until that transaction ends, even when its own committed:
// nothing can later sort before a leaf.
func TestACheckpointCoversOnlyEventsNoOpenTransactionCanPrecede(t *testing.T) {
	t.Parallel()
	e := newTreeEnv(t)
	base := e.extendAll(t)
	slow, err := e.pool.Begin(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Rollback(context.Background())
	// The slow transaction takes its transaction id and an event position
	// first, and commits last.
	if _, err := slow.Exec(e.ctx, `INSERT INTO events (stream_type, stream_id, version, event_type, data)
		VALUES ('test', gen_random_uuid(), 1, 'test.slow.v1', '{}')`); err != nil {
		t.Fatal(err)
	}
	e.run(t, func(tx application.Tx) error { return e.eraseOnce(t, tx) })
	if cp, grown := e.extend(t); grown {
		t.Fatalf("checkpointed %d leaves while a transaction begun earlier was open", cp.Size)
	}
	if err := slow.Commit(e.ctx); err != nil {
		t.Fatal(err)
	}
	cp := e.extendAll(t)
	if cp.Size != base.Size+2 {
		t.Fatalf("after the commit: %d leaves, want %d", cp.Size, base.Size+2)
	}
	var order []string
	rows, _ := e.pool.Query(e.ctx, `SELECT e.event_type FROM audit_leaves l JOIN events e USING (global_position) WHERE l.leaf_index >= $1 ORDER BY l.leaf_index`, int64(base.Size))
	for rows.Next() {
		var typ string
		_ = rows.Scan(&typ)
		order = append(order, typ)
	}
	if rows.Err() != nil || len(order) != 2 || order[0] != "test.slow.v1" {
		t.Fatalf("leaf order %v (%v): the slow transaction's event comes first, its transaction id being lower", order, rows.Err())
	}
	if found := e.verify(t); len(found) != 0 {
		t.Fatalf("findings: %+v", found)
	}
}

// Each way of rewriting checkpointed history is found.
func TestCheckpointVerificationFindsARewrittenLog(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, sql string
		version   int // the event named, 0 for a checkpoint's finding
		problem   string
	}{
		{"the last event of a stream deleted", `DELETE FROM events WHERE stream_id = $1 AND version = 4`, 4, "no longer stored: it was deleted"},
		{"an event changed and its chain rewritten", `UPDATE events SET hash = sha256(hash) WHERE stream_id = $1 AND version = 4`, 4, "not the one checkpointed as leaf"},
		{"a checkpoint signed by another key", `UPDATE audit_checkpoints SET signed_note = 'forged' WHERE $1::text IS NOT NULL`, 0, "not signed by the test key"},
		{"a leaf's record deleted", `DELETE FROM audit_leaves WHERE leaf_index = 0 AND $1::text IS NOT NULL`, 0, "leaf 0 of the tree is missing"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newTreeEnv(t)
			e.extendAll(t)
			e.tamper(t, c.sql, e.formID)
			found := e.verify(t)
			if len(found) == 0 || !strings.Contains(found[0].Problem, c.problem) || found[0].Version != c.version ||
				(c.version > 0 && found[0].StreamID != e.formID) {
				t.Fatalf("findings %+v, want first at version %d: %q", found, c.version, c.problem)
			}
		})
	}
}

// A database restored into another cluster carries transaction ids ahead of
// the new cluster's: the tree goes on growing from it, whether its last
// checkpoint was restored with it or there was none.
func TestCheckpointsGoOnAfterARestoreIntoAnotherCluster(t *testing.T) {
	t.Parallel()
	for _, withCheckpoint := range []bool{true, false} {
		t.Run(fmt.Sprintf("checkpointed before: %v", withCheckpoint), func(t *testing.T) {
			t.Parallel()
			e := newTreeEnv(t)
			if withCheckpoint {
				e.extendAll(t)
			}
			// As a restore leaves it: every id far ahead of this cluster's counter.
			ahead := `pg_snapshot_xmax(pg_current_snapshot())::text::bigint + 1000000`
			e.tamper(t, `UPDATE events SET transaction_id = `+ahead+` WHERE $1::text IS NOT NULL`, e.formID)
			e.tamper(t, `UPDATE audit_checkpoints SET last_transaction_id = `+ahead+` WHERE $1::text IS NOT NULL`, e.formID)
			// Nothing new yet: the restored history alone.
			e.extendAll(t)
			e.run(t, func(tx application.Tx) error { return e.eraseOnce(t, tx) })
			cp := e.extendAll(t)
			var events int64
			if err := e.pool.QueryRow(e.ctx, `SELECT count(*) FROM events`).Scan(&events); err != nil || cp.Size != uint64(events) {
				t.Fatalf("after the restore: %d leaves of %d events (%v)", cp.Size, events, err)
			}
			if found := e.verify(t); len(found) != 0 {
				t.Fatalf("findings: %+v", found)
			}
			var stillAhead int
			if err := e.pool.QueryRow(e.ctx, `SELECT count(*) FROM events WHERE transaction_id >= pg_snapshot_xmax(pg_current_snapshot())::text::bigint`).Scan(&stillAhead); err != nil || stillAhead != 0 {
				t.Fatalf("%d events still ahead (%v)", stillAhead, err)
			}
		})
	}
}

package postgres_test

import (
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/audit"
	"github.com/formd/formd/domain/form"
)

// chainEnv is a database with a form whose stream has four events, all
// chained as they were appended.
type chainEnv struct {
	uowEnv
	chain  *postgres.EventChain
	formID string
}

func newChainEnv(t *testing.T) chainEnv {
	t.Helper()
	e := newUoWEnv(t)
	_, formID := e.seedForm(t)
	for i := range 3 {
		e.run(t, func(tx application.Tx) error {
			f, err := tx.LoadForm(e.ctx, formID)
			if err != nil {
				return err
			}
			if err := f.RecordSubmissionsErased(i, form.ErasedByID, "s", "", time.Now()); err != nil {
				return err
			}
			return tx.SaveForm(e.ctx, f)
		})
	}
	return chainEnv{uowEnv: e, chain: postgres.NewEventChain(e.pool), formID: formID}
}

// findings verifies every chain.
func (c chainEnv) findings(t *testing.T) ([]application.ChainFinding, application.ChainTally) {
	t.Helper()
	var out []application.ChainFinding
	tally, err := c.chain.VerifyChains(c.ctx, func(f application.ChainFinding) { out = append(out, f) })
	if err != nil {
		t.Fatal(err)
	}
	return out, tally
}

// tamper runs SQL on the events as someone with the database's keys would:
// with its triggers off.
func (c chainEnv) tamper(t *testing.T, sql string, args ...any) {
	t.Helper()
	err := pgx.BeginFunc(c.ctx, c.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(c.ctx, `SET LOCAL session_replication_role = replica`); err != nil {
			return err
		}
		_, err := tx.Exec(c.ctx, sql, args...)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestAppendedEventsAreChainedAsTheChainPackageSays(t *testing.T) {
	t.Parallel()
	c := newChainEnv(t)
	// The encoding, spelled out here as docs/audit.md does, so a change to
	// event_canonical fails this test.
	rows, err := c.pool.Query(c.ctx, `SELECT convert_to(jsonb_build_array(stream_type, stream_id::text, version, event_type,
		schema_version, data, metadata, to_char(recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'))::text, 'UTF8'),
		hash, version FROM events WHERE stream_id = $1 ORDER BY version`, c.formID)
	if err != nil {
		t.Fatal(err)
	}
	prev, n := []byte{}, 0
	for rows.Next() {
		var canonical, hash []byte
		var version int
		if err := rows.Scan(&canonical, &hash, &version); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(canonical), `["form", "`+c.formID+`", `) {
			t.Fatalf("canonical encoding %s", canonical)
		}
		if want := audit.Link(prev, canonical); string(want) != string(hash) {
			t.Fatalf("version %d: stored hash %x, want %x", version, hash, want)
		}
		prev, n = hash, n+1
	}
	if rows.Err() != nil || n != 4 {
		t.Fatalf("%d events (%v), want 4", n, rows.Err())
	}
	if found, tally := c.findings(t); len(found) != 0 || tally.Unchained != 0 || tally.Events < 4 {
		t.Fatalf("findings %+v, tally %+v", found, tally)
	}
}

// The history stored before the chain existed is unchained, and so is
// what is appended after it; the chain job chains them in stream order, and
// verification then finds nothing.
func TestTheChainJobChainsTheHistoryStoredBeforeTheChain(t *testing.T) {
	t.Parallel()
	c := newChainEnv(t)
	// As the migration found it: an event stored with no trigger to chain it.
	c.tamper(t, `INSERT INTO events (stream_type, stream_id, version, event_type, schema_version, data, metadata, recorded_at)
		SELECT stream_type, stream_id, 5, event_type, schema_version, data, metadata, now() FROM events WHERE stream_id = $1 AND version = 4`,
		c.formID)
	c.run(t, func(tx application.Tx) error {
		f, err := tx.LoadForm(c.ctx, c.formID)
		if err != nil {
			return err
		}
		if err := f.RecordSubmissionsErased(9, form.ErasedByID, "s", "", time.Now()); err != nil {
			return err
		}
		return tx.SaveForm(c.ctx, f)
	})
	var unchained int
	if err := c.pool.QueryRow(c.ctx, `SELECT count(*) FROM events WHERE stream_id = $1 AND hash IS NULL`, c.formID).Scan(&unchained); err != nil || unchained != 2 {
		t.Fatalf("%d unchained (%v), want the unchained event and the one after it", unchained, err)
	}
	if found, tally := c.findings(t); len(found) != 0 || tally.Unchained != 2 {
		t.Fatalf("before the job: findings %+v, tally %+v; want none, 2 waiting", found, tally)
	}
	if n, err := c.chain.ChainPending(c.ctx, 1000); err != nil || n < 2 {
		t.Fatalf("chained %d, %v", n, err)
	}
	if found, tally := c.findings(t); len(found) != 0 || tally.Unchained != 0 {
		t.Fatalf("after the job: findings %+v, tally %+v", found, tally)
	}
	if _, err := c.pool.Exec(c.ctx, `UPDATE events SET hash = NULL WHERE stream_id = $1 AND version = 5`, c.formID); err == nil ||
		!strings.Contains(err.Error(), "append-only") {
		t.Fatalf("removing a hash: %v, want the append-only refusal", err)
	}
}

// Each way of tampering with the events by SQL is found, naming the first
// event that does not match.
func TestVerificationNamesTheFirstTamperedEvent(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		sql     string
		version int
		problem string
	}{
		{"changed data", `UPDATE events SET data = jsonb_set(data, '{count}', '99') WHERE stream_id = $1 AND version = 3`, 3, "does not match its content"},
		{"changed metadata", `UPDATE events SET metadata = jsonb_set(metadata, '{actor,id}', '"someone-else"') WHERE stream_id = $1 AND version = 2`, 2, "does not match its content"},
		{"changed time", `UPDATE events SET recorded_at = recorded_at - interval '1 day' WHERE stream_id = $1 AND version = 4`, 4, "does not match its content"},
		{"deleted event", `DELETE FROM events WHERE stream_id = $1 AND version = 2`, 2, "version 2 is missing"},
		{"two events swapped", `UPDATE events e SET event_type = o.event_type, data = o.data, metadata = o.metadata, recorded_at = o.recorded_at,
			hash = o.hash FROM events o WHERE e.stream_id = $1 AND o.stream_id = $1 AND ((e.version, o.version) IN ((2, 3), (3, 2)))`, 2, "does not match its content"},
		{"hash removed", `UPDATE events SET hash = NULL WHERE stream_id = $1 AND version = 2`, 2, "not chained, but a later event"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			env := newChainEnv(t)
			env.tamper(t, c.sql, env.formID)
			found, _ := env.findings(t)
			if len(found) != 1 || found[0].StreamID != env.formID || found[0].Version != c.version || !strings.Contains(found[0].Problem, c.problem) {
				t.Fatalf("findings %+v, want one at version %d: %q", found, c.version, c.problem)
			}
		})
	}
}

// A stream may start past version 1 (a delivery queued by its submission's
// event starts at version 2): its first stored event starts its chain, as
// the trigger and the chain job both make it, and it verifies.
func TestAStreamStartingPastVersionOneIsChainedFromItsFirstEvent(t *testing.T) {
	t.Parallel()
	c := newChainEnv(t)
	insert := `INSERT INTO events (stream_type, stream_id, version, event_type, data) VALUES ('delivery', $1, 2, 'delivery.succeeded.v1', '{}')`
	var chained, waiting = "0b9d6b0e-8f1e-4d3c-9a43-2f1d5c1e7a10", "0b9d6b0e-8f1e-4d3c-9a43-2f1d5c1e7a11"
	if _, err := c.pool.Exec(c.ctx, insert, chained); err != nil {
		t.Fatal(err)
	}
	var hash []byte
	if err := c.pool.QueryRow(c.ctx, `SELECT hash FROM events WHERE stream_id = $1`, chained).Scan(&hash); err != nil || hash == nil {
		t.Fatalf("the trigger left a stream's first stored event unchained (%v)", err)
	}
	// As an older trigger left it: unchained, for the chain job.
	c.tamper(t, insert, waiting)
	if n, err := c.chain.ChainPending(c.ctx, 1000); err != nil || n != 1 {
		t.Fatalf("chained %d (%v), want the waiting stream's first event", n, err)
	}
	if found, tally := c.findings(t); len(found) != 0 || tally.Unchained != 0 {
		t.Fatalf("findings %+v, tally %+v", found, tally)
	}
}

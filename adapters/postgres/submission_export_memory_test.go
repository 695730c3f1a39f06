package postgres_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/submission"
)

// plainSealer is an application.Sealer whose seal is the plaintext bound
// to its submission: what SQL can write for a hundred thousand rows at once.
type plainSealer struct{}

func (plainSealer) Seal(id string, plain []byte) (application.SealedPayload, error) {
	return application.SealedPayload{KeyID: "plain", WrappedKey: []byte("plain/" + id), Ciphertext: plain}, nil
}

func (plainSealer) Open(id string, p application.SealedPayload) ([]byte, error) {
	if string(p.WrappedKey) != "plain/"+id {
		return nil, fmt.Errorf("the seal of %s is not bound to it", id)
	}
	return p.Ciphertext, nil
}

type fieldHasher struct{}

func (fieldHasher) HashValueUnderEveryKey(formID, field, value string) []string {
	return []string{field + "=" + value}
}

// noLinks signs no link: the exported submissions have no uploaded file.
type noLinks struct{ application.ObjectLinks }

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

// liveHeapSink is an export's sink that measures the live heap (after a
// collection) every sampleEvery rows while it reads each submission's
// values; retain keeps every entry, as an export that is not streamed
// would.
type liveHeapSink struct {
	sampleEvery int
	retain      bool
	kept        []application.ArchivedEntry
	rows        int
	bytes       int64
	baseline    uint64
	peak        uint64
	columns     []string
}

func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func (s *liveHeapSink) Start(start application.ExportStart) error {
	s.columns = start.FieldNames
	s.baseline = liveHeap()
	return nil
}

func (s *liveHeapSink) Write(e application.ArchivedEntry) error {
	for _, f := range e.Fields {
		s.bytes += int64(len(f.Name) + len(f.Value))
	}
	if s.retain {
		s.kept = append(s.kept, e)
	}
	s.rows++
	if s.rows%s.sampleEvery == 0 {
		if h := liveHeap(); h > s.peak {
			s.peak = h
		}
	}
	return nil
}

func (s *liveHeapSink) Finish() error { return nil }

// exportRows is how many archived submissions the memory test exports: the
// issue's 100,000, or FORMD_EXPORT_ROWS.
func exportRows(t *testing.T) int {
	if raw := os.Getenv("FORMD_EXPORT_ROWS"); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil || n < 20 {
			t.Fatalf("FORMD_EXPORT_ROWS=%q", raw)
		}
		return n
	}
	return 100_000
}

// An export of 100,000 archived submissions, through the real archive and
// the real use case, holds one batch at a time: the live heap sampled
// along the way stays within a bound far below what it exports, where an
// export that keeps its rows goes past it.
func TestAnExportOfAHundredThousandSubmissionsRunsInConstantMemory(t *testing.T) {
	rows := exportRows(t)
	g := newGroupEnv(t)
	archive := postgres.NewSubmissionArchive(g.pool)
	start := time.Now()
	// Each payload holds about 600 bytes of values, as a contact form's
	// message would.
	if _, err := g.pool.Exec(g.ctx, `
		INSERT INTO submission_payloads (submission_id, form_id, wrapped_key, ciphertext, pending, key_id, created_at, archived_until, value_hashes)
		SELECT s.id, $1, convert_to('plain/' || s.id, 'UTF8'),
		       convert_to(json_build_object('v', 1, 'fields', json_build_array(
		           json_build_object('name', 'name', 'value', 'Person ' || s.i),
		           json_build_object('name', 'email', 'value', 'person' || s.i || '@example.com'),
		           json_build_object('name', 'message', 'value', repeat('A message of some length. ', 22) || s.i)))::text, 'UTF8'),
		       0, 'plain', now() - interval '1 day' + s.i * interval '1 millisecond', now() + interval '1 day', '{}'::jsonb
		FROM (SELECT gen_random_uuid() AS id, i FROM generate_series(1, $2::int) i) s`, g.formID, rows); err != nil {
		t.Fatal(err)
	}
	if _, err := g.pool.Exec(g.ctx, `
		INSERT INTO events (stream_type, stream_id, version, event_type, data)
		SELECT 'submission', p.submission_id, 1, $2, jsonb_build_object('requestId', 'req-' || p.submission_id,
		       'fieldNames', '["name", "email", "message"]'::jsonb)
		FROM submission_payloads p WHERE p.form_id = $1`, g.formID, submission.AcceptedType); err != nil {
		t.Fatal(err)
	}
	// Statistics, as autovacuum keeps them for a table that grew this way:
	// without them the planner takes the page for a few rows and sorts the
	// whole remaining range for each one.
	if _, err := g.pool.Exec(g.ctx, `ANALYZE submission_payloads, events`); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d archived submissions stored in %s", rows, time.Since(start).Round(time.Millisecond))

	read := postgres.NewReadModel(g.pool, postgres.NewEventStore())
	h := application.NewReadSubmissionsHandler(read, archive, postgres.NewDeliveryStore(g.pool, postgres.NewEventStore()), archive, plainSealer{}, fieldHasher{}, noLinks{}, systemClock{})
	q := application.ExportSubmissions{Format: "csv", ListSubmissions: application.ListSubmissions{
		Caller:    application.Session{AccountID: g.accountID, ActorType: application.ActorSession, Access: account.FullAccess()},
		RequestID: "req-export", FormID: g.formID}}
	export := func(sink *liveHeapSink) {
		t.Helper()
		start := time.Now()
		n, err := h.Export(context.Background(), q, sink)
		if err != nil {
			t.Fatal(err)
		}
		if n != rows || sink.rows != rows {
			t.Fatalf("exported %d rows (the sink saw %d), want %d", n, sink.rows, rows)
		}
		t.Logf("retain=%v: %d rows, %d MiB of values in %s; live heap %d KiB at the start, at most %d KiB",
			sink.retain, rows, sink.bytes>>20, time.Since(start).Round(time.Millisecond), sink.baseline>>10, sink.peak>>10)
	}

	// The bound: a few batches of opened submissions, and nothing that
	// grows with their number.
	const bound = 16 << 20
	sampleEvery := max(rows/20, 1)
	streamed := &liveHeapSink{sampleEvery: sampleEvery}
	export(streamed)
	if grown := int64(streamed.peak) - int64(streamed.baseline); grown > bound {
		t.Errorf("the live heap grew by %d KiB during the export, past %d KiB", grown>>10, bound>>10)
	}
	if streamed.bytes < 2*bound {
		t.Errorf("the export wrote %d MiB of values: too little to tell streaming from keeping", streamed.bytes>>20)
	}
	if !slices.Equal(streamed.columns, []string{"name", "email", "message"}) {
		t.Errorf("columns %v", streamed.columns)
	}
	var count *int
	// The export may outlast the environment's deadline on a busy machine.
	if err := g.pool.QueryRow(t.Context(), `SELECT count FROM submission_accesses WHERE form_id = $1 AND action = 'export' ORDER BY id DESC LIMIT 1`,
		g.formID).Scan(&count); err != nil || count == nil || *count != rows {
		t.Errorf("the export's access record counts %v (%v), want %d", count, err, rows)
	}

	// The measure tells: the same export keeping its rows goes past the
	// bound.
	kept := &liveHeapSink{sampleEvery: sampleEvery, retain: true}
	export(kept)
	if grown := int64(kept.peak) - int64(kept.baseline); grown <= bound {
		t.Errorf("an export keeping its rows grew the live heap by only %d KiB: the bound cannot tell", grown>>10)
	}
}

package export

import (
	"runtime"
	"strconv"
	"testing"
	"time"
)

// countingWriter keeps nothing of what it is given, like a response to a
// client that reads as fast as the export writes.
type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

// rowSource makes realistic rows without holding any: one Row and one
// Fields slice reused, a value changing with each row.
type rowSource struct {
	row    Row
	values [][]string
}

var sampleNames = []string{"name", "email", "phone", "company", "message", "consent", "attachments", "=HYPERLINK(\"x\")"}

func newRowSource() *rowSource {
	s := &rowSource{row: Row{RequestID: "8f14e45f-ceea-467f-a8f6-2b1f0c0a7e21"}}
	s.row.Fields = make([]Field, len(sampleNames))
	s.values = make([][]string, len(sampleNames))
	sample := []string{"Ada Lovelace", "ada@example.com", "+44 20 7946 0958", "Analytical Engines, Ltd.",
		"Hello,\nI would like a quote for \"the engine\".\r\nThanks!", "yes", "", "=1+1"}
	for i, n := range sampleNames {
		s.values[i] = []string{sample[i]}
		s.row.Fields[i] = Field{Name: n, Values: s.values[i]}
	}
	s.row.Fields[6].Values = []string{"cv.pdf", "portfolio.zip"}
	return s
}

// next is the i-th row. Its ids are made once per call, as a caller reading
// rows from the database makes them; the encoder must not keep them.
func (s *rowSource) next(i int) Row {
	s.row.SubmittedAt = time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC)
	s.row.SubmissionID = "0b9d2c1e-8a8f-4c0e-9d7a-" + strconv.Itoa(100000000000+i)
	return s.row
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// Writing 100,000 rows keeps no more memory than writing 1,000, and
// allocates only a few bytes a row, all of it garbage at once: an export's
// memory does not grow with its length.
func TestAnExportOf100000RowsRunsInConstantMemory(t *testing.T) {
	const short, long = 1_000, 100_000
	for _, f := range []Format{CSV, NDJSON} {
		t.Run(string(f), func(t *testing.T) {
			src := newRowSource()
			out := &countingWriter{}
			e, err := New(out, f, sampleNames)
			if err != nil {
				t.Fatal(err)
			}
			before := heapInUse()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			allocated := ms.TotalAlloc
			afterShort := uint64(0)
			for i := range long {
				if err := e.Encode(src.next(i)); err != nil {
					t.Fatal(err)
				}
				if i+1 == short {
					afterShort = heapInUse()
				}
			}
			if err := e.Flush(); err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&ms)
			perRow := float64(ms.TotalAlloc-allocated) / long
			afterLong := heapInUse()
			runtime.KeepAlive(e)
			grown := int64(afterLong) - int64(afterShort)
			t.Logf("%s: %d rows, %d bytes written; heap %d B before, %d after %d rows, %d after %d rows; %.1f B allocated a row",
				f, e.Rows(), out.n, before, afterShort, short, afterLong, long, perRow)
			if e.Rows() != long {
				t.Fatalf("%d rows written", e.Rows())
			}
			// A retained byte a row would be 100 KB; the bound leaves room
			// for the runtime's own noise and nothing more.
			if grown > 64<<10 {
				t.Fatalf("the heap grew by %d bytes from %d to %d rows", grown, short, long)
			}
			// The row source's id is about 48 bytes a row; the encoders add
			// nothing of their own but under -race.
			if perRow > 256 {
				t.Fatalf("%.1f bytes allocated a row", perRow)
			}
		})
	}
}

func benchmarkExport(b *testing.B, f Format) {
	src := newRowSource()
	out := &countingWriter{}
	e, err := New(out, f, sampleNames)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if err := e.Encode(src.next(i)); err != nil {
			b.Fatal(err)
		}
		i++
	}
	if err := e.Flush(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(i), "ns/row")
	b.ReportMetric(float64(out.n)/float64(i), "out-B/row")
}

// BenchmarkCSV reports what a CSV row of a typical contact form costs:
// ns/row, and B/op (allocated a row, the row source's id included).
func BenchmarkCSV(b *testing.B) { benchmarkExport(b, CSV) }

// BenchmarkNDJSON is BenchmarkCSV for NDJSON.
func BenchmarkNDJSON(b *testing.B) { benchmarkExport(b, NDJSON) }

// The encoders reuse their buffers: a row of valid UTF-8 costs them no
// allocation at all, so nothing of a row can outlive it.
func TestEncodingARowAllocatesNothing(t *testing.T) {
	for _, f := range []Format{CSV, NDJSON} {
		e, err := New(&countingWriter{}, f, sampleNames)
		if err != nil {
			t.Fatal(err)
		}
		row := newRowSource().next(1)
		if allocs := testing.AllocsPerRun(1000, func() { _ = e.Encode(row) }); allocs != 0 {
			t.Errorf("%s: %.1f allocations a row", f, allocs)
		}
	}
}

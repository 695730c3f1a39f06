package export

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func encodeNDJSON(t testing.TB, names []string, rows ...Row) []byte {
	t.Helper()
	var out bytes.Buffer
	e, err := NewNDJSON(&out, names)
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
	return out.Bytes()
}

// readNDJSON decodes each line as a JSON object, its keys in order.
func readNDJSON(t testing.TB, raw []byte) (objects []map[string]any, keys [][]string) {
	t.Helper()
	if len(raw) > 0 && raw[len(raw)-1] != '\n' {
		t.Fatalf("the last line is not ended: %q", raw)
	}
	s := bufio.NewScanner(bytes.NewReader(raw))
	s.Buffer(nil, 1<<20)
	for s.Scan() {
		var m map[string]any
		if err := json.Unmarshal(s.Bytes(), &m); err != nil {
			t.Fatalf("line %q: %v", s.Text(), err)
		}
		objects = append(objects, m)
		d := json.NewDecoder(bytes.NewReader(s.Bytes()))
		var order []string
		_, _ = d.Token()
		for d.More() {
			k, _ := d.Token()
			order = append(order, k.(string))
			var v any
			_ = d.Decode(&v)
		}
		keys = append(keys, order)
	}
	return objects, keys
}

func TestNDJSONIsOneObjectALineKeysInColumnOrder(t *testing.T) {
	raw := encodeNDJSON(t, []string{"name", "files", "message"},
		Row{SubmittedAt: at, SubmissionID: "s1", RequestID: "r1",
			Fields: []Field{one("message", "Hi <b>&</b>"), one("name", "=Ada"), one("files", "a.pdf", "b.png")}},
		Row{SubmittedAt: at, SubmissionID: "s2", RequestID: "r2", Fields: []Field{one("name", "")}},
	)
	want := `{"submittedAt":"2026-11-27T14:04:05Z","submissionId":"s1","requestId":"r1","name":"=Ada","files":["a.pdf","b.png"],"message":"Hi <b>&</b>"}` + "\n" +
		`{"submittedAt":"2026-11-27T14:04:05Z","submissionId":"s2","requestId":"r2","name":""}` + "\n"
	if string(raw) != want {
		t.Fatalf("got\n%s\nwant\n%s", raw, want)
	}
}

// A submitter may name a field like a fixed column: the object still has
// each key once, and submissionId is the submission's.
func TestNDJSONKeysAreUniqueWhateverTheFieldsAreNamed(t *testing.T) {
	objects, keys := readNDJSON(t, encodeNDJSON(t, []string{"submissionId", "submissionId (2)"},
		Row{SubmittedAt: at, SubmissionID: "real", RequestID: "r",
			Fields: []Field{one("submissionId", "forged"), one("submissionId (2)", "also")}}))
	if objects[0]["submissionId"] != "real" || objects[0]["submissionId (2)"] != "forged" || objects[0]["submissionId (2) (2)"] != "also" {
		t.Fatalf("got %v", objects[0])
	}
	if len(keys[0]) != 5 {
		t.Fatalf("keys %q", keys[0])
	}
}

// Our JSON strings are byte for byte what encoding/json writes with HTML
// escaping off, and read back as the value (invalid UTF-8 as U+FFFD).
func TestNDJSONStringsAreEncodingJSONs(t *testing.T) {
	values := []string{
		"", "plain", `quote " backslash \ slash /`, "<script>&amp;</script>",
		"\x00\x01\x07\b\f\n\r\t\x1f\x7f", "Zoë 東京 🚀", "\u2028\u2029", "bad \xff\xfe utf8 \xc3", "\xed\xa0\x80",
		strings.Repeat("x", 5000),
	}
	for _, v := range values {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		if got := string(appendJSONString(nil, v)); got != strings.TrimSuffix(want.String(), "\n") {
			t.Errorf("%q: got %s, want %s", v, got, want.String())
		}
	}
}

func TestEitherFormatStartsByName(t *testing.T) {
	for _, c := range []struct {
		name, contentType string
	}{{"csv", "text/csv; charset=utf-8"}, {"ndjson", "application/x-ndjson"}} {
		f, err := ParseFormat(c.name)
		if err != nil || f.ContentType() != c.contentType {
			t.Fatalf("%s: %v %q", c.name, err, f.ContentType())
		}
	}
	if _, err := ParseFormat("xlsx"); err == nil {
		t.Fatal("xlsx is no format")
	}
	if e, err := New(&bytes.Buffer{}, CSV, []string{"a", "a"}); err == nil || e != nil {
		t.Fatalf("a failed start is a nil Encoder and an error: %v %v", e, err)
	}
}

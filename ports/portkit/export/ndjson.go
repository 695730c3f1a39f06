package export

import (
	"bufio"
	"io"
	"time"
	"unicode/utf8"
)

// NDJSONEncoder writes rows as NDJSON (the package doc: NDJSON).
type NDJSONEncoder struct {
	w    *bufio.Writer
	cols *columns
	// keys are the columns' labels as JSON object keys, colon included,
	// encoded once.
	keys [][]byte
	rows int
	err  error
	// scratch holds the row being encoded, reused for every row.
	scratch []byte
}

// NewNDJSON starts an NDJSON export of submissions with these field names,
// in this order. It writes nothing until the first row.
func NewNDJSON(w io.Writer, fieldNames []string) (*NDJSONEncoder, error) {
	cols, err := newColumns(fieldNames)
	if err != nil {
		return nil, err
	}
	keys := make([][]byte, len(cols.labels))
	for i, label := range cols.labels {
		keys[i] = append(appendJSONString(nil, label), ':')
	}
	return &NDJSONEncoder{w: bufio.NewWriterSize(w, bufferSize), cols: cols, keys: keys, scratch: make([]byte, 0, 1024)}, nil
}

// Encode writes one row as one line. A field that is no column, or comes
// twice, is an error and nothing of the row is written. An error writing is
// returned by this and every later call.
func (e *NDJSONEncoder) Encode(r Row) error {
	if e.err != nil {
		return e.err
	}
	if err := e.cols.place(r.Fields); err != nil {
		return err
	}
	b := append(e.scratch[:0], '{')
	b = append(b, e.keys[0]...)
	b = append(b, '"')
	b = r.SubmittedAt.UTC().Truncate(time.Second).AppendFormat(b, time.RFC3339)
	b = append(b, '"', ',')
	b = append(b, e.keys[1]...)
	b = appendJSONString(b, r.SubmissionID)
	b = append(b, ',')
	b = append(b, e.keys[2]...)
	b = appendJSONString(b, r.RequestID)
	for i, j := range e.cols.filled {
		if j < 0 {
			continue // a field the row does not have: no key
		}
		b = append(b, ',')
		b = append(b, e.keys[fixedColumns+i]...)
		b = appendJSONValues(b, r.Fields[j].Values)
	}
	b = append(b, '}', '\n')
	e.scratch = b
	if _, e.err = e.w.Write(b); e.err == nil {
		e.rows++
	}
	return e.err
}

// Flush writes what is buffered to the underlying writer.
func (e *NDJSONEncoder) Flush() error {
	if e.err == nil {
		e.err = e.w.Flush()
	}
	return e.err
}

// Rows is how many rows were written.
func (e *NDJSONEncoder) Rows() int { return e.rows }

// appendJSONValues appends a field's values: a string for one, an array of
// strings for several (and for none, which a row's field should not have).
func appendJSONValues(b []byte, values []string) []byte {
	if len(values) == 1 {
		return appendJSONString(b, values[0])
	}
	b = append(b, '[')
	for k, v := range values {
		if k > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, v)
	}
	return append(b, ']')
}

const hex = "0123456789abcdef"

// appendJSONString appends s as a JSON string, escaped as encoding/json
// escapes it with HTML escaping off: quotes, backslashes and control
// characters escaped, U+2028 and U+2029 too (JavaScript reads them as line
// ends), invalid UTF-8 as \ufffd. It spares a reflection round trip and an
// allocation per value.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

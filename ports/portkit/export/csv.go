package export

import (
	"bufio"
	"io"
	"strings"
	"time"
)

// bufferSize is how much an encoder gathers before it writes: large enough
// that a response is written in few calls, small enough to be no concern
// however many exports run at once.
const bufferSize = 32 << 10

// bom is the UTF-8 byte order mark a CSV starts with (the package doc: CSV).
const bom = "\ufeff"

// CSVEncoder writes rows as CSV (the package doc: CSV, CSV injection).
type CSVEncoder struct {
	w    *bufio.Writer
	cols *columns
	rows int
	err  error
	// scratch holds the row being encoded, reused for every row.
	scratch []byte
}

// NewCSV starts a CSV export of submissions with these field names, in
// this order, writing the byte order mark and the header.
func NewCSV(w io.Writer, fieldNames []string) (*CSVEncoder, error) {
	cols, err := newColumns(fieldNames)
	if err != nil {
		return nil, err
	}
	e := &CSVEncoder{w: bufio.NewWriterSize(w, bufferSize), cols: cols}
	b := []byte(bom)
	for i, label := range cols.labels {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendCSVCell(b, label)
	}
	b = append(b, '\r', '\n')
	_, e.err = e.w.Write(b)
	return e, e.err
}

// Encode writes one row. A field that is no column, or comes twice, is an
// error and nothing of the row is written. An error writing is returned by
// this and every later call.
func (e *CSVEncoder) Encode(r Row) error {
	if e.err != nil {
		return e.err
	}
	if err := e.cols.place(r.Fields); err != nil {
		return err
	}
	// A time is always bare (digits, '-', ':', 'T', 'Z').
	b := r.SubmittedAt.UTC().Truncate(time.Second).AppendFormat(e.scratch[:0], time.RFC3339)
	b = append(b, ',')
	b = appendCSVCell(b, r.SubmissionID)
	b = append(b, ',')
	b = appendCSVCell(b, r.RequestID)
	for _, j := range e.cols.filled {
		b = append(b, ',')
		if j >= 0 {
			b = appendCSVCell(b, r.Fields[j].Values...)
		}
	}
	b = append(b, '\r', '\n')
	e.scratch = b
	if _, e.err = e.w.Write(b); e.err == nil {
		e.rows++
	}
	return e.err
}

// Flush writes what is buffered to the underlying writer.
func (e *CSVEncoder) Flush() error {
	if e.err == nil {
		e.err = e.w.Flush()
	}
	return e.err
}

// Rows is how many rows were written.
func (e *CSVEncoder) Rows() int { return e.rows }

// appendCSVCell appends the cell made of these values, each after the first
// on a line of its own: made inert, quoted unless bare. No values is an
// empty cell (a field the row does not have); one empty value is "".
func appendCSVCell(b []byte, values ...string) []byte {
	if len(values) == 0 {
		return b
	}
	if !validUTF8(values) {
		fixed := make([]string, len(values))
		for k, v := range values {
			fixed[k] = validText(v)
		}
		values = fixed
	}
	inert := startsFormula(values...)
	if !inert && len(values) == 1 && bare(values[0]) {
		return append(b, values[0]...)
	}
	b = append(b, '"')
	if inert {
		b = append(b, '\'')
	}
	for k, v := range values {
		if k > 0 {
			b = append(b, '\n')
		}
		b = appendQuoted(b, v)
	}
	return append(b, '"')
}

// appendQuoted appends s as the inside of a quoted cell, each quote doubled.
func appendQuoted(b []byte, s string) []byte {
	for {
		q := strings.IndexByte(s, '"')
		if q < 0 {
			return append(b, s...)
		}
		b = append(b, s[:q+1]...)
		b = append(b, '"')
		s = s[q+1:]
	}
}

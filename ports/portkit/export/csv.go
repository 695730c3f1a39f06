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
	// scratch holds a row's time as text, reused for every row.
	scratch []byte
}

// NewCSV starts a CSV export of submissions with these field names, in
// this order, writing the byte order mark and the header.
func NewCSV(w io.Writer, fieldNames []string) (*CSVEncoder, error) {
	cols, err := newColumns(fieldNames)
	if err != nil {
		return nil, err
	}
	e := &CSVEncoder{w: bufio.NewWriterSize(w, bufferSize), cols: cols, scratch: make([]byte, 0, 64)}
	e.write(bom)
	for i, label := range cols.labels {
		e.cell(i, label)
	}
	e.write("\r\n")
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
	// A time is always bare (digits, '-', ':', 'T', 'Z'), so it is written
	// as it is formatted, with no string made of it.
	e.scratch = r.SubmittedAt.UTC().Truncate(time.Second).AppendFormat(e.scratch[:0], time.RFC3339)
	if e.err == nil {
		_, e.err = e.w.Write(e.scratch)
	}
	e.cell(1, r.SubmissionID)
	e.cell(2, r.RequestID)
	for i, j := range e.cols.filled {
		var values []string
		if j >= 0 {
			values = r.Fields[j].Values
		}
		e.cell(fixedColumns+i, values...)
	}
	e.write("\r\n")
	if e.err == nil {
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

// cell writes the cell in column i made of these values, each after the
// first on a line of its own: a separator before it, made inert, quoted
// unless bare. No values is an empty cell; one empty value is "".
func (e *CSVEncoder) cell(i int, values ...string) {
	if i > 0 {
		e.write(",")
	}
	if len(values) == 0 {
		return // a field the row does not have: an empty cell
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
		e.write(values[0])
		return
	}
	e.write(`"`)
	if inert {
		e.write("'")
	}
	for k, v := range values {
		if k > 0 {
			e.write("\n")
		}
		e.quoted(v)
	}
	e.write(`"`)
}

// quoted writes s inside a quoted cell, each quote doubled.
func (e *CSVEncoder) quoted(s string) {
	for {
		q := strings.IndexByte(s, '"')
		if q < 0 {
			e.write(s)
			return
		}
		e.write(s[:q+1])
		e.write(`"`)
		s = s[q+1:]
	}
}

func (e *CSVEncoder) write(s string) {
	if e.err == nil {
		_, e.err = e.w.WriteString(s)
	}
}

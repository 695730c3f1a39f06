package export

import (
	"fmt"
	"io"
)

// Encoder writes an export's rows; NewCSV and NewNDJSON make one.
type Encoder interface {
	// Encode writes one row.
	Encode(Row) error
	// Flush writes what is buffered; call it once the last row is
	// encoded, and whenever the reader should see the rows so far.
	Flush() error
	// Rows is how many rows were written.
	Rows() int
}

// Format is a file format an export is written in.
type Format string

// The formats an export is written in.
const (
	CSV    Format = "csv"
	NDJSON Format = "ndjson"
)

// ParseFormat reads a format as a request names it (csv or ndjson).
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case CSV, NDJSON:
		return f, nil
	}
	return "", fmt.Errorf("export: unknown format %q: csv or ndjson", s)
}

// ContentType is the media type of a file in this format.
func (f Format) ContentType() string {
	if f == NDJSON {
		return "application/x-ndjson"
	}
	return "text/csv; charset=utf-8"
}

// New starts an export in this format (NewCSV, NewNDJSON).
func New(w io.Writer, f Format, fieldNames []string) (Encoder, error) {
	// Each case returns its own error, so a failed start is a nil Encoder
	// and not an interface holding a nil pointer.
	switch f {
	case CSV:
		e, err := NewCSV(w, fieldNames)
		if err != nil {
			return nil, err
		}
		return e, nil
	case NDJSON:
		e, err := NewNDJSON(w, fieldNames)
		if err != nil {
			return nil, err
		}
		return e, nil
	}
	return nil, fmt.Errorf("export: unknown format %q", string(f))
}

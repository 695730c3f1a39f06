package export

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/formd/formd/application"
)

// The fixed columns every export starts with, in this order.
const (
	ColumnSubmittedAt  = "submittedAt"
	ColumnSubmissionID = "submissionId"
	ColumnRequestID    = "requestId"
)

// fixedColumns is how many columns come before the fields.
const fixedColumns = 3

// Row is one submission as an export writes it.
type Row struct {
	SubmittedAt  time.Time
	SubmissionID string
	RequestID    string
	// Fields are the submission's fields, each name once.
	Fields []Field
}

// Field is one field of a row: a text field's value, or the names of the
// files a file field carried.
type Field struct {
	Name   string
	Values []string
}

// ErrUnknownField is a row's field that is not among the columns the
// encoder was given: the header is written, so the row cannot be.
var ErrUnknownField = errors.New("export: the row has a field that is not a column")

// ErrDuplicateField is a row naming a field twice: which value belongs in
// its cell is for the caller to decide (RowOf merges them).
var ErrDuplicateField = errors.New("export: the row has a field twice")

// ErrDuplicateColumn is a field name given twice in the column list.
var ErrDuplicateColumn = errors.New("export: a field name is listed twice")

// columns maps a row's fields to cells: labels are the header, in order,
// and index finds a field name's column.
type columns struct {
	labels []string
	index  map[string]int
	// filled holds, while a row is written, which field each column takes
	// (or -1): reused for every row, so a row costs no allocation.
	filled []int
}

// newColumns lists the fixed columns, then the field names, each labelled
// uniquely (see the package doc: Columns).
func newColumns(fieldNames []string) (*columns, error) {
	c := &columns{
		labels: make([]string, 0, fixedColumns+len(fieldNames)),
		index:  make(map[string]int, len(fieldNames)),
		filled: make([]int, len(fieldNames)),
	}
	used := make(map[string]bool, fixedColumns+len(fieldNames))
	for _, l := range []string{ColumnSubmittedAt, ColumnSubmissionID, ColumnRequestID} {
		c.labels = append(c.labels, l)
		used[l] = true
	}
	for i, name := range fieldNames {
		if _, ok := c.index[name]; ok {
			return nil, fmt.Errorf("%w: %q", ErrDuplicateColumn, name)
		}
		c.index[name] = i
		// Labels are made unique as readers will see them, invalid UTF-8
		// already replaced: two names that differ only in invalid bytes
		// would otherwise be one JSON key twice.
		base := validText(name)
		label := base
		for n := 2; used[label]; n++ {
			label = base + " (" + strconv.Itoa(n) + ")"
		}
		used[label] = true
		c.labels = append(c.labels, label)
	}
	return c, nil
}

// place records which of a row's fields fills each field column, refusing
// a field that is no column or comes twice. Afterwards filled[i] is the
// index in fields of column i's field, or -1.
func (c *columns) place(fields []Field) error {
	for i := range c.filled {
		c.filled[i] = -1
	}
	for j, f := range fields {
		i, ok := c.index[f.Name]
		if !ok {
			return fmt.Errorf("%w: %q", ErrUnknownField, f.Name)
		}
		if c.filled[i] >= 0 {
			return fmt.Errorf("%w: %q", ErrDuplicateField, f.Name)
		}
		c.filled[i] = j
	}
	return nil
}

// Labels are the column labels of an export with these field names, as its
// header shows them (before CSV's injection defence).
func Labels(fieldNames []string) ([]string, error) {
	c, err := newColumns(fieldNames)
	if err != nil {
		return nil, err
	}
	return c.labels, nil
}

// ColumnAttachments is the column, after the fields, that holds the names
// of a submission's files, whichever field carried them.
const ColumnAttachments = "attachments"

// FieldColumns are the field columns of an export of archived submissions
// whose fields have these names: the names, then ColumnAttachments, unless
// a field has that name, whose cell then takes the file names after its
// value.
func FieldColumns(fieldNames []string) []string {
	for _, n := range fieldNames {
		if n == ColumnAttachments {
			return fieldNames
		}
	}
	return append(fieldNames[:len(fieldNames):len(fieldNames)], ColumnAttachments)
}

// RowOf is an archived submission as a row of an export with
// FieldColumns: each field with its value, the values of a name given
// more than once joined with ", " in one cell (as the form post's repeated
// names are joined when a submission is accepted), and its files' names
// under ColumnAttachments.
func RowOf(e application.ArchivedEntry) Row {
	r := Row{SubmittedAt: e.AcceptedAt, SubmissionID: e.SubmissionID, RequestID: e.RequestID,
		Fields: make([]Field, 0, len(e.Fields)+1)}
	at := make(map[string]int, len(e.Fields)+1)
	for _, f := range e.Fields {
		if i, ok := at[f.Name]; ok {
			r.Fields[i].Values[0] += ", " + f.Value
			continue
		}
		at[f.Name] = len(r.Fields)
		r.Fields = append(r.Fields, Field{Name: f.Name, Values: []string{f.Value}})
	}
	if len(e.Attachments) == 0 {
		return r
	}
	i, ok := at[ColumnAttachments]
	if !ok {
		i = len(r.Fields)
		r.Fields = append(r.Fields, Field{Name: ColumnAttachments})
	}
	for _, a := range e.Attachments {
		r.Fields[i].Values = append(r.Fields[i].Values, a.Name)
	}
	return r
}

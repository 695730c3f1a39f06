package export

import (
	"fmt"
	"testing"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/submission"
)

// An archived submission becomes a row: each field with its value, a name
// given twice one cell joined with ", ", the files' names under
// attachments.
func TestRowOfAnArchivedSubmission(t *testing.T) {
	e := application.ArchivedEntry{
		ArchivedSubmission: application.ArchivedSubmission{SubmissionID: "s", RequestID: "r", AcceptedAt: at},
		Fields:             []submission.Field{{Name: "name", Value: "Ada"}, {Name: "topic", Value: "a"}, {Name: "topic", Value: "b"}},
		Attachments:        []application.ArchivedAttachment{{Field: "cv", Name: "cv.pdf"}, {Field: "photo", Name: "me.jpg"}},
	}
	got := RowOf(e)
	if fmt.Sprint(got.Fields) != "[{name [Ada]} {topic [a, b]} {attachments [cv.pdf me.jpg]}]" || got.SubmissionID != "s" ||
		got.RequestID != "r" || !got.SubmittedAt.Equal(at) {
		t.Fatalf("got %+v", got)
	}
	e.Attachments = nil
	if got := RowOf(e); len(got.Fields) != 2 {
		t.Fatalf("no files, no attachments field: %v", got.Fields)
	}
	e.Attachments = []application.ArchivedAttachment{{Name: "f.txt"}}
	e.Fields = append(e.Fields, submission.Field{Name: "attachments", Value: "see below"})
	if got := fmt.Sprint(RowOf(e).Fields); got != "[{name [Ada]} {topic [a, b]} {attachments [see below f.txt]}]" {
		t.Fatalf("a field named attachments takes the files after its value: %s", got)
	}
}

// The field columns end with attachments, once, and leave the caller's list
// as it was.
func TestFieldColumnsEndWithTheFiles(t *testing.T) {
	names := make([]string, 2, 3)
	copy(names, []string{"name", "message"})
	if got := fmt.Sprint(FieldColumns(names)); got != "[name message attachments]" {
		t.Fatalf("got %s", got)
	}
	if got := fmt.Sprint(FieldColumns([]string{"attachments", "name"})); got != "[attachments name]" {
		t.Fatalf("got %s", got)
	}
	if got := fmt.Sprint(FieldColumns(nil)); got != "[attachments]" {
		t.Fatalf("got %s", got)
	}
	if _, err := NewCSV(&countingWriter{}, FieldColumns(names)); err != nil {
		t.Fatal(err)
	}
}

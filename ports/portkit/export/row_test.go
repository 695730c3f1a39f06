package export

import (
	"fmt"
	"testing"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/submission"
)

// A stored submission becomes a row: text fields with their value, files by
// name under their field, a file field named like a text field joining it.
func TestFieldsOfAStoredSubmission(t *testing.T) {
	got := FieldsOf(
		[]submission.Field{{Name: "name", Value: "Ada"}, {Name: "photo", Value: "see attached"}},
		[]application.Attachment{{Field: "cv", Name: "cv.pdf", Content: []byte("%PDF")}, {Field: "photo", Name: "me.jpg"}, {Field: "cv", Name: "letter.pdf"}},
	)
	want := "[{name [Ada]} {photo [see attached me.jpg]} {cv [cv.pdf letter.pdf]}]"
	if fmt.Sprint(got) != want {
		t.Fatalf("got %v, want %s", got, want)
	}
	if got := FieldsOf(nil, nil); len(got) != 0 {
		t.Fatalf("no fields: %v", got)
	}
}

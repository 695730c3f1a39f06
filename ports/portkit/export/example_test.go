package export_test

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/formd/formd/ports/portkit/export"
)

// An export as a port serves it: the headers from the format and the form's
// name, the columns listed first, then each row as it is read.
func Example() {
	f, _ := export.ParseFormat("csv")
	day := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	fmt.Println("Content-Type:", f.ContentType())
	fmt.Println("Content-Disposition:", export.ContentDisposition("Contact us", day, f))

	var out strings.Builder
	e, _ := export.New(&out, f, []string{"name", "message"})
	_ = e.Encode(export.Row{SubmittedAt: day, SubmissionID: "6f1c", RequestID: "req-1", Fields: []export.Field{
		{Name: "name", Values: []string{"=HYPERLINK(\"http://evil.example\")"}},
		{Name: "message", Values: []string{"Hello, world"}},
	}})
	_ = e.Flush()
	fmt.Print(strings.ReplaceAll(strings.TrimPrefix(out.String(), "\ufeff"), "\r\n", "\n"))
	fmt.Println(e.Rows(), "row")

	nd, _ := export.New(os.Stdout, export.NDJSON, []string{"name", "files"})
	_ = nd.Encode(export.Row{SubmittedAt: day, SubmissionID: "6f1d", RequestID: "req-2", Fields: []export.Field{
		{Name: "files", Values: []string{"cv.pdf", "photo.jpg"}},
	}})
	_ = nd.Flush()
	// Output:
	// Content-Type: text/csv; charset=utf-8
	// Content-Disposition: attachment; filename="contact-us-2026-11-27.csv"
	// submittedAt,submissionId,requestId,name,message
	// 2026-11-27T12:00:00Z,6f1c,req-1,"'=HYPERLINK(""http://evil.example"")","Hello, world"
	// 1 row
	// {"submittedAt":"2026-11-27T12:00:00Z","submissionId":"6f1d","requestId":"req-2","files":["cv.pdf","photo.jpg"]}
}

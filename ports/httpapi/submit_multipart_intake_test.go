package httpapi

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"os"
	"testing"

	"github.com/formd/formd/application"
)

// countingBody counts what the decoder read of a body.
type countingBody struct {
	r    io.Reader
	read int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.read += int64(n)
	return n, err
}

func (b *countingBody) Close() error { return nil }

// intakeFor is an intake whose form lookup answers allowed for every key,
// and counts its calls.
func intakeFor(t *testing.T, allowed application.AllowedFiles, budget *fileBudget) (*fileIntake, *int) {
	t.Helper()
	calls := 0
	in := &fileIntake{
		allowance: func(string) (application.AllowedFiles, error) { calls++; return allowed, nil },
		hold:      &fileHold{budget: budget, client: "192.0.2.1"},
		tempDir:   t.TempDir(),
	}
	t.Cleanup(in.close)
	return in, &calls
}

func megabytes(n int) []byte { return bytes.Repeat([]byte("a"), n<<20) }

// A post to a key that names no form stops being read at its first file
// part: its files cost neither memory nor the time to receive them.
func TestMultipartToAnUnknownKeyStopsAtTheFirstFile(t *testing.T) {
	r := multipartRequest(t, testPart{field: "access_key", data: []byte("nonexistent")},
		testPart{field: "a", filename: "a.txt", contentType: "text/plain", data: megabytes(2)},
		testPart{field: "b", filename: "b.txt", contentType: "text/plain", data: megabytes(2)})
	body := &countingBody{r: r.Body}
	r.Body = body
	in, calls := intakeFor(t, application.AllowedFiles{}, newFileBudget(1, 1))
	fields, files, err := decodeSubmission(r, in)
	if err != nil {
		t.Fatal(err)
	}
	if len(fields) != 1 || fields[0].Value != "nonexistent" || len(files) != 0 || *calls != 1 {
		t.Fatalf("fields %+v, %d files, %d lookups", fields, len(files), *calls)
	}
	if body.read > 1<<20 {
		t.Fatalf("read %d bytes of a body whose key names no form", body.read)
	}
}

// A form that takes no files keeps none of their content: a budget of one
// byte is never touched, and the files are counted and marked unread.
func TestMultipartToAFormWithoutUploadsKeepsNoFileContent(t *testing.T) {
	budget := newFileBudget(1, 1)
	in, _ := intakeFor(t, application.AllowedFiles{FormFound: true}, budget)
	fields, files, err := decodeSubmission(multipartRequest(t, testPart{field: "access_key", data: []byte("k")},
		testPart{field: "a", filename: "a.txt", contentType: "text/plain", data: megabytes(3)},
		testPart{field: "message", data: []byte("after the file")}), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(fields) != 2 || len(files) != 1 || files[0].Size != 3<<20 || files[0].Content != nil || !files[0].Unread {
		t.Fatalf("fields %+v, files %+v", fields, files)
	}
	if budget.inUse() != 0 {
		t.Fatalf("budget holds %d bytes", budget.inUse())
	}
}

// A form that takes files keeps them up to its own size limit and count;
// past them a file is counted and unread, and the uploads gate refuses it.
func TestMultipartKeepsFilesWithinTheFormsLimits(t *testing.T) {
	in, _ := intakeFor(t, application.AllowedFiles{FormFound: true, MaxFiles: 2, MaxFileBytes: 100},
		newFileBudget(DefaultFileBytesInFlight, DefaultFileBytesInFlightPerClient))
	small, large := bytes.Repeat([]byte("s"), 50), bytes.Repeat([]byte("l"), 200)
	_, files, err := decodeSubmission(multipartRequest(t, testPart{field: "access_key", data: []byte("k")},
		testPart{field: "a", filename: "a.txt", contentType: "text/plain", data: small},
		testPart{field: "b", filename: "b.txt", contentType: "text/plain", data: large},
		testPart{field: "c", filename: "c.txt", contentType: "text/plain", data: small}), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 3 || !bytes.Equal(files[0].Content, small) || files[0].Unread {
		t.Fatalf("the small file: %+v", files)
	}
	if files[1].Content != nil || !files[1].Unread || files[1].Size != 200 {
		t.Fatalf("the file above the form's size limit: %+v", files[1].File)
	}
	if files[2].Content != nil || !files[2].Unread || files[2].Size != 50 {
		t.Fatalf("the file past the form's count: %+v", files[2].File)
	}
}

// Files sent before the access key are spooled to a temporary file, then
// kept if the key's form takes them, and never once it does not; the
// temporary files are gone when the request ends.
func TestMultipartFilesBeforeTheKeyAreSpooledThenJudged(t *testing.T) {
	for _, tt := range []struct {
		name    string
		allowed application.AllowedFiles
		kept    bool
	}{
		{"a form that takes files", application.AllowedFiles{FormFound: true, MaxFiles: 5, MaxFileBytes: 10 << 20}, true},
		{"a form that takes none", application.AllowedFiles{FormFound: true}, false},
		{"no form", application.AllowedFiles{}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in, calls := intakeFor(t, tt.allowed, newFileBudget(DefaultFileBytesInFlight, DefaultFileBytesInFlightPerClient))
			data := megabytes(1)
			_, files, err := decodeSubmission(multipartRequest(t,
				testPart{field: "a", filename: "a.txt", contentType: "text/plain", data: data},
				testPart{field: "access_key", data: []byte("k")}), in)
			if err != nil {
				t.Fatal(err)
			}
			if *calls != 1 || len(files) != 1 || files[0].Size != 1<<20 {
				t.Fatalf("%d lookups, files %+v", *calls, files)
			}
			if got := bytes.Equal(files[0].Content, data) && !files[0].Unread; got != tt.kept {
				t.Fatalf("kept %v, want %v", got, tt.kept)
			}
			spooled, _ := os.ReadDir(in.tempDir)
			if len(spooled) != 1 {
				t.Fatalf("%d temporary files while the request runs, want 1", len(spooled))
			}
			in.close()
			if left, _ := os.ReadDir(in.tempDir); len(left) != 0 {
				t.Fatalf("%d temporary files left after the request", len(left))
			}
		})
	}
}

// One client's files in flight are bounded: past its share, 429 with a
// Retry-After; the bytes come back when its request ends.
func TestMultipartFilesBeyondTheClientsShareAreRefused(t *testing.T) {
	budget := newFileBudget(8<<20, 1<<20)
	in, _ := intakeFor(t, application.AllowedFiles{FormFound: true, MaxFiles: 5, MaxFileBytes: 10 << 20}, budget)
	_, _, err := decodeSubmission(multipartRequest(t, testPart{field: "access_key", data: []byte("k")},
		testPart{field: "a", filename: "a.txt", contentType: "text/plain", data: megabytes(2)}), in)
	var de *decodeError
	if !errors.As(err, &de) || de.status != http.StatusTooManyRequests || de.retryAfter <= 0 {
		t.Fatalf("err %v, want 429 with a retry", err)
	}
	if budget.inUse() == 0 {
		t.Fatal("the refused request's bytes were given back before it ended")
	}
	in.close()
	if budget.inUse() != 0 {
		t.Fatalf("budget holds %d bytes after the request", budget.inUse())
	}
	if err := budget.take("198.51.100.7", 1<<20); err != nil {
		t.Fatalf("another client: %v", err)
	}
	if err := budget.take("198.51.100.8", 8<<20); err == nil || !errors.As(err, &de) || de.status != http.StatusTooManyRequests {
		t.Fatalf("past the process's budget: %v", err)
	}
}

// An upload's body is charged to the client's share as it is read: past
// it, the read fails with a 429 the handler answers.
func TestAnUploadBodyBeyondTheClientsShareIsRefused(t *testing.T) {
	budget := newFileBudget(8<<20, 1<<20)
	hold := &fileHold{budget: budget, client: "192.0.2.1"}
	_, err := io.Copy(io.Discard, &chargedReader{r: bytes.NewReader(megabytes(2)), hold: hold})
	var de *decodeError
	if !errors.As(err, &de) || de.status != http.StatusTooManyRequests {
		t.Fatalf("err %v, want 429", err)
	}
	hold.release()
	if budget.inUse() != 0 {
		t.Fatalf("budget holds %d bytes after the upload", budget.inUse())
	}
}

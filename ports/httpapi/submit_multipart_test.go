package httpapi

import (
	"bytes"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"
	"testing"

	"github.com/formd/formd/domain/form"
)

type testPart struct {
	field, filename, contentType string
	data                         []byte
}

func multipartRequest(t *testing.T, parts ...testPart) *http.Request {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for _, p := range parts {
		h := textproto.MIMEHeader{}
		if p.filename != "" {
			h.Set("Content-Disposition", `form-data; name="`+p.field+`"; filename="`+p.filename+`"`)
			h.Set("Content-Type", p.contentType)
		} else {
			h.Set("Content-Disposition", `form-data; name="`+p.field+`"`)
		}
		pw, err := w.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = pw.Write(p.data)
	}
	_ = w.Close()
	r, _ := http.NewRequest(http.MethodPost, "/submit", &b)
	r.Header.Set("Content-Type", w.FormDataContentType())
	return r
}

// decoderAlone is the intake of the decoder's own tests: no form to look
// up, every file kept up to the server-wide ceiling, its spool removed when
// the test ends.
func decoderAlone(t testing.TB) *fileIntake {
	in := &fileIntake{tempDir: t.TempDir()}
	t.Cleanup(in.close)
	return in
}

// A file part is kept with its name, declared type (without parameters),
// size and content; sniffing is the application's.
func TestMultipartFilesAreRead(t *testing.T) {
	pdf := []byte("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n")
	pe := append([]byte("MZ"), bytes.Repeat([]byte{0}, 200)...)
	fields, files, err := decodeSubmission(multipartRequest(t,
		testPart{field: "message", data: []byte("Hello")},
		testPart{field: "attachment", filename: "cv.pdf", contentType: "application/pdf", data: pdf},
		testPart{field: "other", filename: "evil.pdf", contentType: "application/PDF; x=y", data: pe}), decoderAlone(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(fields) != 1 || fields[0].Value != "Hello" || len(files) != 2 {
		t.Fatalf("fields %+v, %d files", fields, len(files))
	}
	if f := files[0]; f.Field != "attachment" || f.Name != "cv.pdf" || f.DeclaredType != "application/pdf" ||
		f.Size != int64(len(pdf)) || !bytes.Equal(f.Content, pdf) {
		t.Errorf("pdf part %+v", f.File)
	}
	if f := files[1]; f.Field != "other" || f.DeclaredType != "application/pdf" || !bytes.Equal(f.Content, pe) {
		t.Errorf("PE part %+v", f.File)
	}
}

// A file past the server-wide ceiling is counted, not kept: the uploads
// gate refuses it by its size.
func TestMultipartFileAboveTheCeilingIsCountedNotKept(t *testing.T) {
	big := bytes.Repeat([]byte("a"), form.MaxFileBytesCeiling+1)
	_, files, err := decodeSubmission(multipartRequest(t, testPart{field: "attachment", filename: "big.txt", contentType: "text/plain", data: big}), decoderAlone(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].Size != int64(len(big)) || files[0].Content != nil {
		t.Fatalf("files %+v", files)
	}
}

func TestMultipartBodyTooLargeOrTruncated(t *testing.T) {
	huge := bytes.Repeat([]byte("a"), MaxMultipartBytes)
	_, _, err := decodeSubmission(multipartRequest(t, testPart{field: "attachment", filename: "huge.txt", contentType: "text/plain", data: huge}), decoderAlone(t))
	var de *decodeError
	if !errors.As(err, &de) || de.status != http.StatusRequestEntityTooLarge {
		t.Fatalf("err %v, want 413", err)
	}

	r := multipartRequest(t, testPart{field: "message", data: []byte("Hello")})
	raw, _ := io.ReadAll(r.Body)
	// Cut where mime/multipart ends quietly (io.EOF, as if complete): right
	// after a delimiter line, the closing "--" and whatever followed lost.
	cut := append(bytes.TrimSuffix(raw, []byte("--\r\n")), "\r\n"...)
	r.Body = io.NopCloser(bytes.NewReader(cut))
	if _, _, err := decodeSubmission(r, decoderAlone(t)); err == nil || !strings.Contains(err.Error(), "malformed") {
		t.Fatalf("truncated body: err %v", err)
	}
}

package mail_test

import (
	"bytes"
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
	"os"
	"path/filepath"
	"strings"
	"testing"

	formdmail "github.com/formd/formd/adapters/mail"
	"github.com/formd/formd/application"
)

// spooled sends m through a spool and parses the file it wrote.
func spooled(t *testing.T, m application.Mail) *mail.Message {
	t.Helper()
	dir := t.TempDir()
	s, err := formdmail.NewSpool(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Send(t.Context(), m); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, m.DeliveryID+".eml"))
	if err != nil {
		t.Fatal(err)
	}
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	return msg
}

// parts lists the media types of a multipart body's parts, and the reader
// of each.
func parts(t *testing.T, contentType string, body io.Reader) ([]string, [][]byte) {
	t.Helper()
	media, params, err := mime.ParseMediaType(contentType)
	if err != nil || !strings.HasPrefix(media, "multipart/") {
		t.Fatalf("Content-Type %q: %v", contentType, err)
	}
	r := multipart.NewReader(body, params["boundary"])
	var types []string
	var bodies [][]byte
	for {
		p, err := r.NextPart()
		if err == io.EOF {
			return types, bodies
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(p)
		types = append(types, p.Header.Get("Content-Type"))
		bodies = append(bodies, append([]byte("Content-Type: "+p.Header.Get("Content-Type")+"\r\n\r\n"), b...))
	}
}

func TestHTMLBodyIsAnAlternativeAfterTheText(t *testing.T) {
	m := sample()
	m.HTML = "<p>Zoë</p>"
	msg := spooled(t, m)
	if id := msg.Header.Get("Message-ID"); id != "<"+m.MessageID+">" {
		t.Errorf("Message-ID = %q", id)
	}
	types, _ := parts(t, msg.Header.Get("Content-Type"), msg.Body)
	if len(types) != 2 || !strings.HasPrefix(types[0], "text/plain") || !strings.HasPrefix(types[1], "text/html") {
		t.Fatalf("parts %v, want text/plain then text/html", types)
	}
	if media, _, _ := mime.ParseMediaType(msg.Header.Get("Content-Type")); media != "multipart/alternative" {
		t.Errorf("Content-Type %q, want multipart/alternative", media)
	}
}

func TestHTMLWithAttachmentsNestsTheAlternativeInMixed(t *testing.T) {
	m := sample()
	m.HTML = "<p>hi</p>"
	m.Attachments = []application.MailAttachment{{Name: "cv.pdf", Type: "application/pdf", Content: []byte("%PDF-1.4")}}
	msg := spooled(t, m)
	if media, _, _ := mime.ParseMediaType(msg.Header.Get("Content-Type")); media != "multipart/mixed" {
		t.Fatalf("Content-Type %q, want multipart/mixed", media)
	}
	types, bodies := parts(t, msg.Header.Get("Content-Type"), msg.Body)
	if len(types) != 2 || !strings.HasPrefix(types[0], "multipart/alternative") || !strings.HasPrefix(types[1], "application/pdf") {
		t.Fatalf("parts %v, want the alternative then the file", types)
	}
	inner, err := mail.ReadMessage(bytes.NewReader(bodies[0]))
	if err != nil {
		t.Fatal(err)
	}
	innerTypes, _ := parts(t, inner.Header.Get("Content-Type"), inner.Body)
	if len(innerTypes) != 2 || !strings.HasPrefix(innerTypes[0], "text/plain") || !strings.HasPrefix(innerTypes[1], "text/html") {
		t.Fatalf("alternative parts %v", innerTypes)
	}
}

func TestTextOnlyMailStaysSinglePart(t *testing.T) {
	msg := spooled(t, sample())
	if media, _, _ := mime.ParseMediaType(msg.Header.Get("Content-Type")); media != "text/plain" {
		t.Fatalf("Content-Type %q, want text/plain", media)
	}
}

// Package filetype says what a file is from its content, with
// gabriel-vasile/mimetype: the signature check of uploads.
package filetype

import (
	"mime"
	"strings"

	"github.com/gabriel-vasile/mimetype"
)

// Sniffer implements application.ContentSniffer.
type Sniffer struct{}

// Sniff implements application.ContentSniffer: the detected type, then
// every type that one is a kind of (text/html is a kind of text/plain).
func (Sniffer) Sniff(head []byte) []string {
	var out []string
	for m := mimetype.Detect(head); m != nil; m = m.Parent() {
		out = append(out, mediaTypeOnly(m.String()))
	}
	return out
}

// Canonical implements application.ContentSniffer.
func (Sniffer) Canonical(declared string) string {
	t, _, err := mime.ParseMediaType(declared)
	if err != nil {
		return ""
	}
	if m := mimetype.Lookup(t); m != nil {
		return mediaTypeOnly(m.String())
	}
	return t
}

func mediaTypeOnly(t string) string {
	if i := strings.IndexByte(t, ';'); i >= 0 {
		t = t[:i]
	}
	return strings.ToLower(strings.TrimSpace(t))
}

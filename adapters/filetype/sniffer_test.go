package filetype

import (
	"bytes"
	"testing"
)

// Content says what a file is, whatever it is called: a PDF is a PDF, a
// Windows program declared as a PDF is still a program.
func TestSniffNamesTheContentAndWhatItIsAKindOf(t *testing.T) {
	pdf := []byte("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n")
	pe := append([]byte("MZ"), bytes.Repeat([]byte{0}, 200)...)
	var s Sniffer
	if got := s.Sniff(pdf); len(got) == 0 || got[0] != "application/pdf" {
		t.Errorf("pdf sniffed as %v", got)
	}
	if got := s.Sniff(pe); len(got) == 0 || got[0] != "application/vnd.microsoft.portable-executable" {
		t.Errorf("PE sniffed as %v", got)
	}
	html := s.Sniff([]byte("<!DOCTYPE html><html><body>x</body></html>"))
	if len(html) < 2 || html[0] != "text/html" || html[1] != "text/plain" {
		t.Errorf("html sniffed as %v, want text/html then its parent text/plain", html)
	}
}

func TestCanonicalDropsParametersAndAliases(t *testing.T) {
	var s Sniffer
	for in, want := range map[string]string{
		"application/PDF; x=y": "application/pdf",
		"application/x-pdf":    "application/pdf",
		"audio/mp3":            "audio/mpeg",
		"text/csv":             "text/csv",
		"not a type;;":         "",
	} {
		if got := s.Canonical(in); got != want {
			t.Errorf("Canonical(%q) = %q, want %q", in, got, want)
		}
	}
}

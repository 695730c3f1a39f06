package filetype

import (
	"bytes"
	"strings"
	"testing"

	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
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

// The domain judges what this sniffer says: scripts, pages, style sheets
// and SVG must come out of it as types the domain refuses, under every
// name a client may declare and whatever the content starts with, and the
// ordinary documents people send as types it accepts.
func TestWhatTheDomainJudgesOfSniffedContent(t *testing.T) {
	var s Sniffer
	judge := func(name, declared string, content []byte) string {
		f := submission.File{Name: name, DeclaredType: s.Canonical(declared), Size: int64(len(content)), Detected: s.Sniff(content)}
		return submission.JudgeFile(f, form.UploadLimits{})
	}
	for _, declared := range []string{"text/javascript", "application/javascript", "application/x-javascript", "text/ecmascript",
		"application/ecmascript", "text/jscript", "text/x-javascript", "text/livescript", "text/css", "text/html", "image/svg+xml",
		"application/xhtml+xml", "text/xml", "application/xml"} {
		if got := judge("notes.txt", declared, []byte("Hello,\n<script>alert(1)</script>\n")); !strings.Contains(got, "is not a type formd accepts") {
			t.Errorf("text declared %s: %q, want refused", declared, got)
		}
	}
	for name, content := range map[string]string{
		"an SVG image":       `<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`,
		"an HTML page":       "<html><script>alert(1)</script></html>",
		"a script tag":       "<script>alert(1)</script>",
		"XML":                `<?xml version="1.0"?><a xmlns:h="http://www.w3.org/1999/xhtml"><h:script>alert(1)</h:script></a>`,
		"a shell script":     "#!/bin/sh\nrm -rf /\n",
		"a node script":      "#!/usr/bin/env node\nalert(1)\n",
		"a Windows program":  "MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff",
		"a Linux program":    "\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x3e\x00",
		"a WebAssembly file": "\x00asm\x01\x00\x00\x00",
	} {
		if got := judge("data.txt", "text/plain", []byte(content)); !strings.Contains(got, "is not a type formd accepts") &&
			!strings.Contains(got, "does not match") {
			t.Errorf("%s: %q, want refused", name, got)
		}
	}
	for name, file := range map[string]struct{ name, declared, content string }{
		"a PDF":      {"cv.pdf", "application/pdf", "%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n"},
		"a PNG":      {"me.png", "image/png", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"},
		"a CSV":      {"a.csv", "text/csv", "name,email\nAda,ada@example.com\n"},
		"plain text": {"notes.txt", "text/plain", "just text\n"},
		"JSON":       {"data.json", "application/json", `{"a": 1}`},
		"a zip":      {"a.zip", "application/x-zip-compressed", "PK\x03\x04\x14\x00\x00\x00\x00\x00"},
	} {
		if got := judge(file.name, file.declared, []byte(file.content)); got != "" {
			t.Errorf("%s: %q, want accepted", name, got)
		}
	}
}

package submission_test

import (
	"strings"
	"testing"

	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
)

func TestJudgeFile(t *testing.T) {
	pe := []string{"application/vnd.microsoft.portable-executable", "application/octet-stream"}
	tests := []struct {
		name   string
		file   submission.File
		limits form.UploadLimits
		want   string // a part of the refusal; empty: accepted
	}{
		{"a pdf", submission.File{Name: "cv.pdf", DeclaredType: "application/pdf", Size: 100, Detected: []string{"application/pdf"}}, form.UploadLimits{}, ""},
		{"a csv sniffed as text", submission.File{Name: "a.csv", DeclaredType: "text/csv", Size: 10, Detected: []string{"text/plain"}}, form.UploadLimits{}, ""},
		{"no declared type", submission.File{Name: "photo.png", Size: 10, Detected: []string{"image/png"}}, form.UploadLimits{}, ""},
		{"too large for the default", submission.File{Name: "big.pdf", DeclaredType: "application/pdf", Size: form.DefaultMaxFileBytes + 1,
			Detected: []string{"application/pdf"}}, form.UploadLimits{}, "too large: this form accepts files of at most 5 MiB"},
		{"within a raised limit", submission.File{Name: "big.pdf", DeclaredType: "application/pdf", Size: form.DefaultMaxFileBytes + 1,
			Detected: []string{"application/pdf"}}, form.UploadLimits{MaxFileBytes: form.MaxFileBytesCeiling}, ""},
		{"a blocked extension", submission.File{Name: "run.EXE", DeclaredType: "application/octet-stream", Size: 10, Detected: pe}, form.UploadLimits{}, "(.exe)"},
		{"a blocked extension hidden by trailing dots", submission.File{Name: "notes.sh. ", Size: 10, Detected: []string{"text/plain"}}, form.UploadLimits{}, "(.sh)"},
		{"svg", submission.File{Name: "logo.svg", DeclaredType: "image/svg+xml", Size: 10, Detected: []string{"image/svg+xml"}}, form.UploadLimits{}, "(.svg)"},
		{"a disguised executable", submission.File{Name: "cv.pdf", DeclaredType: "application/pdf", Size: 10, Detected: pe}, form.UploadLimits{}, "its content (application/vnd.microsoft.portable-executable) is not a type formd accepts"},
		{"html named as text", submission.File{Name: "a.txt", DeclaredType: "text/plain", Size: 10, Detected: []string{"text/html", "text/plain"}}, form.UploadLimits{}, "its content (text/html)"},
		{"html sniffed as text, declared html", submission.File{Name: "notes.txt", DeclaredType: "text/html", Size: 10, Detected: []string{"text/plain"}}, form.UploadLimits{}, "its declared type (text/html) is not a type formd accepts"},
		{"svg declared on text", submission.File{Name: "a.txt", DeclaredType: "image/svg+xml", Size: 10, Detected: []string{"text/plain"}}, form.UploadLimits{}, "its declared type (image/svg+xml)"},
		{"css declared on text", submission.File{Name: "a.txt", DeclaredType: "text/css", Size: 10, Detected: []string{"text/plain"}}, form.UploadLimits{}, "its declared type (text/css)"},
		{"css by extension", submission.File{Name: "site.css", DeclaredType: "text/plain", Size: 10, Detected: []string{"text/plain"}}, form.UploadLimits{}, "(.css)"},
		{"xml content", submission.File{Name: "data.txt", Size: 10, Detected: []string{"text/xml", "text/plain"}}, form.UploadLimits{}, "its content (text/xml)"},
		{"unknown binary", submission.File{Name: "data.dat", Size: 10, Detected: []string{"application/octet-stream"}}, form.UploadLimits{}, ""},
		{"markdown declared on text", submission.File{Name: "README.md", DeclaredType: "text/markdown", Size: 10, Detected: []string{"text/plain"}}, form.UploadLimits{}, ""},
		{"text declared as pdf", submission.File{Name: "cv.pdf", DeclaredType: "application/pdf", Size: 10, Detected: []string{"text/plain"}}, form.UploadLimits{}, "does not match"},
		{"a png named .pdf", submission.File{Name: "cv.pdf", Size: 10, Detected: []string{"image/png"}}, form.UploadLimits{}, "does not match"},
		{"a png declared as jpeg", submission.File{Name: "a", DeclaredType: "image/jpeg", Size: 10, Detected: []string{"image/png"}}, form.UploadLimits{}, "does not match"},
		{"a docx sniffed as zip", submission.File{Name: "a.docx", DeclaredType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
			Size: 10, Detected: []string{"application/zip"}}, form.UploadLimits{}, ""},
		{"the allowlist by wildcard", submission.File{Name: "a.png", DeclaredType: "image/png", Size: 10, Detected: []string{"image/png"}},
			form.UploadLimits{AllowedMimeTypes: []string{"image/*"}}, ""},
		{"outside the allowlist", submission.File{Name: "cv.pdf", DeclaredType: "application/pdf", Size: 10, Detected: []string{"application/pdf"}},
			form.UploadLimits{AllowedMimeTypes: []string{"image/*"}}, "does not accept (allowed: image/*)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := submission.JudgeFile(tt.file, tt.limits)
			if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
				t.Fatalf("JudgeFile = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestJavaScriptIsRefusedUnderEveryName holds that no name JavaScript goes
// by passes as a declared type, on text content (which is how a script
// without a shebang sniffs), whatever the file is called.
func TestJavaScriptIsRefusedUnderEveryName(t *testing.T) {
	for _, declared := range []string{"text/javascript", "application/javascript", "application/x-javascript", "text/ecmascript",
		"application/ecmascript", "text/jscript", "text/x-javascript", "text/livescript", "text/x-ecmascript", "application/x-ecmascript",
		"text/javascript1.5", "module", "text/css", "text/html", "application/xhtml+xml", "image/svg+xml", "text/xml", "application/xml",
		"text/xsl", "application/wasm", "application/x-shockwave-flash"} {
		f := submission.File{Name: "notes.txt", DeclaredType: declared, Size: 10, Detected: []string{"text/plain"}}
		if got := submission.JudgeFile(f, form.UploadLimits{}); !strings.Contains(got, "is not a type formd accepts") {
			t.Errorf("%s: JudgeFile = %q, want a refusal of the type", declared, got)
		}
		if submission.DeliveredType(declared) != "application/octet-stream" {
			t.Errorf("%s: counted as a safe type", declared)
		}
	}
}

func TestDeliveredType(t *testing.T) {
	for in, want := range map[string]string{"image/png": "image/png", "text/csv": "text/csv", "text/html": "application/octet-stream",
		"": "application/octet-stream", "application/javascript": "application/octet-stream"} {
		if got := submission.DeliveredType(in); got != want {
			t.Errorf("DeliveredType(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestJudgeFiles(t *testing.T) {
	pdf := submission.File{Name: "cv.pdf", DeclaredType: "application/pdf", Size: 10, Detected: []string{"application/pdf"}}
	if got := submission.JudgeFiles([]submission.File{pdf, pdf}, form.UploadLimits{}); got != "" {
		t.Fatalf("two small files: %q", got)
	}
	six := []submission.File{pdf, pdf, pdf, pdf, pdf, pdf}
	if got := submission.JudgeFiles(six, form.UploadLimits{}); !strings.Contains(got, "at most 5 per submission, 6 were sent") {
		t.Fatalf("six files on the default: %q", got)
	}
	big := pdf
	big.Size = form.MaxFileBytesCeiling
	three := []submission.File{big, big, big}
	if got := submission.JudgeFiles(three, form.UploadLimits{MaxFileBytes: form.MaxFileBytesCeiling}); !strings.Contains(got, "too large together: at most 25 MiB") {
		t.Fatalf("30 MiB in all: %q", got)
	}
}

func TestExtension(t *testing.T) {
	for name, want := range map[string]string{"a.PDF": "pdf", "a.tar.gz": "gz", "noext": "", "dir.d/file": "", "x.exe. .": "exe", ".bashrc": "bashrc"} {
		if got := submission.Extension(name); got != want {
			t.Errorf("Extension(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestFileTypes(t *testing.T) {
	files := []submission.File{
		{Field: "cv", Name: "a.csv", DeclaredType: "text/csv", Detected: []string{"text/plain"}},
		{Field: "cv", Name: "b.png", DeclaredType: "image/png", Detected: []string{"image/png"}},
	}
	got := submission.FileTypes(files)["cv"]
	if len(got) != 2 || got[0] != "text/csv" || got[1] != "image/png" {
		t.Fatalf("FileTypes = %v", got)
	}
}

// A file the port counted but did not keep (its form took no files when the
// part arrived, then took them by the time it was judged) is never accepted:
// it would be delivered empty.
func TestJudgeFilesRefusesAFileWhoseContentWasNotKept(t *testing.T) {
	notes := submission.File{Name: "notes.txt", DeclaredType: "text/plain", Size: 10, Unread: true}
	if got := submission.JudgeFiles([]submission.File{notes}, form.UploadLimits{}); !strings.Contains(got, "could not be received") {
		t.Fatalf("an unread file: %q", got)
	}
	notes.Unread = false
	notes.Detected = []string{"text/plain"}
	if got := submission.JudgeFiles([]submission.File{notes}, form.UploadLimits{}); got != "" {
		t.Fatalf("the same file read: %q", got)
	}
}

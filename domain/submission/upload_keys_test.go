package submission_test

import (
	"strings"
	"testing"

	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
)

func TestIsUploadKey(t *testing.T) {
	for v, want := range map[string]bool{
		"upl_0123456789abcdef0123456789abcdef":  true,
		"upl_0123456789ABCDEF0123456789abcdef":  false, // keys are made lower-case
		"upl_0123456789abcdef0123456789abcde":   false,
		"upl_0123456789abcdef0123456789abcdef0": false,
		"upx_0123456789abcdef0123456789abcdef":  false,
		"hello":                                 false,
	} {
		if got := submission.IsUploadKey(v); got != want {
			t.Errorf("IsUploadKey(%q) = %v", v, got)
		}
	}
}

// A file whose key cannot be used is refused before its metadata is judged,
// with a message that says what to do.
func TestJudgeFilesRefusesAnUnusableKey(t *testing.T) {
	clean := submission.File{Field: "attachment", Name: "cv.pdf", DeclaredType: "application/pdf", Size: 10, Detected: []string{"application/pdf"}}
	if msg := submission.JudgeFiles([]submission.File{clean}, form.UploadLimits{}); msg != "" {
		t.Fatalf("a usable file refused: %s", msg)
	}
	for state, want := range map[submission.KeyState]string{
		submission.KeyUnknown:     "not valid for this form",
		submission.KeyUsed:        "already used",
		submission.KeyExpired:     "expired",
		submission.KeyNotUploaded: "names no uploaded file yet",
		submission.KeyInfected:    "found it infected",
		submission.KeyUnscanned:   "could not be scanned",
		submission.KeyWrongSize:   "not the size that was reserved",
	} {
		f := clean
		f.KeyState = state
		if msg := submission.JudgeFiles([]submission.File{f}, form.UploadLimits{}); !strings.Contains(msg, want) || !strings.Contains(msg, `"attachment"`) {
			t.Errorf("state %d: %q, want it to contain %q and the field", state, msg, want)
		}
	}
}

func TestJudgeReservation(t *testing.T) {
	on := form.Settings{UploadsEnabled: true, AllowedDomains: []string{"example.com"}}
	paid := account.NewEntitlements(account.FeatureUploads)
	const site = "https://example.com"
	pdf := submission.Reservation{Name: "cv.pdf", DeclaredType: "application/pdf", Size: 1000, Origin: site}
	senders := form.Settings{UploadsEnabled: true, AllowedDomains: []string{"example.com"}, AllowedSenderIPs: []string{"198.51.100.7"}}
	serverSide := account.NewEntitlements(account.FeatureUploads, account.FeatureServerSide)
	tests := []struct {
		name string
		r    submission.Reservation
		st   form.Settings
		ent  account.Entitlements
		want string // a part of the refusal; empty: accepted
	}{
		{"a pdf", pdf, on, paid, ""},
		{"uploads off", pdf, form.Settings{}, paid, "not enabled"},
		{"no entitlement", pdf, on, account.NewEntitlements(), "entitlement"},
		{"another origin", submission.Reservation{Name: "cv.pdf", DeclaredType: "application/pdf", Size: 1, Origin: "https://evil.test"}, on, paid, submission.MsgOriginNotAllowed},
		{"blocked extension", submission.Reservation{Name: "run.exe", DeclaredType: "application/octet-stream", Size: 1, Origin: site}, on, paid, "(.exe)"},
		{"type against extension", submission.Reservation{Name: "cv.pdf", DeclaredType: "image/png", Size: 1, Origin: site}, on, paid, "does not match"},
		{"declared html", submission.Reservation{Name: "a.txt", DeclaredType: "text/html", Size: 1, Origin: site}, on, paid, "its declared type (text/html) is not a type formd accepts"},
		{"declared ecmascript", submission.Reservation{Name: "a.txt", DeclaredType: "text/ecmascript", Size: 1, Origin: site}, on, paid, "its declared type (text/ecmascript)"},
		{"declared css", submission.Reservation{Name: "a.txt", DeclaredType: "text/css", Size: 1, Origin: site}, on, paid, "its declared type (text/css)"},
		{"declared svg", submission.Reservation{Name: "a.png", DeclaredType: "image/svg+xml", Size: 1, Origin: site}, on, paid, "its declared type (image/svg+xml)"},
		{"too large", submission.Reservation{Name: "cv.pdf", DeclaredType: "application/pdf", Size: form.DefaultMaxFileBytes + 1, Origin: site}, on, paid, "too large"},
		{"no type given, no signed extension", submission.Reservation{Name: "notes.csv", Size: 1, Origin: site}, on, paid, ""},
		// A reservation without Origin or Referer is a server-side request,
		// judged as a server-side submission is.
		{"no origin and no server-side entitlement", submission.Reservation{Name: "cv.pdf", DeclaredType: "application/pdf", Size: 1, RemoteIP: "192.0.2.1"},
			on, paid, submission.MsgServerSideNoPlan},
		{"server-side from an address not listed", submission.Reservation{Name: "cv.pdf", DeclaredType: "application/pdf", Size: 1, RemoteIP: "192.0.2.1"},
			senders, serverSide, submission.MsgServerSideIP},
		{"server-side from a listed address", submission.Reservation{Name: "cv.pdf", DeclaredType: "application/pdf", Size: 1, RemoteIP: "198.51.100.7"},
			senders, serverSide, ""},
	}
	for _, tt := range tests {
		got := submission.JudgeReservation(tt.r, tt.st, tt.ent)
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

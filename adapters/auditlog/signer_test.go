package auditlog

import (
	"bytes"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestASignedCheckpointOpensWithItsKeyOnly(t *testing.T) {
	skey, vkey, err := GenerateKey("forms.example.com/audit")
	if err != nil {
		t.Fatal(err)
	}
	s, err := ParseSigningKey(skey)
	if err != nil {
		t.Fatal(err)
	}
	if s.VerifierKey() != vkey || s.Origin() != "forms.example.com/audit" {
		t.Fatalf("derived %q (origin %q), generated %q", s.VerifierKey(), s.Origin(), vkey)
	}
	root := bytes.Repeat([]byte{7}, 32)
	signed, err := s.SignCheckpoint(42, root)
	if err != nil {
		t.Fatal(err)
	}
	size, got, err := OpenCheckpoint(signed, vkey)
	if err != nil || size != 42 || !bytes.Equal(got, root) {
		t.Fatalf("opened %d %x %v", size, got, err)
	}
	_, otherKey, _ := GenerateKey("forms.example.com/audit")
	if _, _, err := OpenCheckpoint(signed, otherKey); err == nil || !strings.Contains(err.Error(), "not signed by the key") {
		t.Fatalf("another key opened it: %v", err)
	}
	changed := strings.Replace(signed, "\n42\n", "\n43\n", 1)
	if _, _, err := OpenCheckpoint(changed, vkey); err == nil {
		t.Fatal("a changed size still verified")
	}
}

func TestASigningKeyIsRequiredOutsideDevelopmentAndGeneratedOnceInIt(t *testing.T) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	if _, err := LoadSigningKey("", t.TempDir(), false, quiet); err != ErrNoSigningKey {
		t.Fatalf("got %v, want ErrNoSigningKey", err)
	}
	if _, err := LoadSigningKey("PRIVATE+KEY+x+00000000+AAAA", t.TempDir(), false, quiet); err == nil {
		t.Fatal("a malformed key was accepted")
	}
	dir := t.TempDir()
	first, err := LoadSigningKey("", dir, true, quiet)
	if err != nil {
		t.Fatal(err)
	}
	second, err := LoadSigningKey("", dir, true, quiet)
	if err != nil || second.VerifierKey() != first.VerifierKey() {
		t.Fatalf("the development key changed: %v", err)
	}
	info, err := os.Stat(filepath.Join(dir, "audit-signing.key"))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v", info, err)
	}
}

// The note package decodes signatures leniently: a signature whose unused
// trailing base64 bits were changed still verifies there, and must not here.
func TestACheckpointWhoseSignatureIsSpelledOtherwiseIsRefused(t *testing.T) {
	skey, vkey, err := GenerateKey("forms.example.com/audit")
	if err != nil {
		t.Fatal(err)
	}
	s, _ := ParseSigningKey(skey)
	signed, err := s.SignCheckpoint(3, bytes.Repeat([]byte{1}, 32))
	if err != nil {
		t.Fatal(err)
	}
	// 4 bytes of key hash and 64 of signature: the last base64 character
	// before "=" carries two unused bits.
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	pad := strings.LastIndex(signed, "=")
	last := strings.IndexByte(alphabet, signed[pad-1])
	changed := signed[:pad-1] + string(alphabet[last^1]) + signed[pad:]
	if _, _, err := OpenCheckpoint(changed, vkey); err == nil || !strings.Contains(err.Error(), "not canonical base64") {
		t.Fatalf("a respelled signature: %v", err)
	}
	if _, _, err := OpenCheckpoint(signed, vkey); err != nil {
		t.Fatal(err)
	}
}

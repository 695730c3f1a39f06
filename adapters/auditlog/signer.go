// Package auditlog is the audit log's evidence outside the database
// (docs/audit.md): checkpoints signed in the transparency-log "signed note"
// format (golang.org/x/mod/sumdb/note, with the checkpoint body of
// github.com/transparency-dev/formats/log), and the auditor's bundle, which
// it writes and verifies with no database and no network.
package auditlog

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/transparency-dev/formats/log"
	"golang.org/x/mod/sumdb/note"
)

// ErrNoSigningKey is returned outside development mode when
// FORMD_AUDIT_SIGNING_KEY is not set.
var ErrNoSigningKey = errors.New("FORMD_AUDIT_SIGNING_KEY is not set: generate one with `formd audit key generate <name>` (docs/audit.md), or set FORMD_DEV=true for development")

// developmentKeyName is the name, and so the checkpoints' origin, of the key
// development mode generates.
const developmentKeyName = "formd-development/audit"

// Signer signs checkpoints with an Ed25519 note key. A checkpoint's origin
// is the key's name.
type Signer struct {
	signer      note.Signer
	verifierKey string
}

// ParseSigningKey reads a note signer key ("PRIVATE+KEY+<name>+<hash>+<key>",
// as `formd audit key generate` prints); only Ed25519 keys are accepted.
func ParseSigningKey(skey string) (*Signer, error) {
	skey = strings.TrimSpace(skey)
	s, err := note.NewSigner(skey)
	if err != nil {
		return nil, fmt.Errorf("FORMD_AUDIT_SIGNING_KEY is not a note signing key (PRIVATE+KEY+<name>+<hash>+<key>): %w", err)
	}
	seed, err := ed25519Seed(skey)
	if err != nil {
		return nil, err
	}
	pub := ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey)
	vkey, err := note.NewEd25519VerifierKey(s.Name(), pub)
	if err != nil {
		return nil, err
	}
	return &Signer{signer: s, verifierKey: vkey}, nil
}

// ed25519Seed is the private key's seed: the key data is one algorithm byte
// (1, Ed25519) and the 32-byte seed, in standard base64.
func ed25519Seed(skey string) ([]byte, error) {
	// "PRIVATE+KEY+<name>+<hash>+<key>": names have no '+'; base64 may.
	parts := strings.SplitN(strings.TrimPrefix(skey, "PRIVATE+KEY+"), "+", 3)
	if len(parts) != 3 {
		return nil, errors.New("FORMD_AUDIT_SIGNING_KEY is not an Ed25519 note signing key")
	}
	raw, err := base64.StdEncoding.DecodeString(parts[2])
	if err != nil || len(raw) != 1+ed25519.SeedSize || raw[0] != 1 {
		return nil, errors.New("FORMD_AUDIT_SIGNING_KEY is not an Ed25519 note signing key")
	}
	return raw[1:], nil
}

// LoadSigningKey is FORMD_AUDIT_SIGNING_KEY; without it, development mode
// reads dataDir/audit-signing.key, generating it on first use, and
// otherwise it is ErrNoSigningKey.
func LoadSigningKey(skey, dataDir string, dev bool, logger *slog.Logger) (*Signer, error) {
	switch {
	case strings.TrimSpace(skey) != "":
		return ParseSigningKey(skey)
	case !dev:
		return nil, ErrNoSigningKey
	}
	path := filepath.Join(dataDir, "audit-signing.key")
	if b, err := os.ReadFile(path); err == nil {
		return ParseSigningKey(string(b))
	}
	generated, _, err := GenerateKey(developmentKeyName)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, err
	}
	if err := os.WriteFile(path, []byte(generated+"\n"), 0o600); err != nil {
		return nil, err
	}
	logger.Warn("development mode (FORMD_DEV): generated an audit signing key; production must set FORMD_AUDIT_SIGNING_KEY and share it between processes", "path", path)
	return ParseSigningKey(generated)
}

// GenerateKey makes a new Ed25519 note key pair named name (the
// checkpoints' origin, conventionally the log's host and path, e.g.
// "forms.example.com/audit").
func GenerateKey(name string) (skey, vkey string, err error) {
	return note.GenerateKey(rand.Reader, name)
}

// Origin is the checkpoints' origin line: the key's name.
func (s *Signer) Origin() string { return s.signer.Name() }

// VerifierKey is the public key that verifies this signer's checkpoints, as
// auditors pin it ("<name>+<hash>+<key>").
func (s *Signer) VerifierKey() string { return s.verifierKey }

// SignCheckpoint signs the checkpoint of a tree of size leaves whose root
// is root, in the signed note format.
func (s *Signer) SignCheckpoint(size uint64, root []byte) (string, error) {
	body := log.Checkpoint{Origin: s.Origin(), Size: size, Hash: root}.Marshal()
	signed, err := note.Sign(&note.Note{Text: string(body)}, s.signer)
	return string(signed), err
}

// OpenCheckpoint checks a signed checkpoint against verifierKey and returns
// its size and root. A checkpoint another key signed, or one whose text was
// changed, is refused with a reason.
func OpenCheckpoint(signed, verifierKey string) (size uint64, root []byte, err error) {
	v, err := note.NewVerifier(strings.TrimSpace(verifierKey))
	if err != nil {
		return 0, nil, fmt.Errorf("the public key is not a note verifier key: %w", err)
	}
	cp, _, _, err := log.ParseCheckpoint([]byte(signed), v.Name(), v)
	if err != nil {
		return 0, nil, fmt.Errorf("it is not signed by the key %s, or its text was changed after signing (%v)", verifierKey, err)
	}
	if err := strictSignatures(signed); err != nil {
		return 0, nil, err
	}
	return cp.Size, cp.Hash, nil
}

// strictSignatures refuses a signature line whose base64 is not the one
// encoding of its bytes: the note package decodes leniently (unused
// trailing bits may be anything), and a checkpoint must have one spelling.
func strictSignatures(signed string) error {
	_, sigs, _ := strings.Cut(signed, "\n\n")
	for _, line := range strings.Split(strings.TrimSuffix(sigs, "\n"), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if _, err := base64.StdEncoding.Strict().DecodeString(fields[len(fields)-1]); err != nil {
			return fmt.Errorf("its signature line %q is not canonical base64: it was changed after signing", line)
		}
	}
	return nil
}

// OpenCheckpoint checks a checkpoint against this signer's public key.
func (s *Signer) OpenCheckpoint(signed string) (uint64, []byte, error) {
	return OpenCheckpoint(signed, s.verifierKey)
}

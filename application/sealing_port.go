package application

import "errors"

// Sealer encrypts and decrypts submission payloads (AES-256-GCM).
type Sealer interface {
	Seal(submissionID string, plaintext []byte) (SealedPayload, error)
	Open(submissionID string, p SealedPayload) ([]byte, error)
}

// SealedPayload is a submission's raw content encrypted under its own data
// key, which is itself wrapped by the server's sealing key.
type SealedPayload struct {
	// KeyID names the server key that wrapped the data key (a fingerprint,
	// never the key); empty for payloads sealed before key ids existed.
	KeyID      string
	WrappedKey []byte
	Ciphertext []byte
}

// ErrUnsealable marks a sealed payload that none of the configured keys
// opens: the key that sealed it is missing or wrong. That is the operator's
// to fix, not the receiver's, so its deliveries wait and the payload is kept
// until formd runs with that key (delivery.Postpone); giving up would redact
// the payload and lose the submission.
var ErrUnsealable = errors.New("sealing key wrong or missing")

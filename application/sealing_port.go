package application

import (
	"context"
	"errors"
)

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

// KeyedSealer is a Sealer that names the key it seals under, so that what
// is still sealed under another key can be found after a rotation.
type KeyedSealer interface {
	Sealer
	// CurrentKeyID is the id of the key Seal wraps data keys with.
	CurrentKeyID() string
}

// SealedKind names one kind of record stored sealed under the server keys.
type SealedKind string

// The kinds of sealed records: every table that holds a SealedPayload.
const (
	SealedSubmissionPayloads SealedKind = "submission payloads"
	SealedTestSubmissions    SealedKind = "test inbox entries"
	SealedWebhookSecrets     SealedKind = "webhook signing secrets"
	SealedCaptchaSecrets     SealedKind = "captcha secrets"
)

// SealedKinds is every kind of sealed record, in the order they are re-sealed.
var SealedKinds = []SealedKind{SealedSubmissionPayloads, SealedTestSubmissions, SealedWebhookSecrets, SealedCaptchaSecrets}

// SealedRecord is one sealed record as stored.
type SealedRecord struct {
	// Position orders the records of a kind: a walk goes on after it.
	Position string
	// BoundTo is the id the seal is bound to (Sealer's id argument is made
	// from it), so the record cannot be opened as another.
	BoundTo string
	// Indexed says whether the record keeps value hashes made with its key
	// (an archived submission payload's search index), keyed with FormID.
	Indexed bool
	FormID  string
	Sealed  SealedPayload
}

// Resealed is a record's new seal and what is derived from the same key.
type Resealed struct {
	Sealed SealedPayload
	// ValueHashes is an indexed record's values hashed under the current
	// key, stored as its search index, so a search still finds it once the
	// old key is dropped. Nil for a record that is not indexed.
	ValueHashes map[string]string
}

// ResealFunc re-seals one record: the new seal and true, or false to leave
// the record as it is (no configured key opens it, or a dry run). An error
// aborts the batch, writing none of it.
type ResealFunc func(SealedRecord) (Resealed, bool, error)

// SealedRecords is where everything sealed under the server keys is stored,
// walked to re-seal it under the current key after a rotation.
type SealedRecords interface {
	// ResealBatch locks a bounded batch of the records of kind sealed under
	// any key but currentKeyID, the first in position order after after
	// ("" for the start), passing over records another transaction holds,
	// hands each to reseal and stores the seals it returns, in one
	// transaction. It returns the last position of the batch, or "" when no
	// such record is left after after.
	ResealBatch(ctx context.Context, kind SealedKind, currentKeyID, after string, reseal ResealFunc) (string, error)
	// CountSealed counts the records of kind by the id of the key they are
	// sealed under.
	CountSealed(ctx context.Context, kind SealedKind) (map[string]int, error)
}

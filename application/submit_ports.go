package application

import (
	"context"

	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/submission"
)

// SubmissionForms finds the form a submission is routed to. It may answer
// from a short-lived cache unless fresh is set; the store re-checks the
// form's version when it commits, so a stale answer can never be committed.
type SubmissionForms interface {
	FormByAccessKey(ctx context.Context, accessKeyHash []byte, fresh bool) (FormRecord, error)
}

// SealedPayload is a submission's raw content encrypted under its own data
// key, which is itself wrapped by the server's sealing key.
type SealedPayload struct {
	WrappedKey []byte
	Ciphertext []byte
}

// Sealer encrypts and decrypts submission payloads (AES-256-GCM).
type Sealer interface {
	Seal(submissionID string, plaintext []byte) (SealedPayload, error)
	Open(submissionID string, p SealedPayload) ([]byte, error)
}

// ValueHasher makes keyed hashes of field values, so events can say whether
// two submissions carried the same value without ever holding it.
type ValueHasher interface {
	HashValue(formID, field, value string) string
}

// StoredResponse is what a retried submission with the same Idempotency-Key
// gets back. It never holds submitted values: the echo is rebuilt from the
// retry itself, which the request hash proves identical.
type StoredResponse struct {
	RequestHash []byte
	Response    SubmissionResponse
	Redirect    string
}

// AcceptedSubmission is everything one accepted submission commits.
type AcceptedSubmission struct {
	FormID         string
	FormVersion    int
	IdempotencyKey string
	Metadata       Metadata
	Accepted       submission.Accepted
	Queued         []delivery.Queued
	Payload        SealedPayload
	Response       StoredResponse
}

// SubmissionStore commits accepted submissions durably.
type SubmissionStore interface {
	// Accept commits the submission, its queued deliveries and its sealed
	// payload in one transaction before it returns. When an earlier request
	// with the same Idempotency-Key committed first, it commits nothing and
	// returns that request's response. When the form changed since its
	// version was read, it commits nothing and returns domain.ErrConcurrency.
	Accept(ctx context.Context, s AcceptedSubmission) (*StoredResponse, error)
	// IdempotentResponse finds the response of an earlier request with the
	// same key; nil when there is none.
	IdempotentResponse(ctx context.Context, formID, key string) (*StoredResponse, error)
}

// Payload is the sealed content of an accepted submission: everything its
// deliveries need, captured when it was accepted.
type Payload struct {
	Fields         []submission.Field `json:"fields"`
	Recipient      string             `json:"recipient"`
	Subject        string             `json:"subject"`
	FromName       string             `json:"fromName"`
	ReplyTo        string             `json:"replyTo,omitempty"`
	CC             []string           `json:"cc,omitempty"`
	SubmitterEmail string             `json:"submitterEmail,omitempty"`
	Webhook        string             `json:"webhook,omitempty"`
	Autoresponder  *AutoresponderMail `json:"autoresponder,omitempty"`
	FormName       string             `json:"formName"`
}

// AutoresponderMail is the confirmation mail to the submitter.
type AutoresponderMail struct {
	Subject string `json:"subject"`
	Message string `json:"message"`
}

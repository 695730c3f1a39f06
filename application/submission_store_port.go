package application

import (
	"context"
	"time"

	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/submission"
)

// SubmissionForms finds the form a submission is routed to. It may answer
// from a short-lived cache unless fresh is set; the store re-checks the
// form's version when it commits, so a stale answer can never be committed.
type SubmissionForms interface {
	FormByAccessKey(ctx context.Context, accessKeyHash []byte, fresh bool) (FormRecord, error)
	// FormByID reads a form by its id, fresh: for a dry run its owner asks
	// for by id (the dashboard's playground), having no access key.
	FormByID(ctx context.Context, id string) (FormRecord, error)
}

// FormFloodLimits is a per-process first line of defence, like the per-IP
// limit: each form may be posted to at a sustained rate with a burst, so one
// noisy form cannot take a process's commits from the others. It is not a
// quota (those are counted in PostgreSQL): each process keeps its own.
type FormFloodLimits interface {
	// Allow takes a post for the form, or says how long to wait for one.
	Allow(formID string, now time.Time) (ok bool, retryAfter time.Duration)
}

// ValueHasher makes keyed hashes of field values, so events can say whether
// two submissions carried the same value without ever holding it.
type ValueHasher interface {
	HashValue(formID, field, value string) string
}

// SubmissionStore commits accepted submissions durably.
type SubmissionStore interface {
	// Accept commits the submission, its queued deliveries and its sealed
	// payload in one transaction before it returns. When an earlier request
	// with the same Idempotency-Key committed first, it commits nothing and
	// returns that request's response. When the form changed since its
	// version was read, it commits nothing and returns domain.ErrConcurrency.
	// It takes the autoresponder's slot in the same transaction.
	Accept(ctx context.Context, s AcceptedSubmission) (Acceptance, error)
	// IdempotentResponse finds the response of an earlier request with the
	// same key; nil when there is none.
	IdempotentResponse(ctx context.Context, formID, key string) (*StoredResponse, error)
}

// AcceptedSubmission is everything one accepted submission commits.
type AcceptedSubmission struct {
	FormID         string
	FormVersion    int
	IdempotencyKey string
	Metadata       Metadata
	Accepted       submission.Accepted
	Queued         []delivery.Queued
	// ClaimedUntil, when set, has the commit write the queued deliveries
	// claimed by this process until then, for its delivery workers to take
	// from the DeliveryHandOff rather than claim; the zero time leaves them
	// for any process to claim.
	ClaimedUntil time.Time
	Payload      SealedPayload
	// ArchiveUntil, when set, keeps Payload past the submission's final
	// delivery until then: the submissions archive of the form version
	// that judged it (form.Archive.KeepUntil). Zero: shredded once every
	// delivery is final.
	ArchiveUntil time.Time
	// HeldUntil, when set, holds the submission in its form's Spam folder
	// until then: Queued is empty (Accepted.Deliveries are queued only on
	// release), and the payload is shredded then if no one reviewed it.
	HeldUntil time.Time
	Response  StoredResponse
	// Charge is the quota the submission counts against; an empty
	// AccountID counts it against none.
	Charge QuotaCharge
	// Uploads are the upload keys the submission uses; the commit consumes
	// them all, or refuses the submission with UploadUnavailableError.
	Uploads []ConsumedUpload
	// Autoresponder is the slot the submission's autoresponder takes; zero
	// when the plan sends none.
	Autoresponder AutoresponderSlot
}

// AutoresponderSlot is an address's hourly autoresponder slot on a form.
// The commit takes it with the submission, so a refused submission holds
// none; when another request holds it, the commit leaves the autoresponder
// delivery out and says so (Acceptance.AutoresponderHeld).
type AutoresponderSlot struct {
	// AddressHash is a keyed hash of the submitter's address.
	AddressHash string
	// DeliveryID is the autoresponder delivery the slot lets the commit
	// queue.
	DeliveryID string
}

// Acceptance is what the commit of one submission did.
type Acceptance struct {
	// Prior is the response of an earlier request with the same
	// Idempotency-Key, which committed first; nothing of this one was
	// committed. Nil when this one committed.
	Prior *StoredResponse
	// AutoresponderHeld reports that the commit left the autoresponder
	// delivery out: another request holds the address's slot.
	AutoresponderHeld bool
}

// StoredResponse is what a retried submission with the same Idempotency-Key
// gets back. It never holds submitted values: the echo is rebuilt from the
// retry itself, which the request hash proves identical.
type StoredResponse struct {
	RequestHash []byte
	Response    SubmissionResponse
	Redirect    string
}

// QuotaCharge is what an accepted submission is counted against: its
// account's monthly quota, for the month it was accepted in, under the
// configured quotas of the plans (the store reads the account's plan in the
// commit, so a plan changed a moment ago applies at once).
type QuotaCharge struct {
	AccountID string
	Month     account.Month
	Quotas    account.Quotas
}

// QuotaExhaustedError is the store's refusal of a submission its account's
// quota has no room for: nothing of it was committed.
type QuotaExhaustedError struct {
	Usage account.Usage
}

func (e *QuotaExhaustedError) Error() string { return e.Usage.ExhaustedMessage() }

// UploadUnavailableError is the store's refusal of a submission naming an
// upload key that another submission consumed first, or that expired:
// nothing of it was committed.
type UploadUnavailableError struct{ Key string }

func (e *UploadUnavailableError) Error() string {
	return "upload key " + e.Key + " was used or expired"
}

// ConsumedUpload is an upload key a submission uses: its commit marks the
// reservation consumed, or the submission is refused (UploadUnavailableError).
type ConsumedUpload struct {
	Key    string
	FormID string
	// LinksExpire is when the object's download links expire.
	LinksExpire time.Time
}

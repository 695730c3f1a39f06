package application

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
)

// EraseBatch is how many archived submissions one transaction of an erasure
// by email shreds, so an erasure never holds one unbounded transaction.
const EraseBatch = 500

// ErrDeliveriesPending means a submission still has deliveries in progress:
// its payload is what they send, so it is erased once they are final.
var ErrDeliveriesPending = errors.New("the submission still has deliveries in progress")

// SubmissionEraser shreds archived submissions at an owner's request, the
// same way the retention sweep does: the payload row goes and
// submission.redacted is recorded on each.
type SubmissionEraser interface {
	// EraseArchivedSubmission shreds one archived submission of the form:
	// domain.ErrNotFound when the form has no such archived payload (never
	// archived, or already shredded), ErrDeliveriesPending while any of its
	// deliveries is not final.
	EraseArchivedSubmission(ctx context.Context, formID, submissionID string, now time.Time) error
	// EraseArchivedByValueHash shreds, in one transaction, up to limit
	// archived submissions of the form whose deliveries are all final and
	// whose value of field hashes to one of hashes, and returns how many.
	EraseArchivedByValueHash(ctx context.Context, formID, field string, hashes []string, limit int, now time.Time) (int, error)
	// PendingArchivedByValueHash counts the archived submissions that
	// EraseArchivedByValueHash leaves because deliveries are in progress.
	PendingArchivedByValueHash(ctx context.Context, formID, field string, hashes []string) (int, error)
}

// EveryKeyHasher hashes a value as ValueHasher does, under every configured
// secret key (current and old), so values hashed before a key rotation are
// found too.
type EveryKeyHasher interface {
	// HashValueUnderEveryKey returns the hash under the current key first.
	HashValueUnderEveryKey(formID, field, value string) []string
}

// EraseSubmission is DELETE /v1/forms/{formId}/submissions/{submissionId}.
type EraseSubmission struct {
	Caller       Session
	RequestID    string
	FormID       string
	SubmissionID string
}

// EraseSubmitter is POST /v1/forms/{formId}/submissions/erase.
type EraseSubmitter struct {
	Caller    Session
	RequestID string
	FormID    string
	Email     string
}

// Erasure is what an erasure did: how many submissions it shredded, and how
// many matching ones it left because their deliveries are in progress.
type Erasure struct {
	Erased  int
	Pending int
}

// EraseSubmissionsHandler is the right-to-erasure path of the submissions
// archive (docs/archive.md: Erasing submissions).
type EraseSubmissionsHandler struct {
	tx     Transactor
	read   FormReader
	eraser SubmissionEraser
	hasher EveryKeyHasher
	clock  Clock
}

// NewEraseSubmissionsHandler builds the handler; every dependency is required.
func NewEraseSubmissionsHandler(tx Transactor, read FormReader, eraser SubmissionEraser, hasher EveryKeyHasher, clock Clock) *EraseSubmissionsHandler {
	if tx == nil || read == nil || eraser == nil || hasher == nil || clock == nil {
		panic("application: nil dependency of EraseSubmissionsHandler")
	}
	return &EraseSubmissionsHandler{tx: tx, read: read, eraser: eraser, hasher: hasher, clock: clock}
}

// EraseOne shreds one archived submission and records the erasure in the
// form's audit trail.
func (h *EraseSubmissionsHandler) EraseOne(ctx context.Context, cmd EraseSubmission) (Erasure, error) {
	if err := cmd.Caller.Require(account.ScopeSubmissionsDelete); err != nil {
		return Erasure{}, err
	}
	rec, err := ownedForm(ctx, h.read, cmd.Caller, cmd.FormID)
	if err != nil {
		return Erasure{}, err
	}
	err = h.eraser.EraseArchivedSubmission(ctx, rec.ID, cmd.SubmissionID, h.clock.Now())
	if errors.Is(err, ErrDeliveriesPending) {
		return Erasure{}, &domain.ForbiddenError{Message: "This submission still has deliveries in progress, which send its data: " +
			"erase it once they are final (delivered or failed), usually within minutes."}
	}
	if err != nil {
		return Erasure{}, err
	}
	return Erasure{Erased: 1}, h.audit(ctx, cmd.Caller, cmd.RequestID, rec.ID, 1, form.ErasedByID, cmd.SubmissionID, "")
}

// EraseByEmail shreds every archived submission of the form whose submitter
// email (its email field) is email, batch by batch, and records the erasure
// in the form's audit trail with the address's keyed hash, never the address.
func (h *EraseSubmissionsHandler) EraseByEmail(ctx context.Context, cmd EraseSubmitter) (Erasure, error) {
	if err := cmd.Caller.Require(account.ScopeSubmissionsDelete); err != nil {
		return Erasure{}, err
	}
	email := strings.TrimSpace(cmd.Email)
	if !domain.IsEmailAddress(email) {
		return Erasure{}, domain.Invalid("email", "email must be an email address")
	}
	rec, err := ownedForm(ctx, h.read, cmd.Caller, cmd.FormID)
	if err != nil {
		return Erasure{}, err
	}
	hashes := valueHashesOf(h.hasher, rec.ID, submission.FieldEmail, email)
	current := h.hasher.HashValueUnderEveryKey(rec.ID, submission.FieldEmail, email)[0]
	var out Erasure
	for {
		n, err := h.eraser.EraseArchivedByValueHash(ctx, rec.ID, submission.FieldEmail, hashes, EraseBatch, h.clock.Now())
		out.Erased += n
		if err != nil {
			// The batches committed before stay erased: the trail says so.
			if out.Erased > 0 {
				err = errors.Join(err, h.audit(ctx, cmd.Caller, cmd.RequestID, rec.ID, out.Erased, form.ErasedByEmail, "", current))
			}
			return out, err
		}
		if n < EraseBatch {
			break
		}
	}
	if out.Pending, err = h.eraser.PendingArchivedByValueHash(ctx, rec.ID, submission.FieldEmail, hashes); err != nil {
		return out, err
	}
	return out, h.audit(ctx, cmd.Caller, cmd.RequestID, rec.ID, out.Erased, form.ErasedByEmail, "", current)
}

func (h *EraseSubmissionsHandler) audit(ctx context.Context, caller Session, requestID, formID string, count int, by, submissionID, emailHash string) error {
	return h.tx.InTx(ctx, metadataFor(caller, requestID), func(tx Tx) error {
		f, err := tx.LoadForm(ctx, formID)
		if err != nil {
			return err
		}
		if err := f.RecordSubmissionsErased(count, by, submissionID, emailHash, h.clock.Now()); err != nil {
			return err
		}
		return tx.SaveForm(ctx, f)
	})
}

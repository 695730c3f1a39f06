package application

import (
	"context"
	"time"

	"github.com/formd/formd/domain/delivery"
)

// SpamFolder keeps the submissions the spam gate held in hold mode
// (docs/spam.md: The Spam folder): each with its sealed payload and no
// delivery queued, until the owner reviews it or its hold ends.
type SpamFolder interface {
	// HeldPage lists the form's held submissions newest first (held, then
	// id, descending), after the cursor when there is one, at most limit.
	HeldPage(ctx context.Context, formID string, after *ArchiveCursor, limit int) ([]HeldSubmission, error)
	// HeldCount counts the form's held submissions.
	HeldCount(ctx context.Context, formID string) (int, error)
	// HeldSubmission finds one held submission of the form;
	// domain.ErrNotFound when it is not held (never was, or was reviewed
	// or shredded since).
	HeldSubmission(ctx context.Context, formID, submissionID string) (HeldSubmission, error)
	// Release queues a held submission's planned deliveries (those its
	// submission.accepted names), due now, and ends its hold; its payload
	// is then kept as any accepted one's: until its deliveries are final,
	// or until archiveUntil when that is set. It returns what it queued;
	// domain.ErrNotFound when the submission is not held.
	Release(ctx context.Context, formID, submissionID string, archiveUntil, now time.Time) ([]delivery.Queued, error)
	// ShredHeld shreds a held submission's payload now and records
	// submission.redacted; domain.ErrNotFound when it is not held.
	ShredHeld(ctx context.Context, formID, submissionID string, now time.Time) error
	ExpiredHeldSpam
}

// ExpiredHeldSpam is the Spam folder as its sweep sees it.
type ExpiredHeldSpam interface {
	// ShredExpiredHeld shreds, in one transaction, up to limit held
	// submissions whose hold ended before now, and returns how many.
	ShredExpiredHeld(ctx context.Context, now time.Time, limit int) (int, error)
}

// HeldSubmission is what the Spam folder holds of one submission.
type HeldSubmission struct {
	SubmissionID string
	RequestID    string
	// FormVersion is the version of the form whose settings held it.
	FormVersion int
	FieldNames  []string
	HeldAt      time.Time
	// Until is when its hold ends and it is shredded unreviewed.
	Until  time.Time
	Sealed SealedPayload
}

package application

import (
	"context"
	"time"
)

// SubmissionArchive reads the archived submissions of a form: those
// accepted while its archive was on whose retention has not ended
// (docs/archive.md). It returns their payloads sealed; the caller opens only
// those it shows.
type SubmissionArchive interface {
	// ArchivedPage lists the form's archived submissions that match the
	// filter, newest first (accepted, then id, descending), or oldest first
	// with f.OldestFirst, at most f.Limit of them.
	ArchivedPage(ctx context.Context, formID string, f ArchiveFilter) ([]ArchivedSubmission, error)
	// ArchivedFieldNames lists the field names of the form's archived
	// submissions that match the filter (its After and Limit aside), each
	// once, in the order they first appear oldest first: the columns of an
	// export, known before its first row without opening anything.
	ArchivedFieldNames(ctx context.Context, formID string, f ArchiveFilter) ([]string, error)
	// ArchivedSubmission finds one archived submission of the form;
	// domain.ErrNotFound when the form has no such archived submission
	// (never archived, or shredded).
	ArchivedSubmission(ctx context.Context, formID, submissionID string) (ArchivedSubmission, error)
}

// Delivery states of an archived submission, as a whole.
const (
	// ArchivedPending: some delivery is queued or retrying.
	ArchivedPending = "pending"
	// ArchivedDelivered: every delivery succeeded (or there was none).
	ArchivedDelivered = "delivered"
	// ArchivedFailed: every delivery is final and at least one failed.
	ArchivedFailed = "failed"
)

// ArchiveFilter narrows the archived submissions a read returns.
type ArchiveFilter struct {
	// From and To bound when a submission was accepted: From <= at < To;
	// either may be zero (unbounded).
	From, To time.Time
	// Status is ArchivedPending, ArchivedDelivered or ArchivedFailed; empty
	// means any.
	Status string
	// Values are matched all together: each names a field and the keyed
	// hashes its value may have.
	Values []ValueMatch
	// OldestFirst runs the pages oldest first (accepted, then id,
	// ascending); After is then the last submission of the page before in
	// that order.
	OldestFirst bool
	After       *ArchiveCursor
	Limit       int
}

// ValueMatch matches a submission whose value of Field hashes to one of
// Hashes (the same value under every configured key, and in other cases
// where the filter allows them).
type ValueMatch struct {
	Field  string
	Hashes []string
}

// ArchiveCursor is the position after which a page of the archive starts:
// the last submission of the page before.
type ArchiveCursor struct {
	At time.Time
	ID string
}

// ArchivedSubmission is what the archive holds of one submission.
type ArchivedSubmission struct {
	SubmissionID string
	RequestID    string
	// FormVersion is the version of the form that judged it; 0 when not
	// recorded.
	FormVersion int
	FieldNames  []string
	AcceptedAt  time.Time
	// Until is when its retention ends and it is shredded.
	Until  time.Time
	Status string
	Sealed SealedPayload
}

// SubmissionAccessLog records every read of the submissions archive: one
// record per request, whatever the number of submissions it returns.
type SubmissionAccessLog interface {
	// RecordAccess stores the access and returns its id.
	RecordAccess(ctx context.Context, a SubmissionAccess) (int64, error)
	// CountAccess sets how many submissions an access returned, for an
	// export, whose count is known only at its end.
	CountAccess(ctx context.Context, id int64, count int) error
	// FormAccesses lists the form's accesses, newest first, at most limit.
	FormAccesses(ctx context.Context, formID string, limit int) ([]SubmissionAccess, error)
}

// What an access to the archive did.
const (
	AccessList   = "list"
	AccessRead   = "read"
	AccessExport = "export"
)

// SubmissionAccess is one read of a form's archived submissions.
type SubmissionAccess struct {
	FormID string
	// Action is AccessList, AccessRead or AccessExport.
	Action string
	// SubmissionID is the submission read (AccessRead).
	SubmissionID string
	// Filters are the filters of a list or an export, by query parameter; a
	// filter by value holds the value's keyed hash, never the value.
	Filters map[string]string
	// Count is how many submissions it returned; nil while an export runs
	// (or when it stopped before its end).
	Count     *int
	Actor     Actor
	RequestID string
	At        time.Time
}

package application

import (
	"context"
	"errors"
	"time"

	"github.com/formd/formd/domain/delivery"
)

// DeliveryLog reads the delivery log and re-queues failed deliveries.
type DeliveryLog interface {
	// FormDeliveries lists a form's deliveries newest first (created, then
	// id, descending), after the cursor when one is given, of the stored
	// kinds in the filter (all when empty) and the state when one is given;
	// at most limit of them. Deliveries of kinds the log never shows
	// (delivery.Listed) are left out.
	FormDeliveries(ctx context.Context, formID string, f DeliveryFilter) ([]DeliveryRecord, error)
	// SubmissionDeliveries lists a submission's deliveries, oldest first.
	SubmissionDeliveries(ctx context.Context, submissionID string) ([]DeliveryRecord, error)
	// DeliveryByID finds one delivery with the account its form belongs to.
	DeliveryByID(ctx context.Context, id string) (DeliveryRecord, error)
	// Requeue appends the retry event to the delivery's stream and makes
	// the delivery due at once, in one transaction. It refuses with
	// domain.ErrConcurrency a delivery no longer failed (a retry raced it),
	// and with ErrPayloadDeleted a submission's delivery whose sealed
	// payload was shredded meanwhile.
	Requeue(ctx context.Context, rec DeliveryRecord, e delivery.RetryRequested, md Metadata) (DeliveryRecord, error)
}

// DeliveryRecord is what the delivery log knows of one delivery. Target is
// the safe form of where it goes (a domain or a host), never an address.
type DeliveryRecord struct {
	ID             string
	AccountID      string
	WorkspaceID    string
	FormID         string
	SubmissionID   string
	VerificationID string
	// Kind is the stored kind (delivery.PublicKind names it for callers).
	Kind          string
	Target        string
	State         string
	Attempts      int
	Retries       int
	LastError     string
	NextAttemptAt *time.Time
	CreatedAt     time.Time
	FinishedAt    *time.Time
	// PayloadKept says whether the submission's sealed payload still exists.
	PayloadKept bool
	// SpamCheck is what the content classifier's check of the submission
	// came to (submission.SpamCheckChecked or SpamCheckUnavailable, as its
	// submission.accepted recorded); blank when none was asked or the
	// delivery is not a submission's.
	SpamCheck string
	// Note says why a routed submission's notification went to the
	// primary recipient (a matched rule's recipient is not verified);
	// blank for every other delivery.
	Note string
}

// DeliveryCursor is the position after which a page of the log starts: the
// last delivery of the page before.
type DeliveryCursor struct {
	CreatedAt time.Time
	ID        string
}

// DeliveryFilter narrows a page of the delivery log.
type DeliveryFilter struct {
	// Kinds are stored kinds; empty means every listed kind.
	Kinds []string
	State string
	After *DeliveryCursor
	Limit int
}

// FailedPayloadRetention is how long a submission with a failed delivery
// keeps its sealed payload so the delivery can be retried.
type FailedPayloadRetention time.Duration

// ErrPayloadDeleted means a retry came after the submission's sealed payload
// was shredded; the retry use case turns it into a message with the retention.
var ErrPayloadDeleted = errors.New("the submission's payload was deleted")

package postgres

import (
	"context"
	"errors"
	"time"

	wsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"

	"github.com/formd/formd/domain/delivery"
)

// DeliveryQueue implements application.DeliveryQueue: the deliveries table,
// written in the transaction of the Watermill message being handled.
type DeliveryQueue struct{}

// NewDeliveryQueue builds the queue.
func NewDeliveryQueue() *DeliveryQueue { return &DeliveryQueue{} }

// Queue implements application.DeliveryQueue. It finds the transaction that
// acknowledges the message on ctx (watermill-sql puts it there), so the
// delivery is queued if and only if the message is acknowledged.
func (DeliveryQueue) Queue(ctx context.Context, q delivery.Queued) error {
	tx, ok := wsql.TxFromContext(ctx)
	if !ok {
		return errors.New("queueing a delivery needs the transaction of the message being handled")
	}
	return queueDelivery(ctx, tx, q)
}

// queueDelivery projects a delivery.queued event into the deliveries table,
// due at once, in the transaction that acknowledges the event (ex). The
// NOTIFY wakes idle delivery workers when that transaction commits.
func queueDelivery(ctx context.Context, ex Execer, q delivery.Queued) error {
	var rows queuedRows
	rows.add(q, time.Time{})
	// One statement, one round trip: the insert and the wake-up.
	_, err := ex.ExecContext(ctx, `WITH queued AS (`+insertQueued+`) SELECT pg_notify($11, $12)`,
		append(rows.args(), NotifyChannel, DeliveriesDue)...)
	return err
}

// insertNewDeliveries writes queued deliveries ($1-$10: queuedRows.args),
// due when they were queued, each unclaimed or claimed until a time by the
// claimant, $10 (a submission's deliveries that its commit hands to this
// process's workers: application.DeliveryHandOff). The group commit writes
// a batch's deliveries with it: their ids are new, so it takes no
// ON CONFLICT, whose speculative insertion would be a sizeable share of the
// statement's cost (an existing id fails the commit instead).
// Its arrays are unnested in the select list, as the events' are
// (EventStore.appendBatch).
const insertNewDeliveries = `
	INSERT INTO deliveries (id, submission_id, form_id, verification_id, kind, target, test, status, attempts, next_attempt_at,
	                        updated_at, created_at, claimed_until, claimed_by)
	SELECT d.id, NULLIF(d.sub, '')::uuid, NULLIF(d.form, '')::uuid, NULLIF(d.ver, '')::uuid, d.kind, d.target, d.test,
	       'queued', 0, d.at, d.at, d.at, d.until, CASE WHEN d.until IS NOT NULL THEN NULLIF($10::text, '')::uuid END
	FROM (SELECT unnest($1::uuid[]) AS id, unnest($2::text[]) AS sub, unnest($3::text[]) AS form, unnest($4::text[]) AS ver,
	             unnest($5::text[]) AS kind, unnest($6::text[]) AS target, unnest($7::bool[]) AS test,
	             unnest($8::timestamptz[]) AS at, unnest($9::timestamptz[]) AS until) AS d`

// insertQueued is insertNewDeliveries for the delivery queue's consumer,
// which writes the deliveries of delivery.queued events one at a time: one
// already written (a message handled twice) is left as it is.
const insertQueued = insertNewDeliveries + `
	ON CONFLICT (id) DO NOTHING`

// queuedRows are queued deliveries as the columns insertNewDeliveries and
// insertQueued take.
type queuedRows struct {
	ids, subs, forms, vers, kinds, targets []string
	tests                                  []bool
	at                                     []time.Time
	claimedUntil                           []*time.Time
	// claimant is the process the claimed rows are claimed by.
	claimant string
	// unclaimed counts the rows no process claims: the delivery workers
	// must be woken for them.
	unclaimed int
}

// add adds q, claimed by the claimant until until (no claim: the zero time).
func (r *queuedRows) add(q delivery.Queued, until time.Time) {
	r.ids, r.subs, r.forms, r.vers = append(r.ids, q.DeliveryID), append(r.subs, q.SubmissionID), append(r.forms, q.FormID), append(r.vers, q.VerificationID)
	r.kinds, r.targets = append(r.kinds, q.Kind), append(r.targets, q.Target)
	r.tests, r.at = append(r.tests, q.Test), append(r.at, q.At)
	var claimed *time.Time
	if !until.IsZero() {
		claimed = &until
	} else {
		r.unclaimed++
	}
	r.claimedUntil = append(r.claimedUntil, claimed)
}

func (r queuedRows) args() []any {
	return []any{r.ids, r.subs, r.forms, r.vers, r.kinds, r.targets, r.tests, r.at, r.claimedUntil, r.claimant}
}

// DeliveriesDue is the NOTIFY payload that wakes idle delivery workers.
const DeliveriesDue = "deliveries-due"

// Execer is the statement side of a Watermill SQL transaction.
type Execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (wsql.Result, error)
}

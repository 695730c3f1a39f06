package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/formd/formd/domain/account"
)

// SubmissionsByForm implements application.SubmissionCounts from the delivery
// log: a live submission queues at least its notification mail (live forms
// have a verified recipient), so the submissions a form's deliveries belong
// to are the submissions it accepted. Test deliveries and verification mails
// belong to no submission. The deliveries_log index (form_id, created_at)
// serves it without reading the event store, and /submit writes nothing more.
// The delivery-queue consumer group fills the log moments after a commit, so
// a submission accepted a moment ago may not be counted yet.
func (r *ReadModel) SubmissionsByForm(ctx context.Context, accountID string, month account.Month) (map[string]int, error) {
	rows, err := r.pool.Query(ctx, `
		SELECT d.form_id::text, count(DISTINCT d.submission_id)
		FROM deliveries d
		WHERE d.form_id IN (SELECT id FROM forms WHERE account_id = $1)
		  AND d.created_at >= $2 AND d.created_at < $3
		  AND d.submission_id IS NOT NULL
		GROUP BY d.form_id`, accountID, month.Start(), month.Start().AddDate(0, 1, 0))
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	var formID string
	var n int
	_, err = pgx.ForEachRow(rows, []any{&formID, &n}, func() error {
		out[formID] = n
		return nil
	})
	return out, err
}

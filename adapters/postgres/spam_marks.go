package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/form"
)

// KeptPayload implements application.SpamMarks: the payload row of the
// form's submission, whatever keeps it (held, archived or pending
// deliveries); a shredded payload has no row.
func (d *DeliveryStore) KeptPayload(ctx context.Context, formID, submissionID string) (application.SealedPayload, error) {
	var p application.SealedPayload
	if !isUUID(formID) || !isUUID(submissionID) {
		return p, domain.ErrNotFound
	}
	err := d.pool.QueryRow(ctx, `SELECT key_id, wrapped_key, ciphertext FROM submission_payloads
		WHERE submission_id = $1 AND form_id = $2`, submissionID, formID).Scan(&p.KeyID, &p.WrappedKey, &p.Ciphertext)
	if errors.Is(err, pgx.ErrNoRows) {
		return p, domain.ErrNotFound
	}
	return p, err
}

// ReviewedAsSpam implements application.SpamMarks from the form's own
// stream (its primary key's prefix), which holds every review of it.
func (d *DeliveryStore) ReviewedAsSpam(ctx context.Context, formID, submissionID string) (bool, error) {
	if !isUUID(formID) {
		return false, nil
	}
	var found bool
	err := d.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM events WHERE stream_id = $1 AND event_type = $2
		AND data->>'submissionId' = $3 AND data->>'verdict' = $4)`, formID, form.SpamReviewedType, submissionID, form.ReviewedSpam).Scan(&found)
	return found, err
}

package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/formd/formd/application"
)

// A submission consumes the upload keys it names in its commit, so a key
// serves one submission, and a refused submission's keys stay free.

// uploadConsumptions are the upload keys of the live submissions of a
// group commit, each with its submission.
type uploadConsumptions struct {
	keys, forms, submissions []string
	linksExpire              []time.Time
}

func uploadConsumptionsOf(batch []*pendingSubmission, live []bool) uploadConsumptions {
	var c uploadConsumptions
	for i, p := range batch {
		if !live[i] {
			continue
		}
		for _, up := range p.sub.Uploads {
			c.keys, c.forms = append(c.keys, up.Key), append(c.forms, up.FormID)
			c.submissions = append(c.submissions, p.sub.Accepted.SubmissionID)
			c.linksExpire = append(c.linksExpire, up.LinksExpire)
		}
	}
	return c
}

const consumeUploads = `SELECT formd_consume_uploads($1::text[], $2::uuid[], $3::uuid[], $4::timestamptz[], $5)`

// queue adds the consumption of every key to a pipelined group commit: one
// key that is not available, or that two submissions name, fails it, and
// the careful path answers each submission.
func (c uploadConsumptions) queue(b *pgx.Batch, now time.Time) {
	if len(c.keys) > 0 {
		b.Queue(consumeUploads, c.keys, c.forms, c.submissions, c.linksExpire, now)
	}
}

// consumeUploads consumes the live submissions' upload keys in tx, one
// submission at a time under a savepoint: a submission naming a key that
// is not available (another submission consumed it first, it expired, or
// it was never scanned clean) takes no part in the commit and is answered
// with UploadUnavailableError.
func (s *SubmissionStore) consumeUploads(ctx context.Context, tx pgx.Tx, batch []*pendingSubmission, live []bool, results []acceptResult) error {
	now := time.Now().UTC()
	for i, p := range batch {
		if !live[i] || len(p.sub.Uploads) == 0 {
			continue
		}
		one := make([]bool, len(batch))
		one[i] = true
		c := uploadConsumptionsOf(batch, one)
		err := pgx.BeginFunc(ctx, tx, func(sp pgx.Tx) error {
			_, err := sp.Exec(ctx, consumeUploads, c.keys, c.forms, c.submissions, c.linksExpire, now)
			return err
		})
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "FD003" {
			live[i] = false
			results[i] = acceptResult{err: &application.UploadUnavailableError{Key: pgErr.Detail}}
			continue
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// releaseUploads gives back the upload keys that submissions consumed in
// tx before they were refused.
func releaseUploads(ctx context.Context, tx pgx.Tx, submissionIDs []string) error {
	if len(submissionIDs) == 0 {
		return nil
	}
	_, err := tx.Exec(ctx, `UPDATE upload_reservations SET consumed_by = NULL, consumed_at = NULL, links_expire = NULL
		WHERE consumed_by = ANY($1::uuid[])`, submissionIDs)
	return err
}

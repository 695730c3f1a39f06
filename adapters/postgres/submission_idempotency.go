package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/formd/formd/application"
)

// Idempotency-Keys: a retried submission with the key of one already
// committed commits nothing and gets the first one's response. Keys are
// claimed in the commit transaction, so two concurrent retries cannot both
// commit.

// markTwins takes out of the commit every live submission whose
// Idempotency-Key an earlier one of the batch already carries.
func markTwins(batch []*pendingSubmission, live []bool) []int {
	var twins []int
	seen := map[[2]string]bool{}
	for i, p := range batch {
		if !live[i] || p.sub.IdempotencyKey == "" {
			continue
		}
		k := [2]string{p.sub.FormID, p.sub.IdempotencyKey}
		if seen[k] {
			live[i] = false
			twins = append(twins, i)
		}
		seen[k] = true
	}
	return twins
}

// answerTwins answers each twin with the response stored under its key, or
// with its original's refusal when the original was refused: no response
// was stored under the key then.
func (s *SubmissionStore) answerTwins(ctx context.Context, batch []*pendingSubmission, twins []int, results []acceptResult) []acceptResult {
	for _, i := range twins {
		if refused, ok := originalRefusal(batch, results, i); ok {
			results[i] = refused
			continue
		}
		prior, err := s.IdempotentResponse(ctx, batch[i].sub.FormID, batch[i].sub.IdempotencyKey)
		if err == nil && prior == nil {
			err = errors.New("idempotency key vanished")
		}
		results[i] = acceptResult{prior: prior, err: err}
	}
	return results
}

// originalRefusal is the refusal of the earlier submission of the batch
// with twin's Idempotency-Key, if it was refused.
func originalRefusal(batch []*pendingSubmission, results []acceptResult, twin int) (acceptResult, bool) {
	for j := range twin {
		if batch[j].sub.FormID == batch[twin].sub.FormID && batch[j].sub.IdempotencyKey == batch[twin].sub.IdempotencyKey &&
			results[j].err != nil {
			return results[j], true
		}
	}
	return acceptResult{}, false
}

// keyRows are the Idempotency-Key rows of the live keyed submissions.
type keyRows struct {
	idx                    []int
	forms, keys, redirects []string
	hashes, responses      [][]byte
}

func keyRowsOf(batch []*pendingSubmission, live []bool) (keyRows, error) {
	var k keyRows
	for i, p := range batch {
		if !live[i] || p.sub.IdempotencyKey == "" {
			continue
		}
		resp, err := encodeStoredResponse(p.sub.Response.Response)
		if err != nil {
			return k, err
		}
		k.idx = append(k.idx, i)
		k.forms, k.keys, k.redirects = append(k.forms, p.sub.FormID), append(k.keys, p.sub.IdempotencyKey), append(k.redirects, p.sub.Response.Redirect)
		k.hashes, k.responses = append(k.hashes, p.sub.Response.RequestHash), append(k.responses, resp)
	}
	return k, nil
}

// insertKeys inserts keyRows.args(); the careful path adds ON CONFLICT.
const insertKeys = `INSERT INTO idempotency_keys (form_id, key, request_hash, response, redirect)
	SELECT * FROM unnest($1::uuid[], $2::text[], $3::bytea[], $4::jsonb[], $5::text[])`

func (k keyRows) args() []any { return []any{k.forms, k.keys, k.hashes, k.responses, k.redirects} }

// claimIdempotencyKeys inserts the keys of live submissions; one whose key is
// already stored (by an earlier or a concurrent request) commits nothing and
// is returned, to be answered with the stored response.
func (s *SubmissionStore) claimIdempotencyKeys(ctx context.Context, tx pgx.Tx, batch []*pendingSubmission, live []bool) ([]int, error) {
	k, err := keyRowsOf(batch, live)
	if err != nil || len(k.idx) == 0 {
		return nil, err
	}
	rows, err := tx.Query(ctx, insertKeys+` ON CONFLICT DO NOTHING RETURNING form_id::text, key`, k.args()...)
	if err != nil {
		return nil, err
	}
	claimed := map[[2]string]bool{}
	var f, key string
	if _, err := pgx.ForEachRow(rows, []any{&f, &key}, func() error { claimed[[2]string{f, key}] = true; return nil }); err != nil {
		return nil, err
	}
	var lost []int
	for n, i := range k.idx {
		if !claimed[[2]string{k.forms[n], k.keys[n]}] {
			live[i] = false
			lost = append(lost, i)
		}
	}
	return lost, nil
}

// IdempotentResponse implements application.SubmissionStore. Keys are kept
// for IdempotencyRetention; older ones are pruned and no longer answer.
func (s *SubmissionStore) IdempotentResponse(ctx context.Context, formID, key string) (*application.StoredResponse, error) {
	var out application.StoredResponse
	var resp []byte
	err := s.pool.QueryRow(ctx, `SELECT request_hash, response, redirect FROM idempotency_keys
		WHERE form_id = $1 AND key = $2 AND created_at > now() - $3::interval`, formID, key, IdempotencyRetention.String()).
		Scan(&out.RequestHash, &resp, &out.Redirect)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out.Response, err = decodeStoredResponse(resp)
	return &out, err
}

// IdempotencyRetention is how long an Idempotency-Key answers retries.
const IdempotencyRetention = 48 * time.Hour

// PruneIdempotencyKeys deletes keys older than IdempotencyRetention.
func PruneIdempotencyKeys(ctx context.Context, pool *pgxpool.Pool) (int64, error) {
	tag, err := pool.Exec(ctx, `DELETE FROM idempotency_keys WHERE created_at < now() - $1::interval`, IdempotencyRetention.String())
	return tag.RowsAffected(), err
}

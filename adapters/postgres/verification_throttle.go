package postgres

import (
	"context"
	"crypto/sha256"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/formd/formd/domain/verification"
)

// throttleKey names what a throttle counts for (an address, an account) as
// the key of its throttle_keys row; an address is hashed, so the table
// holds no addresses.
func throttleKey(kind, value string) []byte {
	sum := sha256.Sum256([]byte(kind + ":" + value))
	return sum[:]
}

// lockThrottleKeys writes the rows of keys (in one order, so two
// transactions cannot wait for each other) before a throttle counts: a
// concurrent transaction for the same key waits for this one, then fails to
// serialize (REPEATABLE READ) and is run again by InTx on a snapshot that
// sees what this one recorded.
func (u *unitOfWork) lockThrottleKeys(ctx context.Context, keys ...[]byte) error {
	slices.SortFunc(keys, func(a, b []byte) int { return strings.Compare(string(a), string(b)) })
	for _, k := range keys {
		if _, err := u.tx.Exec(ctx, `INSERT INTO throttle_keys (key, touched_at) VALUES ($1, $2)
			ON CONFLICT (key) DO UPDATE SET touched_at = EXCLUDED.touched_at`, k, u.now); err != nil {
			return err
		}
	}
	return nil
}

// RecentVerificationRequests implements application.Tx.
func (u *unitOfWork) RecentVerificationRequests(ctx context.Context, kind verification.Kind, subjectID, accountID, email string, since time.Time) (verification.RecentRequests, error) {
	var r verification.RecentRequests
	if err := u.lockThrottleKeys(ctx, throttleKey("address", strings.ToLower(email)), throttleKey("account", accountID)); err != nil {
		return r, err
	}
	rows, err := u.tx.Query(ctx, `SELECT created_at, subject_id = $2 AND kind = $3, lower(email) = lower($1),
			COALESCE(kind = $3 AND account_id = NULLIF($4, '')::uuid, false)
		FROM verifications
		WHERE created_at > $5 AND (lower(email) = lower($1) OR (subject_id = $2 AND kind = $3)
			OR (kind = $3 AND account_id = NULLIF($4, '')::uuid))`,
		email, subjectID, string(kind), accountID, since)
	if err != nil {
		return r, err
	}
	defer rows.Close()
	for rows.Next() {
		var at time.Time
		var ofSubject, toAddress, byAccount bool
		if err := rows.Scan(&at, &ofSubject, &toAddress, &byAccount); err != nil {
			return r, err
		}
		if ofSubject {
			r.ForSubject = append(r.ForSubject, at)
		}
		if toAddress {
			r.ForAddress = append(r.ForAddress, at)
		}
		if byAccount {
			r.ForAccount = append(r.ForAccount, at)
		}
	}
	return r, rows.Err()
}

// PasswordResetRequests implements application.Tx.
func (u *unitOfWork) PasswordResetRequests(ctx context.Context, email string, since time.Time) ([]time.Time, error) {
	key := throttleKey("reset", strings.ToLower(email))
	if err := u.lockThrottleKeys(ctx, key); err != nil {
		return nil, err
	}
	rows, err := u.tx.Query(ctx, `SELECT requested_at FROM password_reset_requests WHERE address_hash = $1 AND requested_at > $2`, key, since)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []time.Time
	for rows.Next() {
		var at time.Time
		if err := rows.Scan(&at); err != nil {
			return nil, err
		}
		out = append(out, at)
	}
	return out, rows.Err()
}

// RecordPasswordResetRequest implements application.Tx; it deletes the
// address's requests too old to count (PruneThrottles, those of others).
func (u *unitOfWork) RecordPasswordResetRequest(ctx context.Context, email string, at time.Time) error {
	key := throttleKey("reset", strings.ToLower(email))
	if _, err := u.tx.Exec(ctx, `DELETE FROM password_reset_requests WHERE address_hash = $1 AND requested_at < $2`,
		key, at.Add(-verification.ResetRequestLookback)); err != nil {
		return err
	}
	_, err := u.tx.Exec(ctx, `INSERT INTO password_reset_requests (address_hash, requested_at) VALUES ($1, $2)`, key, at)
	return err
}

// PruneThrottles deletes the password reset requests too old to count and
// the throttle keys no request touched for as long.
func PruneThrottles(ctx context.Context, pool *pgxpool.Pool, now time.Time) error {
	before := now.Add(-verification.ResetRequestLookback)
	if _, err := pool.Exec(ctx, `DELETE FROM password_reset_requests WHERE requested_at < $1`, before); err != nil {
		return err
	}
	_, err := pool.Exec(ctx, `DELETE FROM throttle_keys WHERE touched_at < $1`, before)
	return err
}

package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
)

// UploadReservations implements application.UploadReservations on the
// upload_reservations table.
type UploadReservations struct{ pool *pgxpool.Pool }

// NewUploadReservations builds the store on pool.
func NewUploadReservations(pool *pgxpool.Pool) *UploadReservations {
	return &UploadReservations{pool: pool}
}

// Reserve implements application.UploadReservations.
func (u *UploadReservations) Reserve(ctx context.Context, r application.UploadReservation) error {
	_, err := u.pool.Exec(ctx, `INSERT INTO upload_reservations (key, form_id, name, declared_type, size, reserved_at, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`, r.Key, r.FormID, r.Name, r.DeclaredType, r.Size, r.ReservedAt, r.ExpiresAt)
	return err
}

// Reservation implements application.UploadReservations.
func (u *UploadReservations) Reservation(ctx context.Context, key string) (application.UploadReservation, error) {
	var r application.UploadReservation
	var uploaded, linksExpire *time.Time
	var storedSize *int64
	var consumedBy *string
	err := u.pool.QueryRow(ctx, `SELECT key, form_id::text, name, declared_type, size, reserved_at, expires_at, uploaded_at,
			scan, signature, detected, stored_size, consumed_by::text, links_expire
		FROM upload_reservations WHERE key = $1`, key).
		Scan(&r.Key, &r.FormID, &r.Name, &r.DeclaredType, &r.Size, &r.ReservedAt, &r.ExpiresAt, &uploaded,
			&r.Scan, &r.Signature, &r.Detected, &storedSize, &consumedBy, &linksExpire)
	if errors.Is(err, pgx.ErrNoRows) {
		return application.UploadReservation{}, domain.ErrNotFound
	}
	if err != nil {
		return application.UploadReservation{}, err
	}
	if uploaded != nil {
		r.UploadedAt = *uploaded
	}
	if storedSize != nil {
		r.StoredSize = *storedSize
	}
	if consumedBy != nil {
		r.ConsumedBy = *consumedBy
	}
	if linksExpire != nil {
		r.LinksExpire = *linksExpire
	}
	return r, nil
}

// RecordUpload implements application.UploadReservations.
func (u *UploadReservations) RecordUpload(ctx context.Context, key string, size int64, at time.Time) error {
	tag, err := u.pool.Exec(ctx, `UPDATE upload_reservations SET uploaded_at = $3, stored_size = $2, scan = '', signature = '',
			detected = '{}', scanned_at = NULL
		WHERE key = $1 AND consumed_by IS NULL AND expires_at > $3`, key, size, at)
	if err == nil && tag.RowsAffected() == 0 {
		return domain.ErrNotFound
	}
	return err
}

// RecordScan implements application.UploadReservations.
func (u *UploadReservations) RecordScan(ctx context.Context, key string, s application.ObjectScan) error {
	state, signature := application.ScanStateClean, ""
	if s.Verdict.Infected {
		state, signature = application.ScanStateInfected, s.Verdict.Signature
	}
	detected := s.Detected
	if detected == nil {
		detected = []string{}
	}
	_, err := u.pool.Exec(ctx, `UPDATE upload_reservations SET scan = $2, signature = $3, detected = $4, stored_size = $5, scanned_at = $6
		WHERE key = $1 AND consumed_by IS NULL`, key, state, signature, detected, s.Size, s.At)
	return err
}

// DueForCleanup implements application.UploadReservations: unused keys
// that expired, and used ones whose links expired and whose submission's
// payload is gone (every delivery final, or shredded after its retention).
func (u *UploadReservations) DueForCleanup(ctx context.Context, now time.Time, limit int) ([]string, error) {
	rows, err := u.pool.Query(ctx, `
		(SELECT key FROM upload_reservations WHERE consumed_by IS NULL AND expires_at <= $1 ORDER BY expires_at LIMIT $2)
		UNION ALL
		(SELECT r.key FROM upload_reservations r
		  WHERE r.consumed_by IS NOT NULL AND r.links_expire <= $1
		    AND NOT EXISTS (SELECT 1 FROM submission_payloads p WHERE p.submission_id = r.consumed_by)
		  ORDER BY r.links_expire LIMIT $2)`, now, limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// Forget implements application.UploadReservations.
func (u *UploadReservations) Forget(ctx context.Context, key string) error {
	_, err := u.pool.Exec(ctx, `DELETE FROM upload_reservations WHERE key = $1`, key)
	return err
}

package postgres

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/formd/formd/application"
)

// SealedRecords implements application.SealedRecords over every table that
// holds sealed data.
type SealedRecords struct {
	pool      *pgxpool.Pool
	batchRows int
	// batchBytes bounds the ciphertext a batch reads: a payload with
	// attachments runs to tens of MiB, and a batch holds each one twice
	// (opened and sealed again).
	batchBytes int64
}

// NewSealedRecords builds the store with batches of at most 100 records
// and 64 MiB of ciphertext (at least one record, whatever its size).
func NewSealedRecords(pool *pgxpool.Pool) *SealedRecords {
	return &SealedRecords{pool: pool, batchRows: 100, batchBytes: 64 << 20}
}

// WithBatchRows sets the most records a batch takes.
func (s *SealedRecords) WithBatchRows(n int) *SealedRecords {
	c := *s
	c.batchRows = n
	return &c
}

// sealedTable is where one kind of sealed record is stored: position is its
// primary key (a uuid), boundTo the column its seal is bound to, indexed
// whether a record keeps value hashes made with its key (only an archived
// payload does, keyed with its form).
type sealedTable struct {
	name, position, boundTo, indexed string
}

var sealedTables = map[application.SealedKind]sealedTable{
	application.SealedSubmissionPayloads: {"submission_payloads", "submission_id", "submission_id", "value_hashes IS NOT NULL"},
	application.SealedTestSubmissions:    {"test_inbox", "id", "id", "false"},
	application.SealedWebhookSecrets:     {"webhook_secrets", "id", "id", "false"},
	application.SealedCaptchaSecrets:     {"captcha_secrets", "form_id", "secret_id", "false"},
}

func sealedTableOf(kind application.SealedKind) (sealedTable, error) {
	t, ok := sealedTables[kind]
	if !ok {
		return t, fmt.Errorf("no table holds sealed %s", kind)
	}
	return t, nil
}

// ResealBatch implements application.SealedRecords. It locks the batch
// first, reading only sizes (octet_length reads the stored length, not the
// out-of-line value), so the ciphertext it then reads is bounded.
func (s *SealedRecords) ResealBatch(ctx context.Context, kind application.SealedKind, currentKeyID, after string, reseal application.ResealFunc) (string, error) {
	t, err := sealedTableOf(kind)
	if err != nil {
		return "", err
	}
	from := uuid.Nil
	if after != "" {
		if from, err = uuid.Parse(after); err != nil {
			return "", fmt.Errorf("position %q: %w", after, err)
		}
	}
	var last string
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		last = ""
		positions, err := s.lockBatch(ctx, tx, t, currentKeyID, from)
		if err != nil || len(positions) == 0 {
			return err
		}
		last = positions[len(positions)-1]
		records, err := readSealed(ctx, tx, t, positions)
		if err != nil {
			return err
		}
		b := &pgx.Batch{}
		for _, r := range records {
			out, ok, err := reseal(r)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			sealed := out.Sealed
			if r.Indexed {
				b.Queue(fmt.Sprintf(`UPDATE %s SET key_id = $2, wrapped_key = $3, ciphertext = $4, value_hashes = $5::jsonb
					WHERE %s = $1::uuid`, t.name, t.position),
					r.Position, sealed.KeyID, sealed.WrappedKey, sealed.Ciphertext, archiveIndex(out.ValueHashes))
				continue
			}
			b.Queue(fmt.Sprintf(`UPDATE %s SET key_id = $2, wrapped_key = $3, ciphertext = $4 WHERE %s = $1::uuid`, t.name, t.position),
				r.Position, sealed.KeyID, sealed.WrappedKey, sealed.Ciphertext)
		}
		if b.Len() == 0 {
			return nil
		}
		return tx.SendBatch(ctx, b).Close()
	})
	return last, err
}

// lockBatch locks the next records under another key than current, passing
// over those another transaction holds, and returns the positions of as
// many of them as fit the batch's bytes. Those that do not fit stay locked
// until the commit and come in the next batch.
func (s *SealedRecords) lockBatch(ctx context.Context, tx pgx.Tx, t sealedTable, current string, after uuid.UUID) ([]string, error) {
	rows, err := tx.Query(ctx, fmt.Sprintf(`SELECT %[2]s::text, octet_length(ciphertext) FROM %[1]s
		WHERE %[2]s > $1::uuid AND key_id <> $2 ORDER BY %[2]s LIMIT $3 FOR UPDATE SKIP LOCKED`, t.name, t.position),
		after, current, s.batchRows)
	if err != nil {
		return nil, err
	}
	var positions []string
	var total int64
	var position string
	var size int64
	_, err = pgx.ForEachRow(rows, []any{&position, &size}, func() error {
		if len(positions) > 0 && total+size > s.batchBytes {
			return nil
		}
		total += size
		positions = append(positions, position)
		return nil
	})
	return positions, err
}

func readSealed(ctx context.Context, tx pgx.Tx, t sealedTable, positions []string) ([]application.SealedRecord, error) {
	rows, err := tx.Query(ctx, fmt.Sprintf(`SELECT %[2]s::text, %[3]s::text, %[4]s, coalesce(form_id::text, ''), key_id, wrapped_key, ciphertext
		FROM %[1]s WHERE %[2]s = ANY ($1::uuid[]) ORDER BY %[2]s`, t.name, t.position, t.boundTo, t.indexed), positions)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (application.SealedRecord, error) {
		var r application.SealedRecord
		// pgx copies bytea out of its read buffer.
		err := row.Scan(&r.Position, &r.BoundTo, &r.Indexed, &r.FormID, &r.Sealed.KeyID, &r.Sealed.WrappedKey, &r.Sealed.Ciphertext)
		return r, err
	})
}

// CountSealed implements application.SealedRecords.
func (s *SealedRecords) CountSealed(ctx context.Context, kind application.SealedKind) (map[string]int, error) {
	t, err := sealedTableOf(kind)
	if err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, fmt.Sprintf(`SELECT key_id, count(*) FROM %s GROUP BY key_id`, t.name))
	if err != nil {
		return nil, err
	}
	counts := map[string]int{}
	var keyID string
	var n int
	_, err = pgx.ForEachRow(rows, []any{&keyID, &n}, func() error {
		counts[keyID] = n
		return nil
	})
	return counts, err
}

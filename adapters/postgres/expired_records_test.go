package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/adapters/postgres/pgtest"
)

func TestExpiredRecordsDeleteOnlyWhatHasDoneItsWork(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Open(t)
	records := postgres.NewExpiredRecords(pool)
	now := time.Now()
	old, fresh := now.Add(-1000*time.Hour), now.Add(-time.Minute)
	form := uuid.NewString()
	for _, at := range []time.Time{old, fresh} {
		suffix := at.Format(time.RFC3339Nano)
		for _, stmt := range []struct {
			sql  string
			args []any
		}{
			{`INSERT INTO idempotency_keys (form_id, key, request_hash, response, created_at) VALUES ($1, $2, '\x00', '{}', $3)`, []any{form, suffix, at}},
			{`INSERT INTO autoresponder_sends (form_id, address_hash, request_id, reserved_at) VALUES ($1, $2, 'r', $3)`, []any{form, suffix, at}},
			{`INSERT INTO spent_challenges (challenge, expires_at) VALUES ($1, $2)`, []any{suffix, at.Add(time.Hour)}},
			{`INSERT INTO password_reset_requests (address_hash, requested_at) VALUES ($1, $2)`, []any{[]byte(suffix), at}},
			{`INSERT INTO throttle_keys (key, touched_at) VALUES ($1, $2)`, []any{[]byte(suffix), at}},
		} {
			if _, err := pool.Exec(ctx, stmt.sql, stmt.args...); err != nil {
				t.Fatal(err)
			}
		}
	}
	for name, prune := range map[string]func() (int64, error){
		"idempotency keys":          func() (int64, error) { return records.PruneIdempotencyKeys(ctx) },
		"autoresponder reservation": func() (int64, error) { return records.PruneAutoresponderReservations(ctx) },
		"spent challenges":          func() (int64, error) { return records.PruneSpentChallenges(ctx, now) },
	} {
		if n, err := prune(); n != 1 || err != nil {
			t.Errorf("pruning %s = %d, %v; want the old one", name, n, err)
		}
	}
	if err := records.PruneThrottles(ctx, now); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"idempotency_keys", "autoresponder_sends", "spent_challenges", "password_reset_requests", "throttle_keys"} {
		var left int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM `+table).Scan(&left); err != nil || left != 1 {
			t.Errorf("%s: %d rows left (err %v), want the fresh one", table, left, err)
		}
	}
}

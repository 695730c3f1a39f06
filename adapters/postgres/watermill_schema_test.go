package postgres_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/adapters/postgres/pgtest"
)

func TestTheConsumerQueryReadsOnFromTheGroupsPositionInOrder(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Open(t)
	// Messages of three past transactions: 10 (offsets 1-3), 11 (4-5), 12 (6).
	for _, m := range []struct {
		tx  string
		off int
	}{{"10", 1}, {"10", 2}, {"10", 3}, {"11", 4}, {"11", 5}, {"12", 6}} {
		if _, err := pool.Exec(ctx, `INSERT INTO watermill_form ("offset", uuid, payload, transaction_id) VALUES ($1, 'u', '\x00', $2::text::xid8)`,
			m.off, m.tx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := pool.Exec(ctx, `INSERT INTO watermill_offsets_form VALUES ('g', 2, '10'::xid8)`); err != nil {
		t.Fatal(err)
	}
	query, args, err := postgres.OutboxSelectQuery("form", "g")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(query, `(transaction_id, "offset") >`) {
		t.Fatalf("the position must be a row comparison, an index condition: %s", query)
	}
	var got []int64
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var off int64
			var txid, uuid string
			var payload, metadata []byte
			if err := rows.Scan(&off, &txid, &uuid, &payload, &metadata); err != nil {
				return err
			}
			got = append(got, off)
		}
		return rows.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{3, 4, 5, 6}; len(got) != len(want) || got[0] != 3 || got[3] != 6 {
		t.Fatalf("after (10, 2) come %v, want %v: the rest of transaction 10, then 11 and 12 in order", got, want)
	}
}

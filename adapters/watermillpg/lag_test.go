package watermillpg_test

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	wsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/jackc/pgx/v5"

	"github.com/formd/formd/adapters/postgres/pgtest"
	"github.com/formd/formd/adapters/watermillpg"
)

func TestLagCountsWhatEachGroupHasNotAcknowledged(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pool := pgtest.Open(t)
	for v := 0; v < 5; v++ { // five transactions, one message each
		err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			pub, err := wsql.NewPublisher(wsql.TxFromPgx(tx), wsql.PublisherConfig{SchemaAdapter: wsql.DefaultPostgreSQLSchema{}}, watermill.NopLogger{})
			if err != nil {
				return err
			}
			return pub.Publish("submission", message.NewMessage(watermill.NewUUID(), []byte(strconv.Itoa(v))))
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if lag, err := watermillpg.Lag(ctx, pool, "submission"); err != nil || len(lag) != 0 {
		t.Fatalf("no group has acknowledged anything: lag %v, err %v; want none reported", lag, err)
	}
	var positions []struct {
		tx  string
		off int64
	}
	rows, err := pool.Query(ctx, `SELECT transaction_id::text, "offset" FROM watermill_submission ORDER BY transaction_id, "offset"`)
	if err != nil {
		t.Fatal(err)
	}
	var tx string
	var off int64
	if _, err := pgx.ForEachRow(rows, []any{&tx, &off}, func() error {
		positions = append(positions, struct {
			tx  string
			off int64
		}{tx, off})
		return nil
	}); err != nil || len(positions) != 5 {
		t.Fatalf("messages %v, err %v", positions, err)
	}
	for group, at := range map[string]int{"caught-up": 4, "behind": 1} {
		if _, err := pool.Exec(ctx, `INSERT INTO watermill_offsets_submission (consumer_group, offset_acked, last_processed_transaction_id)
			VALUES ($1, $2, $3::xid8)`, group, positions[at].off, positions[at].tx); err != nil {
			t.Fatal(err)
		}
	}
	lag, err := watermillpg.Lag(ctx, pool, "submission")
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(lag, func(a, b watermillpg.GroupLag) int { return int(a.Messages - b.Messages) })
	want := []watermillpg.GroupLag{{Topic: "submission", Group: "caught-up", Messages: 0}, {Topic: "submission", Group: "behind", Messages: 3}}
	if !slices.Equal(lag, want) {
		t.Fatalf("lag %+v, want %+v", lag, want)
	}
}

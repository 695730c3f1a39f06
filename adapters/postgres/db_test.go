package postgres_test

import (
	"context"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/adapters/postgres/pgtest"
)

// Regression: pool settings in the URL once broke the database-creating
// connection ("unrecognized configuration parameter pool_max_conns").
func TestConnectCreatesTheDatabaseAndHonoursPoolSettings(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	name := "formd_connect_" + uuid.NewString()[:8]
	u, err := url.Parse(pgtest.AdminURL())
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	q := u.Query()
	q.Set("pool_max_conns", "3")
	u.RawQuery = q.Encode()
	t.Cleanup(func() {
		if c, err := pgx.Connect(context.Background(), pgtest.AdminURL()); err == nil {
			_, _ = c.Exec(context.Background(), fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", name))
			_ = c.Close(context.Background())
		}
	})
	pool, err := postgres.Connect(ctx, u.String())
	if err != nil {
		t.Fatalf("Connect with pool_max_conns: %v", err)
	}
	defer pool.Close()
	if got := pool.Config().MaxConns; got != 3 {
		t.Fatalf("MaxConns = %d, want 3 from the URL", got)
	}
	var db string
	if err := pool.QueryRow(ctx, "SELECT current_database()").Scan(&db); err != nil || db != name {
		t.Fatalf("connected to %q (err %v), want the created %q", db, err, name)
	}
}

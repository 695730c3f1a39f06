package postgres_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/formd/formd/adapters/postgres/pgtest"
)

// Ids given as strings are written to uuid and uuid[] parameters in the
// binary format, with no failed attempt first (a tenth of formd's CPU in the
// bench went to encoding parameters), and read back as they were; strings
// that are not canonical uuids are still PostgreSQL's to refuse.
func TestUUIDStringsAreWrittenInBinary(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Open(t)
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	ids := []string{uuid.NewString(), uuid.NewString()}
	m := conn.Conn().TypeMap()
	if _, err := m.Encode(pgtype.UUIDArrayOID, pgtype.BinaryFormatCode, ids, nil); err != nil {
		t.Fatalf("a uuid[] of strings has no binary encoding: %v", err)
	}
	if _, err := m.Encode(pgtype.UUIDOID, pgtype.BinaryFormatCode, ids[0], nil); err != nil {
		t.Fatalf("a uuid string has no binary encoding: %v", err)
	}

	var back []string
	var one string
	if err := conn.QueryRow(ctx, `SELECT $1::uuid[]::text[], $2::uuid::text`, ids, ids[1]).Scan(&back, &one); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back, ids) || one != ids[1] {
		t.Fatalf("read back %v and %s; want %v and %s", back, one, ids, ids[1])
	}
	var scanned string
	if err := conn.QueryRow(ctx, `SELECT $1::uuid`, ids[0]).Scan(&scanned); err != nil || scanned != ids[0] {
		t.Fatalf("scanned %q, %v; want %s", scanned, err, ids[0])
	}

	for _, bad := range []string{"not-a-uuid", "urn:uuid:" + ids[0], ids[0] + "0"} {
		_, err := conn.Exec(ctx, `SELECT $1::uuid`, bad)
		if err == nil || !strings.Contains(err.Error(), "invalid input syntax for type uuid") {
			t.Errorf("%q as a uuid: %v; want PostgreSQL's invalid input syntax", bad, err)
		}
	}
}

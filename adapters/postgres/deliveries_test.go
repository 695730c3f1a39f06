package postgres_test

import (
	"context"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/adapters/postgres/pgtest"
	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/delivery"
)

// Regression: a failure reason was cut at 500 bytes, possibly inside a UTF-8
// character; PostgreSQL refused the text and the attempt was never recorded.
func TestRecordAttemptsKeepsALongMultibyteReason(t *testing.T) {
	ctx := context.Background()
	pool := pgtest.Open(t)
	store := postgres.NewDeliveryStore(pool, postgres.NewEventStore())
	q := delivery.Queued{DeliveryID: uuid.NewString(), SubmissionID: uuid.NewString(), FormID: uuid.NewString(),
		Kind: delivery.KindWebhook, At: time.Now()}
	reason := strings.Repeat("a", 499) + "ééé receiver said nein"
	now := time.Now().UTC()
	err := store.RecordAttempts(ctx, []application.Attempt{{Queued: q, Number: 1,
		Outcome: delivery.AttemptFailed{Attempt: 1, Reason: reason, NextAt: now.Add(time.Minute), At: now}}})
	if err != nil {
		t.Fatalf("RecordAttempts: %v", err)
	}
	var stored, status string
	if err := pool.QueryRow(ctx, `SELECT last_error, status FROM deliveries WHERE id = $1`, q.DeliveryID).Scan(&stored, &status); err != nil {
		t.Fatal(err)
	}
	if status != "retrying" || !utf8.ValidString(stored) || len(stored) > 500 || !strings.HasPrefix(reason, stored) {
		t.Fatalf("stored %q (%d bytes, status %s), want a valid prefix of at most 500 bytes", stored, len(stored), status)
	}
}

package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/application"
)

func TestTestInboxKeepsTheNewestPerFormFiltersAndExpires(t *testing.T) {
	ctx := context.Background()
	g := newGroupEnv(t)
	inbox := postgres.NewTestInbox(g.pool)
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	add := func(i int, key string) string {
		t.Helper()
		id := uuid.NewString()
		err := inbox.AddTestSubmission(ctx, application.StoredTestSubmission{ID: id, FormID: g.formID, RequestID: "req-" + id, IdempotencyKey: key,
			ReceivedAt: t0.Add(time.Duration(i) * time.Second), ExpiresAt: t0.Add(time.Hour + time.Duration(i)*time.Second),
			Sealed: application.SealedPayload{KeyID: "k1", WrappedKey: []byte{1}, Ciphertext: []byte{byte(i)}}}, 3)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	var ids []string
	for i := range 5 {
		ids = append(ids, add(i, map[bool]string{true: "run-a", false: ""}[i%2 == 0]))
	}
	list, err := inbox.TestSubmissions(ctx, g.formID, application.TestInboxFilter{Limit: 10}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 3 || list[0].ID != ids[4] || list[2].ID != ids[2] || list[0].Sealed.Ciphertext[0] != 4 {
		t.Fatalf("want the newest three, newest first: %+v", list)
	}
	byKey, _ := inbox.TestSubmissions(ctx, g.formID, application.TestInboxFilter{IdempotencyKey: "run-a", Limit: 10}, t0)
	byRequest, _ := inbox.TestSubmissions(ctx, g.formID, application.TestInboxFilter{RequestID: "req-" + ids[3], Limit: 10}, t0)
	if len(byKey) != 2 || len(byRequest) != 1 || byRequest[0].ID != ids[3] {
		t.Fatalf("filters: by key %d, by request %+v", len(byKey), byRequest)
	}
	if later, _ := inbox.TestSubmissions(ctx, g.formID, application.TestInboxFilter{Limit: 10}, t0.Add(time.Hour+3*time.Second)); len(later) != 1 {
		t.Fatalf("an expired one is never shown, even before the sweep: %d", len(later))
	}
	if n, err := inbox.DeleteExpiredTestSubmissions(ctx, t0.Add(time.Hour+3*time.Second)); err != nil || n != 2 {
		t.Fatalf("sweep deleted %d (%v), want 2", n, err)
	}
	if n, err := inbox.ClearTestInbox(ctx, g.formID); err != nil || n != 1 {
		t.Fatalf("clear deleted %d (%v), want 1", n, err)
	}
}

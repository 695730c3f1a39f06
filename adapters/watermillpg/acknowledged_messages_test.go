package watermillpg_test

import (
	"context"
	"testing"
	"time"

	"github.com/formd/formd/adapters/postgres/pgtest"
	"github.com/formd/formd/adapters/watermillpg"
)

func TestAcknowledgedMessagesPruneATopicAsPruneDoes(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pool := pgtest.Open(t)
	publishN(t, ctx, pool, 3)
	messages := watermillpg.NewAcknowledgedMessages(pool)
	if n, err := messages.PruneMessages(ctx, pruneTopic, watermillpg.UnconsumedRetention); err != nil || n != 0 {
		t.Fatalf("fresh messages no group reads are kept: pruned %d, err %v", n, err)
	}
	if n, err := messages.PruneMessages(ctx, pruneTopic, 0); err != nil || n != 3 {
		t.Fatalf("with no retention for unread messages, pruned %d (err %v), want all 3", n, err)
	}
}

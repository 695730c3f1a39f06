package postgres_test

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/submission"
)

// The dashboard's forms list counts each form's submissions this month from
// the deliveries they queued: one per submission however many deliveries it
// has, and only the account's forms, only in the month asked for.
func TestSubmissionsByFormCountsThisMonthsSubmissionsOfTheAccountsForms(t *testing.T) {
	g := newGroupEnv(t)
	read := postgres.NewReadModel(g.pool, postgres.NewEventStore())
	store := postgres.NewDeliveryStore(g.pool, postgres.NewEventStore())
	for i := range 3 {
		s := g.accepted(g.version, "")
		if i == 0 { // a notification and a webhook
			webhook := s.Queued[0]
			webhook.DeliveryID, webhook.Kind = uuid.NewString(), delivery.KindWebhook
			s.Queued = append(s.Queued, webhook)
			s.Accepted.Deliveries = append(s.Accepted.Deliveries, submission.DeliveryRef{ID: webhook.DeliveryID, Kind: delivery.KindWebhook})
		}
		g.accept(t, s)
		// The deliveries are in the log once attempted (or queued by the
		// delivery-queue consumer group, which this test does not run).
		for _, q := range s.Queued {
			if err := store.RecordAttempts(g.ctx, []application.Attempt{{Queued: q, Number: 1,
				Outcome: delivery.Succeeded{Attempt: 1, At: q.At}}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	now := time.Now().UTC()
	counts, err := read.SubmissionsByForm(g.ctx, g.accountID, account.MonthOf(now))
	if err != nil {
		t.Fatal(err)
	}
	if len(counts) != 1 || counts[g.formID] != 3 {
		t.Errorf("this month: %v, want %s: 3", counts, g.formID)
	}
	if counts, _ := read.SubmissionsByForm(g.ctx, g.accountID, account.MonthOf(now.AddDate(0, -1, 0))); len(counts) != 0 {
		t.Errorf("last month: %v, want none", counts)
	}
	if counts, _ := read.SubmissionsByForm(g.ctx, "00000000-0000-0000-0000-000000000001", account.MonthOf(now)); len(counts) != 0 {
		t.Errorf("another account: %v, want none", counts)
	}
}

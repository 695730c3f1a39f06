package postgres_test

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/form"
)

// A spam link finds the payload of its own form's submission while it is
// kept, and the spam reviews the form's trail records.
func TestSpamMarksFindKeptPayloadsAndSpamReviews(t *testing.T) {
	g := newGroupEnv(t)
	store := postgres.NewDeliveryStore(g.pool, postgres.NewEventStore())
	s := g.accepted(g.version, "")
	g.accept(t, s)
	id := s.Accepted.SubmissionID

	p, err := store.KeptPayload(g.ctx, g.formID, id)
	if err != nil || !bytes.Equal(p.Ciphertext, s.Payload.Ciphertext) || !bytes.Equal(p.WrappedKey, s.Payload.WrappedKey) {
		t.Fatalf("KeptPayload = %+v, %v; want the sealed payload", p, err)
	}
	for name, ids := range map[string][2]string{
		"through another form": {uuid.NewString(), id},
		"an unknown one":       {g.formID, uuid.NewString()},
		"not an id":            {g.formID, "x"},
	} {
		if _, err := store.KeptPayload(g.ctx, ids[0], ids[1]); !errors.Is(err, domain.ErrNotFound) {
			t.Errorf("%s: %v, want not found", name, err)
		}
	}

	review := func(submissionID, verdict string) {
		t.Helper()
		g.run(t, func(tx application.Tx) error {
			f, err := tx.LoadForm(g.ctx, g.formID)
			if err != nil {
				return err
			}
			if err := f.RecordSpamReviewed(submissionID, verdict, false, time.Now()); err != nil {
				return err
			}
			return tx.SaveForm(g.ctx, f)
		})
	}
	reviewed := func(formID, submissionID string) bool {
		t.Helper()
		found, err := store.ReviewedAsSpam(g.ctx, formID, submissionID)
		if err != nil {
			t.Fatal(err)
		}
		return found
	}
	review(id, form.ReviewedNotSpam)
	if reviewed(g.formID, id) {
		t.Error("a review as not spam counts as a spam mark")
	}
	review(id, form.ReviewedSpam)
	if !reviewed(g.formID, id) {
		t.Error("the spam review is not found")
	}
	if reviewed(g.formID, uuid.NewString()) || reviewed(uuid.NewString(), id) || reviewed("x", id) {
		t.Error("a spam review found for another submission or form")
	}
}

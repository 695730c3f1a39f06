package application

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
)

// sendTest sends the sample of an integration's test. It has no sealed
// payload: the target is the integration's at send time (a retry after the
// owner fixed it goes to the fixed one), and the content is the sample, so
// nothing a submitter sent is in it. A 410 Gone fails the test but, unlike
// a submission's webhook, disables nothing: the owner is watching.
func (h *DeliverHandler) sendTest(ctx context.Context, q delivery.Queued) error {
	var in form.Integration
	var formName string
	err := h.tx.InTx(ctx, Metadata{Actor: Actor{Type: ActorSystem, ID: "delivery"}, CausationID: q.DeliveryID}, func(tx Tx) error {
		f, err := tx.LoadForm(ctx, q.FormID)
		if err != nil {
			return err
		}
		name := f.Settings().Name
		for _, i := range f.Integrations() {
			if planned, err := submission.TestDelivery(i); err == nil && planned.Kind == q.Kind {
				in, formName = i, name
			}
		}
		return nil
	})
	if errors.Is(err, domain.ErrNotFound) {
		return fmt.Errorf("%w: form %q not found", ErrPermanent, q.FormID)
	}
	if err != nil {
		return err
	}
	planned, err := submission.TestDelivery(in)
	if in.Type == "" || err != nil {
		return fmt.Errorf("%w: the form has no %s integration to test any more", ErrPermanent, q.Kind)
	}
	switch q.Kind {
	case delivery.KindSlack, delivery.KindDiscord:
		return h.sendChat(ctx, q, planned.WebhookURL, formName, submission.TestFields())
	case delivery.KindTelegram:
		return h.sendTelegram(ctx, q, planned.ChatID, formName, submission.TestFields())
	case delivery.KindGoogleSheets:
		return h.appendRow(ctx, q, Destination{SpreadsheetID: planned.SpreadsheetID, SheetName: planned.SheetName}, q.At, submission.TestFields())
	}
	body, err := json.Marshal(webhookBody{Type: WebhookSubmissionAccepted, DeliveryID: q.DeliveryID, FormID: q.FormID,
		SubmittedAt: q.At.UTC().Format(time.RFC3339), Data: echo(submission.TestFields()), Attachments: []webhookAttachment{}, Test: true})
	if err != nil {
		return err
	}
	return h.sendWebhook(ctx, q, planned.WebhookURL, body)
}

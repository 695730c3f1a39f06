package application

import (
	"context"
	"errors"
	"fmt"

	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/form"
)

// disableGoneWebhook disables the form's webhook integration when its
// receiver answered a delivery with 410 Gone, as a form event with the
// system as actor (caused by the delivery), so the audit trail tells the
// owner why it stopped. sendErr is returned as it was: the delivery itself
// is a final failure either way. Only when the form cannot be changed now is
// that error returned instead, so the attempt is retried and the receiver,
// answering 410 again, gets the integration disabled then.
func (h *DeliverHandler) disableGoneWebhook(ctx context.Context, q delivery.Queued, p Payload, url string, sendErr error) error {
	if !errors.Is(sendErr, ErrGone) || p.Integrations[q.DeliveryID] != form.IntegrationWebhook {
		return sendErr
	}
	md := Metadata{Actor: Actor{Type: ActorSystem, ID: "delivery"}, CausationID: q.DeliveryID}
	err := h.tx.InTx(ctx, md, func(tx Tx) error {
		f, err := tx.LoadForm(ctx, q.FormID)
		if err != nil {
			return err
		}
		if !f.DisableGoneWebhook(url, h.clock.Now()) {
			return nil
		}
		return tx.SaveForm(ctx, f)
	})
	if err != nil {
		return fmt.Errorf("disable the webhook integration after 410 Gone: %w", err)
	}
	return sendErr
}

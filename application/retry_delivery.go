package application

import (
	"context"
	"errors"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/delivery"
)

// RetryDelivery is POST /v1/deliveries/{deliveryId}/retry.
type RetryDelivery struct {
	Caller     Session
	RequestID  string
	DeliveryID string
}

// RetryDeliveryHandler re-queues a failed delivery at its owner's request.
type RetryDeliveryHandler struct {
	log       DeliveryLog
	clock     Clock
	retention time.Duration
}

// NewRetryDeliveryHandler builds the handler; every dependency is required.
// retention is only said in the refusal of a retry that came too late.
func NewRetryDeliveryHandler(log DeliveryLog, clock Clock, retention FailedPayloadRetention) *RetryDeliveryHandler {
	if log == nil || clock == nil {
		panic("application: nil dependency of RetryDeliveryHandler")
	}
	return &RetryDeliveryHandler{log: log, clock: clock, retention: time.Duration(retention)}
}

// Handle records delivery.retry_requested with the caller as its actor and
// makes the delivery due at once; the delivery decides whether it may be
// retried (only a failed one, while its submission's data is kept).
func (h *RetryDeliveryHandler) Handle(ctx context.Context, cmd RetryDelivery) (DeliveryRecord, error) {
	if err := cmd.Caller.Require(account.ScopeFormsWrite); err != nil {
		return DeliveryRecord{}, err
	}
	rec, err := ownedDelivery(ctx, h.log, cmd.Caller, cmd.DeliveryID)
	if err != nil {
		return DeliveryRecord{}, err
	}
	e, err := delivery.RequestRetry(rec.State, rec.SubmissionID != "", rec.PayloadKept, h.retention, h.clock.Now())
	if err != nil {
		return DeliveryRecord{}, err
	}
	out, err := h.log.Requeue(ctx, rec, e, metadataFor(cmd.Caller, cmd.RequestID))
	switch {
	case errors.Is(err, ErrPayloadDeleted):
		return DeliveryRecord{}, delivery.PayloadDeletedError(h.retention)
	case errors.Is(err, domain.ErrConcurrency):
		// Another retry (or the sweep) got there first: the delivery says
		// why this one cannot be made now.
		now, errNow := ownedDelivery(ctx, h.log, cmd.Caller, cmd.DeliveryID)
		if errNow == nil {
			_, errNow = delivery.RequestRetry(now.State, now.SubmissionID != "", now.PayloadKept, h.retention, h.clock.Now())
		}
		if errNow != nil {
			return DeliveryRecord{}, errNow
		}
		return DeliveryRecord{}, err
	}
	return out, err
}

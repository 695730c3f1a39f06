package application

import (
	"context"

	"github.com/formd/formd/domain/account"
)

// DeliveryDetails is GET /v1/deliveries/{deliveryId}.
type DeliveryDetails struct {
	Caller     Session
	DeliveryID string
}

// DeliveryDetail is a delivery with its stream: queued, each attempt's
// outcome and each manual retry with who asked for it.
type DeliveryDetail struct {
	Delivery DeliveryRecord
	Events   []HistoryEntry
}

// DeliveryDetailsHandler reads one delivery of the caller's.
type DeliveryDetailsHandler struct {
	read ReadModel
	log  DeliveryLog
}

// NewDeliveryDetailsHandler builds the handler; every dependency is required.
func NewDeliveryDetailsHandler(read ReadModel, log DeliveryLog) *DeliveryDetailsHandler {
	if read == nil || log == nil {
		panic("application: nil dependency of DeliveryDetailsHandler")
	}
	return &DeliveryDetailsHandler{read: read, log: log}
}

// Handle returns the delivery and its events in order; a delivery the
// caller's log does not show is not found.
func (h *DeliveryDetailsHandler) Handle(ctx context.Context, q DeliveryDetails) (DeliveryDetail, error) {
	if err := q.Caller.Require(account.ScopeFormsRead); err != nil {
		return DeliveryDetail{}, err
	}
	rec, err := ownedDelivery(ctx, h.log, q.Caller, q.DeliveryID)
	if err != nil {
		return DeliveryDetail{}, err
	}
	events, err := h.read.StreamHistory(ctx, rec.ID)
	if err != nil {
		return DeliveryDetail{}, err
	}
	return DeliveryDetail{Delivery: rec, Events: events}, nil
}

package application

import (
	"context"

	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/submission"
)

// DeliveryDetails is GET /v1/deliveries/{deliveryId}.
type DeliveryDetails struct {
	Caller     Session
	DeliveryID string
}

// DeliveryDetail is a delivery with its history: the event that queued it
// (a submission's submission.accepted, or its own delivery.queued), each
// attempt's outcome and each manual retry with who asked for it.
type DeliveryDetail struct {
	Delivery DeliveryRecord
	Events   []HistoryEntry
}

// DeliveryDetailsHandler reads one delivery of the caller's.
type DeliveryDetailsHandler struct {
	read HistoryReader
	log  DeliveryLog
}

// NewDeliveryDetailsHandler builds the handler; every dependency is required.
func NewDeliveryDetailsHandler(read HistoryReader, log DeliveryLog) *DeliveryDetailsHandler {
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
	if queuedBySubmission(rec, events) {
		queued, err := h.read.StreamHistory(ctx, rec.SubmissionID)
		if err != nil {
			return DeliveryDetail{}, err
		}
		if len(queued) > 0 && queued[0].Type == submission.AcceptedType {
			events = append([]HistoryEntry{queued[0]}, events...)
		}
	}
	return DeliveryDetail{Delivery: rec, Events: events}, nil
}

// queuedBySubmission says whether the event that queued a delivery is its
// submission's submission.accepted, recorded in the submission's stream,
// rather than a delivery.queued of its own (which older submissions'
// deliveries have): the delivery's history starts with that event.
func queuedBySubmission(rec DeliveryRecord, events []HistoryEntry) bool {
	return rec.SubmissionID != "" && (len(events) == 0 || events[0].Type != delivery.QueuedType)
}

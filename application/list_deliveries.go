package application

import (
	"context"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/delivery"
)

// Pages of the delivery log.
const (
	DefaultDeliveryPage = 50
	MaxDeliveryPage     = 200
)

// ListDeliveries is GET /v1/forms/{formId}/deliveries. Kind is a public kind
// (notification, autoresponder, webhook, slack, discord, recipient_verification), State a
// delivery state; either may be empty. Limit 0 means DefaultDeliveryPage.
type ListDeliveries struct {
	Caller Session
	FormID string
	Kind   string
	State  string
	After  *DeliveryCursor
	Limit  int
}

// DeliveryPage is one page of the log; Next is nil on the last page.
type DeliveryPage struct {
	Deliveries []DeliveryRecord
	Next       *DeliveryCursor
}

// ListDeliveriesHandler reads a form's delivery log.
type ListDeliveriesHandler struct {
	read FormReader
	log  DeliveryLog
}

// NewListDeliveriesHandler builds the handler; every dependency is required.
func NewListDeliveriesHandler(read FormReader, log DeliveryLog) *ListDeliveriesHandler {
	if read == nil || log == nil {
		panic("application: nil dependency of ListDeliveriesHandler")
	}
	return &ListDeliveriesHandler{read: read, log: log}
}

// Handle returns one page of the caller's form's deliveries, newest first.
func (h *ListDeliveriesHandler) Handle(ctx context.Context, q ListDeliveries) (DeliveryPage, error) {
	if err := q.Caller.Require(account.ScopeFormsRead); err != nil {
		return DeliveryPage{}, err
	}
	f := DeliveryFilter{State: q.State, After: q.After, Limit: q.Limit}
	if f.Limit == 0 {
		f.Limit = DefaultDeliveryPage
	}
	if f.Limit < 1 || f.Limit > MaxDeliveryPage {
		return DeliveryPage{}, domain.Invalid("limit", "limit must be between 1 and %d", MaxDeliveryPage)
	}
	if f.State != "" && !delivery.IsState(f.State) {
		return DeliveryPage{}, domain.Invalid("state", "state must be one of queued, retrying, succeeded, failed")
	}
	if q.Kind != "" {
		kind, ok := delivery.StoredKind(q.Kind)
		if !ok {
			return DeliveryPage{}, domain.Invalid("kind", "kind must be one of notification, autoresponder, webhook, slack, discord, recipient_verification")
		}
		f.Kinds = []string{kind}
	}
	if _, err := ownedForm(ctx, h.read, q.Caller, q.FormID); err != nil {
		return DeliveryPage{}, err
	}
	// One more than the page tells whether another page follows.
	want := f.Limit
	f.Limit++
	found, err := h.log.FormDeliveries(ctx, q.FormID, f)
	if err != nil {
		return DeliveryPage{}, err
	}
	page := DeliveryPage{Deliveries: found}
	if len(found) > want {
		page.Deliveries = found[:want]
		last := page.Deliveries[want-1]
		page.Next = &DeliveryCursor{CreatedAt: last.CreatedAt, ID: last.ID}
	}
	return page, nil
}

package application

import (
	"context"
	"fmt"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
)

// TestIntegration is POST /v1/forms/{formId}/integrations/{type}/test.
type TestIntegration struct {
	Caller    Session
	RequestID string
	FormID    string
	Type      form.IntegrationType
}

// TestIntegrationHandler queues one delivery of a sample message to a
// form's integration, through the same queue as a submission's, so its
// outcome shows in the delivery log like any other.
type TestIntegrationHandler struct {
	tx    Transactor
	read  FormReader
	ids   IDs
	clock Clock
	// services says which types this server can send to.
	services IntegrationServices
	// limits count the form's test calls across processes.
	limits IntegrationTestLimits
}

// NewTestIntegrationHandler builds the handler; every dependency is required.
func NewTestIntegrationHandler(tx Transactor, read FormReader, ids IDs, clock Clock, services IntegrationServices,
	limits IntegrationTestLimits) *TestIntegrationHandler {
	if tx == nil || read == nil || ids == nil || clock == nil || services == nil || limits == nil {
		panic("application: nil dependency of TestIntegrationHandler")
	}
	return &TestIntegrationHandler{tx: tx, read: read, ids: ids, clock: clock, services: services, limits: limits}
}

// Handle queues the test and answers with its delivery, queued. The
// integration must be configured with somewhere to send; it need not be
// enabled, so its owner can check it before turning it on. A form gets
// form.IntegrationTestLimit tests per form.IntegrationTestWindow, whatever
// the integration: each one makes formd call someone else's service.
func (h *TestIntegrationHandler) Handle(ctx context.Context, cmd TestIntegration) (DeliveryRecord, error) {
	if err := cmd.Caller.Require(account.ScopeFormsWrite); err != nil {
		return DeliveryRecord{}, err
	}
	rec, err := ownedForm(ctx, h.read, cmd.Caller, cmd.FormID)
	if err != nil {
		return DeliveryRecord{}, err
	}
	var in form.Integration
	for _, i := range rec.Integrations {
		if i.Type == cmd.Type {
			in = i
		}
	}
	if in.Type == "" {
		return DeliveryRecord{}, domain.Invalid("type", "the form has no %s integration: configure it before testing it", cmd.Type)
	}
	if !h.services.Configured(in.Type) {
		return DeliveryRecord{}, unconfigured(in.Type)
	}
	planned, err := submission.TestDelivery(in)
	if err != nil {
		return DeliveryRecord{}, err
	}
	now := h.clock.Now()
	ok, wait, err := h.limits.Take(ctx, rec.ID, form.IntegrationTestLimit, form.IntegrationTestWindow, now)
	if err != nil {
		return DeliveryRecord{}, err
	}
	if !ok {
		return DeliveryRecord{}, &domain.TooManyRequestsError{RetryAfter: wait,
			Message: fmt.Sprintf("Too many integration tests: a form gets %d every %d minutes. Try again later.",
				form.IntegrationTestLimit, int(form.IntegrationTestWindow.Minutes()))}
	}
	q := delivery.Queued{DeliveryID: h.ids.New(), FormID: rec.ID, Kind: planned.Kind, Target: planned.Target, Test: true, At: now}
	err = h.tx.InTx(ctx, metadataFor(cmd.Caller, cmd.RequestID), func(tx Tx) error {
		return tx.QueueDelivery(ctx, q)
	})
	if err != nil {
		return DeliveryRecord{}, err
	}
	return DeliveryRecord{ID: q.DeliveryID, AccountID: rec.AccountID, FormID: rec.ID, Kind: q.Kind, Target: q.Target,
		State: delivery.StateQueued, CreatedAt: now}, nil
}

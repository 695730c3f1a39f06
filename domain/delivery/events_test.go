package delivery_test

import (
	"testing"
	"time"

	"github.com/formd/formd/domain/delivery"
)

func TestFinalAndStatus(t *testing.T) {
	at := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name       string
		event      delivery.Event
		wantFinal  bool
		wantStatus string
		wantType   string
	}{
		{name: "queued", event: delivery.Queued{DeliveryID: "d1", Kind: delivery.KindEmail, At: at}, wantStatus: "queued", wantType: "delivery.queued.v1"},
		{name: "succeeded", event: delivery.Succeeded{Attempt: 1, At: at}, wantFinal: true, wantStatus: "succeeded", wantType: "delivery.succeeded.v1"},
		{name: "attempt failed", event: delivery.AttemptFailed{Attempt: 1, Reason: "timeout", NextAt: at.Add(delivery.Backoff(1)), At: at}, wantStatus: "retrying", wantType: "delivery.attempt_failed.v1"},
		{name: "gave up", event: delivery.GaveUp{Attempts: delivery.MaxAttempts, Reason: "550", At: at}, wantFinal: true, wantStatus: "failed", wantType: "delivery.failed.v1"},
		{name: "zero succeeded", event: delivery.Succeeded{}, wantFinal: true, wantStatus: "succeeded", wantType: "delivery.succeeded.v1"},
		{name: "zero gave up", event: delivery.GaveUp{}, wantFinal: true, wantStatus: "failed", wantType: "delivery.failed.v1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := delivery.Final(tt.event); got != tt.wantFinal {
				t.Errorf("Final(%T) = %v, want %v", tt.event, got, tt.wantFinal)
			}
			if got := delivery.Status(tt.event); got != tt.wantStatus {
				t.Errorf("Status(%T) = %q, want %q", tt.event, got, tt.wantStatus)
			}
			if got := tt.event.EventType(); got != tt.wantType {
				t.Errorf("%T.EventType() = %q, want %q", tt.event, got, tt.wantType)
			}
		})
	}
}

func TestAQueuedEventMustNameSomethingToSend(t *testing.T) {
	at := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	for name, tt := range map[string]struct {
		q  delivery.Queued
		ok bool
	}{
		"a submission's":        {delivery.Queued{DeliveryID: "d1", SubmissionID: "s1", FormID: "f1", Kind: delivery.KindEmail, At: at}, true},
		"a verification's":      {delivery.Queued{DeliveryID: "d1", VerificationID: "v1", Kind: delivery.KindAccountVerification, At: at}, true},
		"an integration test's": {delivery.Queued{DeliveryID: "d1", FormID: "f1", Kind: delivery.KindSlack, Test: true, At: at}, true},
		"a test of no form":     {delivery.Queued{DeliveryID: "d1", Kind: delivery.KindSlack, Test: true, At: at}, false},
		"no delivery id":        {delivery.Queued{SubmissionID: "s1", Kind: delivery.KindEmail}, false},
		"no kind":               {delivery.Queued{DeliveryID: "d1", SubmissionID: "s1"}, false},
		"nothing it would send": {delivery.Queued{DeliveryID: "d1", FormID: "f1", Kind: delivery.KindEmail}, false},
	} {
		if err := tt.q.Check(); (err == nil) != tt.ok {
			t.Errorf("%s: Check() = %v, want ok %v", name, err, tt.ok)
		}
	}
}

package postgres

import (
	"reflect"
	"testing"

	"github.com/formd/formd/application"
)

// A row stored before the shape existed (the HTTP type's JSON, with
// "data": null) and one stored now both read back as the same answer, and
// what is written is exactly the stored shape: a field added to the HTTP
// response never lands in idempotency_keys by accident.
func TestStoredResponsesKeepTheirShape(t *testing.T) {
	want := application.SubmissionResponse{Success: true, Message: "Form submission accepted.", RequestID: "req_1",
		DeliveryID: "d1", AutoresponderDeliveryID: "d2", WebhookDeliveryIDs: []string{"d3"}, NotificationDeliveryIDs: []string{"d4", "d5"},
		Body: application.ResponseBody{Message: "Form submission accepted."}}
	const stored = `{"success":true,"message":"Form submission accepted.","requestId":"req_1","deliveryId":"d1",` +
		`"autoresponderDeliveryId":"d2","webhookDeliveryIds":["d3"],"notificationDeliveryIds":["d4","d5"],` +
		`"body":{"message":"Form submission accepted."}}`
	const older = `{"success":true,"message":"Form submission accepted.","requestId":"req_1","deliveryId":"d1",` +
		`"autoresponderDeliveryId":"d2","webhookDeliveryIds":["d3"],"notificationDeliveryIds":["d4","d5"],` +
		`"body":{"data":null,"message":"Form submission accepted."}}`
	withData := want
	withData.Body.Data = map[string]string{"email": "ada@example.com"}
	withData.Gates = []application.GateResult{{Gate: "fields", Outcome: "passed"}}
	got, err := encodeStoredResponse(withData)
	if err != nil || string(got) != stored {
		t.Fatalf("encoded %s, %v\nwant %s (no submitted value, no dry-run field)", got, err, stored)
	}
	for name, raw := range map[string]string{"stored now": stored, "stored before the shape": older} {
		back, err := decodeStoredResponse([]byte(raw))
		if err != nil || !reflect.DeepEqual(back, want) {
			t.Errorf("%s: decoded %+v, %v\nwant %+v", name, back, err, want)
		}
	}
}

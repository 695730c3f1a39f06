package postgres

import (
	"encoding/json"

	"github.com/formd/formd/application"
)

// storedResponseV1 is an accepted submission's answer as idempotency_keys
// keeps it for a retry with the same Idempotency-Key. It is a stored shape
// of its own, like the events' (eventcodec), so a change to the HTTP
// response type never changes what older rows mean: rows written before
// this shape existed hold exactly these fields. Only a live, accepted
// answer is stored, so dry-run fields and errors have no place here, and
// body.data is never stored: a retry echoes its own fields again, so no
// submitted value outlives delivery in this table.
type storedResponseV1 struct {
	Success                 bool     `json:"success"`
	Message                 string   `json:"message"`
	RequestID               string   `json:"requestId,omitempty"`
	DeliveryID              string   `json:"deliveryId,omitempty"`
	AutoresponderDeliveryID string   `json:"autoresponderDeliveryId,omitempty"`
	WebhookDeliveryIDs      []string `json:"webhookDeliveryIds"`
	NotificationDeliveryIDs []string `json:"notificationDeliveryIds"`
	Body                    struct {
		Message string `json:"message"`
	} `json:"body"`
}

// encodeStoredResponse is the stored form of an accepted answer.
func encodeStoredResponse(r application.SubmissionResponse) ([]byte, error) {
	s := storedResponseV1{Success: r.Success, Message: r.Message, RequestID: r.RequestID, DeliveryID: r.DeliveryID,
		AutoresponderDeliveryID: r.AutoresponderDeliveryID, WebhookDeliveryIDs: r.WebhookDeliveryIDs,
		NotificationDeliveryIDs: r.NotificationDeliveryIDs}
	s.Body.Message = r.Body.Message
	return json.Marshal(s)
}

// decodeStoredResponse reads a stored answer back.
func decodeStoredResponse(raw []byte) (application.SubmissionResponse, error) {
	var s storedResponseV1
	if err := json.Unmarshal(raw, &s); err != nil {
		return application.SubmissionResponse{}, err
	}
	return application.SubmissionResponse{Success: s.Success, Message: s.Message, RequestID: s.RequestID, DeliveryID: s.DeliveryID,
		AutoresponderDeliveryID: s.AutoresponderDeliveryID, WebhookDeliveryIDs: s.WebhookDeliveryIDs,
		NotificationDeliveryIDs: s.NotificationDeliveryIDs, Body: application.ResponseBody{Message: s.Body.Message}}, nil
}

package application

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
)

// goldenPayload is what testdata/payload_v1.json holds: a payload sealed
// before the stored shape named its version, every field set.
var goldenPayload = Payload{
	Fields:    []submission.Field{{Name: "name", Value: "Ada"}, {Name: "message", Value: "Hello\nthere"}},
	Recipient: "inbox@example.com", Subject: "New submission", FromName: "Contact form", ReplyTo: "ada@example.org",
	CC: []string{"cc@example.com"}, SubmitterEmail: "ada@example.org", Webhook: "https://per.example.com/h",
	Autoresponder: &AutoresponderMail{Subject: "Thanks", Message: "We got it", FromName: "Acme", ReplyTo: "help@example.com"},
	FormName:      "Contact", RequestID: "req-1",
	Integrations: map[string]form.IntegrationType{"d3": form.IntegrationWebhook, "d4": form.IntegrationTelegram},
	WebhookURLs:  map[string]string{"d2": "https://per.example.com/h", "d3": "https://in.example.org/h?t=1"},
	Destinations: map[string]Destination{"d4": {ChatID: "-100123"}, "d5": {SpreadsheetID: "sheet-1", SheetName: "Leads"}},
	Attachments: []Attachment{{Field: "cv", Name: "cv.pdf", Type: "application/pdf", Size: 3, Content: []byte("%PD")},
		{Field: "photo", Name: "me.png", Type: "image/png", Size: 1024, Key: "up-1", LinksExpire: time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)}},
}

// Payloads already queued in a database carry the unversioned shape: they
// must still open to the same payload.
func TestAPayloadSealedWithoutAVersionDecodesAsVersion1(t *testing.T) {
	golden, err := os.ReadFile("testdata/payload_v1.json")
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodePayload(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, goldenPayload) {
		t.Errorf("decoded\n%+v\nwant\n%+v", got, goldenPayload)
	}
}

// Version 1 is the unversioned shape with its version named: the same keys
// and values, so a formd that reads either reads both.
func TestAPayloadIsEncodedAsVersion1(t *testing.T) {
	golden, err := os.ReadFile("testdata/payload_v1.json")
	if err != nil {
		t.Fatal(err)
	}
	encoded, err := encodePayload(goldenPayload)
	if err != nil {
		t.Fatal(err)
	}
	var want, got map[string]any
	if err := json.Unmarshal(golden, &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(encoded, &got); err != nil {
		t.Fatal(err)
	}
	if got["v"] != float64(1) {
		t.Errorf("version %v, want 1", got["v"])
	}
	delete(got, "v")
	if !reflect.DeepEqual(got, want) {
		t.Errorf("encoded\n%s\nwant the golden shape\n%s", encoded, golden)
	}
	back, err := decodePayload(encoded)
	if err != nil || !reflect.DeepEqual(back, goldenPayload) {
		t.Errorf("round trip: %+v, %v", back, err)
	}
}

func TestAnEmptyPayloadRoundTrips(t *testing.T) {
	encoded, err := encodePayload(Payload{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodePayload(encoded)
	if err != nil || !reflect.DeepEqual(got, Payload{}) {
		t.Errorf("round trip: %+v, %v", got, err)
	}
}

// A payload a newer formd wrote waits for that formd, as one sealed under a
// missing key does: giving up would redact it.
func TestAPayloadOfAnUnknownVersionWaits(t *testing.T) {
	_, err := decodePayload([]byte(`{"v":2,"fields":[]}`))
	if !errors.Is(err, ErrUnsealable) {
		t.Errorf("err %v, want ErrUnsealable", err)
	}
	if _, err := decodePayload([]byte(`not json`)); err == nil || errors.Is(err, ErrUnsealable) {
		t.Errorf("err %v, want a decoding error that is not ErrUnsealable", err)
	}
}

// A delivery whose payload a newer formd wrote is retried later, never
// given up: giving up would redact the payload.
func TestADeliveryOfAPayloadOfAnUnknownVersionIsRetried(t *testing.T) {
	store := &oneDelivery{payload: &SealedPayload{Ciphertext: []byte(`{"v":2,"webhook":"https://hooks.example.com"}`)},
		claimed: ClaimedDelivery{Queued: delivery.Queued{DeliveryID: "d1", SubmissionID: "s1", FormID: "f1", Kind: delivery.KindWebhook}}}
	h := NewDeliverHandler(store, plainSealer{}, noMail{}, webhookResult{}, noSecrets{}, NewMemoryTransactor(), noVerifications{}, prefixTokens{},
		MailSettings{}, fixedClock{}, discardLog, NopMetrics{}, plainLinks{}, plainSpamLinks{}, plainTemplates{}, nil)
	if _, err := h.Handle(context.Background(), DeliverDue{Limit: 1}); err != nil {
		t.Fatal(err)
	}
	if len(store.recorded) != 1 {
		t.Fatalf("recorded %+v", store.recorded)
	}
	failed, ok := store.recorded[0].Outcome.(delivery.AttemptFailed)
	if !ok || !strings.Contains(failed.Reason, "newer formd") {
		t.Fatalf("outcome %#v; want a retry saying a newer formd wrote the payload", store.recorded[0].Outcome)
	}
}

// A tagged submission's spam verdict travels in the sealed payload, and
// payloads sealed before it existed decode without one.
func TestASpamTagRoundTripsInVersion1(t *testing.T) {
	tagged := Payload{Subject: "[SPAM] Hi", Spam: &SpamTag{Score: 2, Reasons: []string{`blockWords matched "viagra"`, "maxLinks 5 > 3"}}}
	encoded, err := encodePayload(tagged)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(encoded), `"v":1`) || !strings.Contains(string(encoded), `"spam":{"score":2,`) {
		t.Fatalf("encoded %s, want version 1 with a spam object", encoded)
	}
	got, err := decodePayload(encoded)
	if err != nil || !reflect.DeepEqual(got, tagged) {
		t.Errorf("round trip: %+v, %v", got, err)
	}
	if untagged, _ := encodePayload(Payload{Subject: "Hi"}); strings.Contains(string(untagged), `"spam"`) {
		t.Errorf("an untagged payload carries no spam object: %s", untagged)
	}
}

// A routed notification's recipient travels with the payload's other
// per-delivery destinations; a payload sealed before routing existed
// decodes with none, so every notification goes to Recipient.
func TestARoutedRecipientRoundTripsInVersion1(t *testing.T) {
	routed := Payload{Recipient: "owner@example.com", Destinations: map[string]Destination{"d2": {Email: "sales@example.com"}}}
	encoded, err := encodePayload(routed)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(encoded), `"destinations":{"d2":{"email":"sales@example.com"}}`) {
		t.Fatalf("encoded %s, want the routed recipient among the destinations", encoded)
	}
	got, err := decodePayload(encoded)
	if err != nil || !reflect.DeepEqual(got, routed) {
		t.Errorf("round trip: %+v, %v", got, err)
	}
	old, err := decodePayload([]byte(`{"recipient":"owner@example.com","destinations":{"d4":{"chatId":"-100123"}}}`))
	if err != nil || old.Destinations["d4"].Email != "" || old.Destinations["d4"].ChatID != "-100123" {
		t.Errorf("an older payload decoded as %+v, %v", old, err)
	}
}

// A submission's own deliveries are attempted with the payload it had in
// memory (ClaimedDelivery.Opened), every other with the payload decoded
// from its seal: the two must be the same. A field added to Payload fails
// here until the sample sets it and version 1 carries it.
func TestEveryFieldOfAPayloadRoundTrips(t *testing.T) {
	full := goldenPayload
	full.Destinations = map[string]Destination{"d4": {ChatID: "-100123"}, "d5": {SpreadsheetID: "sheet-1", SheetName: "Leads"},
		"d6": {Email: "sales@example.com"}}
	full.Spam = &SpamTag{Score: 7.5, Reasons: []string{"BAYES_SPAM"}}
	full.Held = &SpamTag{Score: 12, Reasons: []string{"URIBL"}}
	full.SpamLink = true
	full.Templates = form.Templates{Notification: form.MessageTemplate{Subject: "{{form}}", Text: "{{#fields}}{{name}}{{/fields}}", HTML: "<p>hi</p>"},
		Autoresponder: form.MessageTemplate{Subject: "Thanks", Text: "We got it"}}
	v := reflect.ValueOf(full)
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Fatalf("the sample leaves Payload.%s unset", v.Type().Field(i).Name)
		}
	}
	encoded, err := encodePayload(full)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodePayload(encoded)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, full) {
		t.Errorf("round trip changed the payload:\n got %+v\nwant %+v", got, full)
	}
}

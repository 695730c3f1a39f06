package application

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
)

// The fakes of the webhook sender also stand for the rest of Outbound.
func (webhookResult) SendTelegram(context.Context, TelegramMessage) error {
	return errors.New("unexpected telegram message")
}
func (webhookResult) AppendRow(context.Context, SheetRow) error {
	return errors.New("unexpected sheet row")
}

// sentWebhooks records every outbound call.
func (s *sentWebhooks) SendTelegram(_ context.Context, m TelegramMessage) error {
	s.telegram = append(s.telegram, m)
	return nil
}

func (s *sentWebhooks) AppendRow(_ context.Context, r SheetRow) error {
	s.rows = append(s.rows, r)
	return nil
}

// allServices is a server configured for every integration type.
type allServices struct{}

func (allServices) Configured(form.IntegrationType) bool { return true }

// webhooksOnly is a server without a Telegram bot or a service account.
type webhooksOnly struct{}

func (webhooksOnly) Configured(t form.IntegrationType) bool {
	return t != form.IntegrationTelegram && t != form.IntegrationGoogleSheets
}

func TestAcceptQueuesTelegramAndSheetsWithTheirDestinationsSealed(t *testing.T) {
	f := liveForm(1, "example.com")
	f.Integrations = []form.Integration{
		{Type: form.IntegrationGoogleSheets, Enabled: true, SpreadsheetID: "1AbCdEfGhIjK", SheetName: "Leads", SheetProven: true},
		{Type: form.IntegrationTelegram, Enabled: true, ChatID: "-1001"},
	}
	store := &fakeStore{}
	out, err := newTestSubmitHandler(&fakeForms{cached: f, fresh: f}, store).Handle(context.Background(), post("https://example.com"))
	if err != nil || len(store.accepted) != 1 {
		t.Fatalf("Handle: %v, accepted %d", err, len(store.accepted))
	}
	ids := out.Response.NotificationDeliveryIDs
	if len(ids) != 2 {
		t.Fatalf("notificationDeliveryIds %v, want the Telegram and Sheets deliveries", ids)
	}
	a := store.accepted[0]
	p, err := decodePayload(a.Payload.Ciphertext)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		kind, target string
		to           Destination
	}{
		{delivery.KindTelegram, "telegram:-1001", Destination{ChatID: "-1001"}},
		{delivery.KindGoogleSheets, "sheets:1AbCdEfGhIjK", Destination{SpreadsheetID: "1AbCdEfGhIjK", SheetName: "Leads"}},
	}
	for i, w := range want {
		var q *delivery.Queued
		for j := range a.Queued {
			if a.Queued[j].DeliveryID == ids[i] {
				q = &a.Queued[j]
			}
		}
		if q == nil || q.Kind != w.kind || q.Target != w.target {
			t.Errorf("queued %+v: want a %s delivery to %s with id %s", a.Queued, w.kind, w.target, ids[i])
		}
		if p.Destinations[ids[i]] != w.to {
			t.Errorf("sealed destination of %s = %+v, want %+v", w.kind, p.Destinations[ids[i]], w.to)
		}
	}
}

func TestDeliverSendsTheTelegramMessageAndTheSheetRow(t *testing.T) {
	at := time.Date(2026, 11, 22, 11, 59, 0, 0, time.UTC)
	payload, _ := encodePayload(Payload{FormName: "Contact",
		Fields:       []submission.Field{{Name: "name", Value: "Ada"}, {Name: "email", Value: "ada@example.com"}},
		Destinations: map[string]Destination{"d1": {ChatID: "-1001"}, "d2": {SpreadsheetID: "1AbCdEfGhIjK", SheetName: "Leads"}}})
	for _, kind := range []string{delivery.KindTelegram, delivery.KindGoogleSheets} {
		id := map[string]string{delivery.KindTelegram: "d1", delivery.KindGoogleSheets: "d2"}[kind]
		store := &oneDelivery{payload: &SealedPayload{Ciphertext: payload}, claimed: ClaimedDelivery{
			Queued: delivery.Queued{DeliveryID: id, SubmissionID: "s1", FormID: "f1", Kind: kind, At: at}}}
		sent := &sentWebhooks{}
		h := NewDeliverHandler(store, plainSealer{}, noMail{}, sent, noSecrets{}, NewMemoryTransactor(), noVerifications{}, prefixTokens{}, MailSettings{}, fixedClock{}, discardLog, NopMetrics{}, plainLinks{}, plainSpamLinks{}, plainTemplates{}, nil)
		if _, err := h.Handle(context.Background(), DeliverDue{Limit: 1}); err != nil {
			t.Fatal(err)
		}
		if len(sent.sent) != 0 {
			t.Errorf("%s: posted webhooks %+v", kind, sent.sent)
		}
		switch kind {
		case delivery.KindTelegram:
			if len(sent.telegram) != 1 || sent.telegram[0].ID != "d1" {
				t.Fatalf("telegram messages %+v, want one for d1", sent.telegram)
			}
			var body map[string]any
			_ = json.Unmarshal(sent.telegram[0].Body, &body)
			if body["chat_id"] != "-1001" || body["text"] != "New submission to Contact\nname: Ada\nemail: ada@example.com" {
				t.Errorf("telegram body %s", sent.telegram[0].Body)
			}
		case delivery.KindGoogleSheets:
			want := SheetRow{ID: "d2", SpreadsheetID: "1AbCdEfGhIjK", SheetName: "Leads", Values: []string{"2026-11-22T11:59:00Z", "ada@example.com", "Ada"}}
			if len(sent.rows) != 1 || !reflect.DeepEqual(sent.rows[0], want) {
				t.Errorf("rows %+v, want %+v", sent.rows, want)
			}
		}
		if got := store.recorded[0].Outcome; got == nil || got.EventType() != delivery.SucceededType {
			t.Errorf("%s: outcome %+v, want success", kind, got)
		}
	}
}

func TestTelegramAndSheetsNeedTheServersConfiguration(t *testing.T) {
	w := newIntegrationWorld(t)
	clock := &movableClock{now: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)}
	ctx := context.Background()
	configure := NewConfigureIntegrationHandler(w, w, &seqIDs{}, clock, boundSealer{}, webhooksOnly{}, w, w, NewSheetProofs(w, w, w, w, clock))
	on, off := true, false
	_, err := configure.Handle(ctx, ConfigureIntegration{Caller: integrationOwner, FormID: "form-1", Type: form.IntegrationTelegram,
		Patch: form.IntegrationPatch{Enabled: &on}})
	var invalid *domain.InvalidInputError
	if !errors.As(err, &invalid) || invalid.Field != "type" || !strings.Contains(err.Error(), "FORMD_TELEGRAM_BOT_TOKEN") {
		t.Fatalf("enabling telegram on a server without a bot: %v, want a 400 naming FORMD_TELEGRAM_BOT_TOKEN", err)
	}
	if len(w.formChanges()) != 0 {
		t.Fatal("a refused integration was saved")
	}
	if _, err := configure.Handle(ctx, ConfigureIntegration{Caller: integrationOwner, FormID: "form-1", Type: form.IntegrationTelegram,
		Patch: form.IntegrationPatch{Enabled: &off}}); err != nil {
		t.Fatalf("a disabled integration may be kept on such a server: %v", err)
	}
	test := NewTestIntegrationHandler(w, w, &seqIDs{}, clock, webhooksOnly{}, w)
	if _, err := test.Handle(ctx, TestIntegration{Caller: integrationOwner, FormID: "form-1", Type: form.IntegrationTelegram}); !errors.As(err, &invalid) ||
		!strings.Contains(err.Error(), "not available on this server") {
		t.Fatalf("testing telegram on a server without a bot: %v, want a 400", err)
	}
	if len(w.Queued()) != 0 {
		t.Fatalf("a refused test queued %+v", w.Queued())
	}
}

package form_test

import (
	"errors"
	"testing"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/form"
)

func TestTelegramChatIsOnlyEverConnected(t *testing.T) {
	f := integrationForm(t)
	t1, t2, t3 := formT0.Add(time.Hour).UTC(), formT0.Add(2*time.Hour).UTC(), formT0.Add(3*time.Hour).UTC()
	if err := f.ConnectTelegramChat("-1001", t1); err == nil {
		t.Fatal("connected a chat to a form without a telegram integration")
	}
	if err := f.ConfigureIntegration(form.IntegrationTelegram, form.IntegrationPatch{Enabled: ptr(true)}, t1); err != nil {
		t.Fatal(err)
	}
	if !f.AwaitsTelegramChat() {
		t.Fatal("a new telegram integration does not await its chat")
	}
	if err := f.ConnectTelegramChat("not a chat", t2); !errors.As(err, new(*domain.InvalidInputError)) {
		t.Fatalf("err = %v, want invalid chatId", err)
	}
	if err := f.ConnectTelegramChat("-1001", t2); err != nil {
		t.Fatal(err)
	}
	if in, _ := f.Integration(form.IntegrationTelegram); in.ChatID != "-1001" || !in.Enabled || f.AwaitsTelegramChat() {
		t.Fatalf("after connecting: %+v", in)
	}
	n := len(f.Changes())
	if err := f.ConnectTelegramChat("-1001", t2); err != nil || len(f.Changes()) != n {
		t.Fatalf("connecting the same chat again: %v, %d events", err, len(f.Changes())-n)
	}
	// Turning it off and on keeps the chat; an empty chatId disconnects it.
	off := false
	if err := f.ConfigureIntegration(form.IntegrationTelegram, form.IntegrationPatch{Enabled: &off}, t3); err != nil {
		t.Fatal(err)
	}
	again, err := form.FromHistory(f.Changes())
	if err != nil {
		t.Fatal(err)
	}
	if in, _ := again.Integration(form.IntegrationTelegram); in.ChatID != "-1001" || in.Enabled {
		t.Fatalf("rehydrated after disabling: %+v", in)
	}
	if err := f.ConfigureIntegration(form.IntegrationTelegram, form.IntegrationPatch{ChatID: ptr("")}, t3); err != nil {
		t.Fatal(err)
	}
	again, _ = form.FromHistory(f.Changes())
	if in, _ := again.Integration(form.IntegrationTelegram); in.ChatID != "" || !again.AwaitsTelegramChat() {
		t.Fatalf("rehydrated after disconnecting: %+v", in)
	}
}

// A configuration recorded when owners could type a chat id in names a chat
// nobody proved: rehydrated, the integration waits for a connected chat.
func TestATypedTelegramChatIsDroppedWhenRehydrated(t *testing.T) {
	f := integrationForm(t)
	typed := form.IntegrationConfigured{Integration: form.Integration{Type: form.IntegrationTelegram, Enabled: true, ChatID: "-1009"}, At: formT0}
	again, err := form.FromHistory(append(f.Changes(), typed))
	if err != nil {
		t.Fatal(err)
	}
	if in, ok := again.Integration(form.IntegrationTelegram); !ok || in.ChatID != "" || !in.Enabled {
		t.Fatalf("rehydrated %+v, %v: want enabled and without a chat", in, ok)
	}
}

func TestAGoogleSheetIsProvenOnlyForTheSpreadsheetItNames(t *testing.T) {
	f := integrationForm(t)
	t1 := formT0.Add(time.Hour).UTC()
	a, b := "1AbCdEfGhIjKlMnOp", "1ZyXwVuTsRqPoNmLk"
	if err := f.ConfigureIntegration(form.IntegrationGoogleSheets, form.IntegrationPatch{Enabled: ptr(true), SpreadsheetID: &a, SheetName: ptr("Leads")}, t1); err != nil {
		t.Fatal(err)
	}
	if !f.AwaitsSheetProof() {
		t.Fatal("a new spreadsheet is proven")
	}
	if err := f.ProveGoogleSheet(b, t1); err == nil {
		t.Fatal("proved a spreadsheet the integration does not name")
	}
	if err := f.ProveGoogleSheet(a, t1); err != nil {
		t.Fatal(err)
	}
	again, _ := form.FromHistory(f.Changes())
	if in, _ := again.Integration(form.IntegrationGoogleSheets); !in.SheetProven || again.AwaitsSheetProof() {
		t.Fatalf("after the proof: %+v", in)
	}
	// Renaming the sheet keeps the proof; another spreadsheet needs its own.
	if err := f.ConfigureIntegration(form.IntegrationGoogleSheets, form.IntegrationPatch{SheetName: ptr("2027")}, t1); err != nil {
		t.Fatal(err)
	}
	if in, _ := f.Integration(form.IntegrationGoogleSheets); !in.SheetProven {
		t.Fatal("renaming the sheet dropped the proof")
	}
	if err := f.ConfigureIntegration(form.IntegrationGoogleSheets, form.IntegrationPatch{SpreadsheetID: &b}, t1); err != nil {
		t.Fatal(err)
	}
	again, _ = form.FromHistory(f.Changes())
	if in, _ := again.Integration(form.IntegrationGoogleSheets); in.SheetProven || !again.AwaitsSheetProof() {
		t.Fatalf("another spreadsheet kept the proof: %+v", in)
	}
}

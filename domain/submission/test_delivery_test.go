package submission_test

import (
	"errors"
	"testing"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
)

func TestATestDeliveryGoesWhereTheIntegrationPostsEvenWhenDisabled(t *testing.T) {
	for typ, kind := range map[form.IntegrationType]string{
		form.IntegrationWebhook: delivery.KindWebhook, form.IntegrationSlack: delivery.KindSlack, form.IntegrationDiscord: delivery.KindDiscord,
	} {
		got, err := submission.TestDelivery(form.Integration{Type: typ, TargetURL: "https://hooks.example.com/x"})
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		if got.Kind != kind || got.WebhookURL != "https://hooks.example.com/x" || got.Target != "hooks.example.com" || got.Integration != typ {
			t.Errorf("%s: TestDelivery = %+v", typ, got)
		}
	}
}

func TestATestDeliveryOfTelegramAndSheetsGoesToTheirChatAndSheet(t *testing.T) {
	got, err := submission.TestDelivery(form.Integration{Type: form.IntegrationTelegram, ChatID: "@team_leads"})
	if err != nil || got.Kind != delivery.KindTelegram || got.ChatID != "@team_leads" || got.Target != "telegram:@team_leads" {
		t.Errorf("telegram: TestDelivery = %+v, %v", got, err)
	}
	got, err = submission.TestDelivery(form.Integration{Type: form.IntegrationGoogleSheets, SpreadsheetID: "abcdefghijkl", SheetName: "Leads", SheetProven: true})
	if err != nil || got.Kind != delivery.KindGoogleSheets || got.SpreadsheetID != "abcdefghijkl" || got.SheetName != "Leads" {
		t.Errorf("sheets: TestDelivery = %+v, %v", got, err)
	}
}

func TestATestDeliveryIsRefusedWithoutSomewhereToSend(t *testing.T) {
	for name, in := range map[string]form.Integration{
		"no target URL":      {Type: form.IntegrationSlack},
		"no chat id":         {Type: form.IntegrationTelegram, Enabled: true},
		"no sheet name":      {Type: form.IntegrationGoogleSheets, SpreadsheetID: "abcdefghijkl"},
		"no spreadsheet id":  {Type: form.IntegrationGoogleSheets, SheetName: "A"},
		"a sheet not proven": {Type: form.IntegrationGoogleSheets, SpreadsheetID: "abcdefghijkl", SheetName: "A"},
	} {
		_, err := submission.TestDelivery(in)
		var invalid *domain.InvalidInputError
		if !errors.As(err, &invalid) {
			t.Errorf("%s: err = %v, want an InvalidInputError", name, err)
		}
	}
}

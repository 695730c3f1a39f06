package mcp

import (
	"context"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/form"
)

// integrationShape is the API's Integration: settings a type does not use
// are left out; a webhook shows its secret's prefix, and its secret only in
// the answer of the call that made it.
type integrationShape struct {
	Type          string    `json:"type"`
	Enabled       bool      `json:"enabled"`
	TargetURL     *string   `json:"targetUrl,omitempty"`
	ChatID        *string   `json:"chatId,omitempty"`
	SpreadsheetID *string   `json:"spreadsheetId,omitempty"`
	SheetName     *string   `json:"sheetName,omitempty"`
	SecretPrefix  *string   `json:"secretPrefix,omitempty"`
	Secret        string    `json:"secret,omitempty" jsonschema:"a new webhook's signing secret (whsec_…), shown only this once: the receiver verifies the webhook-signature header with it (Standard Webhooks)"`
	CreatedAt     time.Time `json:"createdAt"`
	UpdatedAt     time.Time `json:"updatedAt"`
}

func presentIntegration(r application.IntegrationRecord) integrationShape {
	out := integrationShape{Type: string(r.Type), Enabled: r.Enabled, Secret: r.Secret, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
	switch r.Type {
	case form.IntegrationWebhook:
		out.TargetURL, out.SecretPrefix = &r.TargetURL, &r.SecretPrefix
	case form.IntegrationSlack, form.IntegrationDiscord:
		out.TargetURL = &r.TargetURL
	case form.IntegrationTelegram:
		out.ChatID = &r.ChatID
	case form.IntegrationGoogleSheets:
		out.SpreadsheetID, out.SheetName = &r.SpreadsheetID, &r.SheetName
	}
	return out
}

const integrationTypes = "webhook, slack, discord, telegram or google_sheets"

// configureIntegrationInput is PATCH /v1/forms/{formId}/integrations/{type}.
type configureIntegrationInput struct {
	FormID        string  `json:"formId" jsonschema:"the form's id"`
	Type          string  `json:"type" jsonschema:"webhook, slack, discord, telegram or google_sheets"`
	Enabled       *bool   `json:"enabled,omitempty"`
	TargetURL     *string `json:"targetUrl,omitempty" jsonschema:"webhook, slack, discord: the https URL formd posts to"`
	ChatID        *string `json:"chatId,omitempty" jsonschema:"telegram: the chat the bot writes to"`
	SpreadsheetID *string `json:"spreadsheetId,omitempty" jsonschema:"google_sheets: the spreadsheet, shared with formd's service account as an editor"`
	SheetName     *string `json:"sheetName,omitempty" jsonschema:"google_sheets: the sheet rows are appended to"`
}

// integrationOutput is configure_integration's answer: the integration as
// it now is (its target URL masked), or only an acknowledgement when the
// caller may not read forms.
type integrationOutput struct {
	Integration *integrationShape `json:"integration,omitempty" jsonschema:"the integration as it now is; absent when the credential may write forms but not read them"`
	Saved       *integrationSaved `json:"saved,omitempty" jsonschema:"set instead of integration when the credential may write forms but not read them (no forms:read)"`
}

// integrationSaved acknowledges a change made by a credential that may
// write forms but not read them, with a new webhook's secret, once.
type integrationSaved struct {
	Type      string    `json:"type"`
	Secret    string    `json:"secret,omitempty" jsonschema:"a new webhook's signing secret (whsec_…), shown only this once"`
	UpdatedAt time.Time `json:"updatedAt"`
}

type testIntegrationInput struct {
	FormID string `json:"formId" jsonschema:"the form's id"`
	Type   string `json:"type" jsonschema:"the integration to test: webhook, slack, discord, telegram or google_sheets"`
}

func (s *Server) integrationTools(srv *sdk.Server) {
	addTool(s, srv, &sdk.Tool{Name: "configure_integration", Title: "Configure an integration", Annotations: changes,
		Description: "Creates or changes one of a form's integrations (" + integrationTypes + "); only the fields given change. " +
			"Every accepted submission is then also sent there. A new webhook answers its signing secret once. Needs forms:write."},
		func(ctx context.Context, caller application.Session, in configureIntegrationInput) (integrationOutput, error) {
			id, err := idOf(in.FormID)
			if err != nil {
				return integrationOutput{}, err
			}
			typ, err := form.ParseIntegrationType(in.Type)
			if err != nil {
				return integrationOutput{}, err
			}
			rec, err := s.app.Commands.ConfigureIntegration.Handle(ctx, application.ConfigureIntegration{
				Caller: caller, RequestID: requestIDOf(ctx), FormID: id, Type: typ,
				Patch: form.IntegrationPatch{Enabled: in.Enabled, TargetURL: in.TargetURL, ChatID: in.ChatID,
					SpreadsheetID: in.SpreadsheetID, SheetName: in.SheetName},
			})
			if err != nil {
				return integrationOutput{}, err
			}
			if !caller.ReadsForms() {
				return integrationOutput{Saved: &integrationSaved{Type: string(rec.Type), Secret: rec.Secret, UpdatedAt: rec.UpdatedAt}}, nil
			}
			shape := presentIntegration(rec)
			return integrationOutput{Integration: &shape}, nil
		})

	addTool(s, srv, &sdk.Tool{Name: "test_integration", Title: "Test an integration", Annotations: sends,
		Description: "Sends one sample message, marked as a test, to a configured integration of a form (even a disabled " +
			"one), through the delivery queue like a submission's. Returns the queued delivery; its outcome shows in " +
			"list_deliveries. Needs forms:write."},
		func(ctx context.Context, caller application.Session, in testIntegrationInput) (deliveryOutput, error) {
			id, err := idOf(in.FormID)
			if err != nil {
				return deliveryOutput{}, err
			}
			typ, err := form.ParseIntegrationType(in.Type)
			if err != nil {
				return deliveryOutput{}, err
			}
			d, err := s.app.Commands.TestIntegration.Handle(ctx, application.TestIntegration{Caller: caller, RequestID: requestIDOf(ctx), FormID: id, Type: typ})
			if err != nil {
				return deliveryOutput{}, err
			}
			return deliveryOutput{Delivery: presentDelivery(d)}, nil
		})
}

package mcp

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/ports/portkit"
)

const integrationTypes = "webhook, slack, discord, telegram or google_sheets"

// configureIntegrationInput is PATCH /v1/forms/{formId}/integrations/{type}.
type configureIntegrationInput struct {
	FormID        string  `json:"formId" jsonschema:"the form's id"`
	Type          string  `json:"type" jsonschema:"webhook, slack, discord, telegram or google_sheets"`
	Enabled       *bool   `json:"enabled,omitempty"`
	TargetURL     *string `json:"targetUrl,omitempty" jsonschema:"webhook, slack, discord: the https URL formd posts to"`
	SpreadsheetID *string `json:"spreadsheetId,omitempty" jsonschema:"google_sheets: the spreadsheet, shared with formd's service account as an editor"`
	SheetName     *string `json:"sheetName,omitempty" jsonschema:"google_sheets: the sheet rows are appended to"`
}

// integrationOutput is configure_integration's answer: the integration as
// it now is (its target URL masked), or only an acknowledgement when the
// caller may not read forms.
type integrationOutput struct {
	Integration *portkit.Integration      `json:"integration,omitempty" jsonschema:"the integration as it now is; absent when the credential may write forms but not read them"`
	Saved       *portkit.IntegrationSaved `json:"saved,omitempty" jsonschema:"set instead of integration when the credential may write forms but not read them (no forms:read)"`
}

type testIntegrationInput struct {
	FormID string `json:"formId" jsonschema:"the form's id"`
	Type   string `json:"type" jsonschema:"the integration to test: webhook, slack, discord, telegram or google_sheets"`
}

func (s *Server) integrationTools(srv *sdk.Server) {
	addTool(s, srv, &sdk.Tool{Name: "configure_integration", Title: "Configure an integration", Annotations: changes,
		Description: "Creates or changes one of a form's integrations (" + integrationTypes + "); only the fields given change. " +
			"Every accepted submission is then also sent there. A new webhook answers its signing secret once. A telegram " +
			"integration answers a one-time connect code while no chat is connected: someone in the chat sends its command " +
			"to the bot, which connects that chat (a chat id cannot be given). A google_sheets integration appends rows only once " +
			"its spreadsheet is proven: write the answer's proof.code in cell A1 of a sheet named formd, then configure it again. Needs forms:write."},
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
				Patch: form.IntegrationPatch{Enabled: in.Enabled, TargetURL: in.TargetURL,
					SpreadsheetID: in.SpreadsheetID, SheetName: in.SheetName},
			})
			if err != nil {
				return integrationOutput{}, err
			}
			shape := portkit.PresentIntegration(rec)
			if !caller.ReadsForms() {
				saved := shape.Saved()
				return integrationOutput{Saved: &saved}, nil
			}
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
			return deliveryOutput{Delivery: portkit.PresentDelivery(d)}, nil
		})
}

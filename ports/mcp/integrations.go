package mcp

import (
	"context"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/ports/portkit"
)

// integrationShape is the API's Integration: settings a type does not use
// are left out; a webhook shows its secret's prefix, and its secret only in
// the answer of the call that made it.
type integrationShape struct {
	Type          string        `json:"type"`
	Enabled       bool          `json:"enabled"`
	TargetURL     *string       `json:"targetUrl,omitempty"`
	ChatID        *string       `json:"chatId,omitempty"`
	SpreadsheetID *string       `json:"spreadsheetId,omitempty"`
	SheetName     *string       `json:"sheetName,omitempty"`
	SecretPrefix  *string       `json:"secretPrefix,omitempty"`
	Secret        string        `json:"secret,omitempty" jsonschema:"a new webhook's signing secret (whsec_…), shown only this once: the receiver verifies the webhook-signature header with it (Standard Webhooks)"`
	Connect       *connectShape `json:"connect,omitempty" jsonschema:"telegram without a connected chat: how to connect one, shown only this once"`
	SheetProven   *bool         `json:"sheetProven,omitempty" jsonschema:"google_sheets: whether the spreadsheet is proven; rows are appended only then"`
	Proof         *proofShape   `json:"proof,omitempty" jsonschema:"google_sheets while unproven: write code in the cell range names, then configure the integration again"`
	CreatedAt     time.Time     `json:"createdAt"`
	UpdatedAt     time.Time     `json:"updatedAt"`
}

// connectShape tells how to connect a Telegram chat to the form.
type connectShape struct {
	Code      string    `json:"code" jsonschema:"the one-time connect code"`
	Command   string    `json:"command" jsonschema:"what someone in the chat sends to the bot: /start and the code"`
	URL       string    `json:"url,omitempty" jsonschema:"the bot's link that sends the command from a private chat"`
	GroupURL  string    `json:"groupUrl,omitempty" jsonschema:"the bot's link that adds it to a group with the code"`
	ExpiresAt time.Time `json:"expiresAt" jsonschema:"when the code stops working"`
}

// proofShape is a Google Sheets proof.
type proofShape struct {
	Code  string `json:"code" jsonschema:"the form's proof code for this spreadsheet"`
	Range string `json:"range" jsonschema:"the cell to write it in: A1 of a sheet named formd"`
}

func presentIntegration(r application.IntegrationRecord) integrationShape {
	out := integrationShape{Type: string(r.Type), Enabled: r.Enabled, Secret: r.Secret, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
	if c := r.Connect; c != nil {
		out.Connect = &connectShape{Code: c.Code, Command: c.Command, URL: c.URL, GroupURL: c.GroupURL, ExpiresAt: c.ExpiresAt}
	}
	switch r.Type {
	case form.IntegrationWebhook:
		out.TargetURL, out.SecretPrefix = &r.TargetURL, &r.SecretPrefix
	case form.IntegrationSlack, form.IntegrationDiscord:
		out.TargetURL = &r.TargetURL
	case form.IntegrationTelegram:
		out.ChatID = &r.ChatID
	case form.IntegrationGoogleSheets:
		out.SpreadsheetID, out.SheetName, out.SheetProven = &r.SpreadsheetID, &r.SheetName, &r.SheetProven
		if r.Proof != nil {
			out.Proof = &proofShape{Code: r.Proof.Code, Range: r.Proof.Range}
		}
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
// write forms but not read them, with what that one answer alone carries
// (a new webhook's secret, a Telegram connect code, a spreadsheet's proof
// code), as the JSON API's acknowledgement does.
type integrationSaved struct {
	Type      string        `json:"type"`
	Secret    string        `json:"secret,omitempty" jsonschema:"a new webhook's signing secret (whsec_…), shown only this once"`
	Connect   *connectShape `json:"connect,omitempty" jsonschema:"telegram without a connected chat: how to connect one, shown only this once"`
	Proof     *proofShape   `json:"proof,omitempty" jsonschema:"google_sheets while unproven: write code in the cell range names, then configure the integration again"`
	UpdatedAt time.Time     `json:"updatedAt"`
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
			shape := presentIntegration(rec)
			if !caller.ReadsForms() {
				return integrationOutput{Saved: &integrationSaved{Type: shape.Type, Secret: shape.Secret, Connect: shape.Connect,
					Proof: shape.Proof, UpdatedAt: shape.UpdatedAt}}, nil
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

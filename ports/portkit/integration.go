package portkit

import (
	"time"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/form"
)

// Integration is the spec's Integration: settings a type does not use are
// left out; a webhook shows its secret's prefix, and its secret only in the
// answer of the call that made it.
type Integration struct {
	Type          string           `json:"type"`
	Enabled       bool             `json:"enabled"`
	TargetURL     *string          `json:"targetUrl,omitempty"`
	ChatID        *string          `json:"chatId,omitempty"`
	SpreadsheetID *string          `json:"spreadsheetId,omitempty"`
	SheetName     *string          `json:"sheetName,omitempty"`
	SecretPrefix  *string          `json:"secretPrefix,omitempty"`
	Secret        string           `json:"secret,omitempty" jsonschema:"a new webhook's signing secret (whsec_…), shown only this once: the receiver verifies the webhook-signature header with it (Standard Webhooks)"`
	Connect       *TelegramConnect `json:"connect,omitempty" jsonschema:"telegram without a connected chat: how to connect one, shown only this once"`
	SheetProven   *bool            `json:"sheetProven,omitempty" jsonschema:"google_sheets: whether the spreadsheet is proven; rows are appended only then"`
	Proof         *SheetProof      `json:"proof,omitempty" jsonschema:"google_sheets while unproven: write code in the cell range names, then configure the integration again"`
	CreatedAt     time.Time        `json:"createdAt"`
	UpdatedAt     time.Time        `json:"updatedAt"`
}

// TelegramConnect tells how to connect a Telegram chat to the form: send
// the command to the bot from the chat (or open url, or groupUrl to add the
// bot to a group) before expiresAt.
type TelegramConnect struct {
	Code      string    `json:"code" jsonschema:"the one-time connect code"`
	Command   string    `json:"command" jsonschema:"what someone in the chat sends to the bot: /start and the code"`
	URL       string    `json:"url,omitempty" jsonschema:"the bot's link that sends the command from a private chat"`
	GroupURL  string    `json:"groupUrl,omitempty" jsonschema:"the bot's link that adds it to a group with the code"`
	ExpiresAt time.Time `json:"expiresAt" jsonschema:"when the code stops working"`
}

// SheetProof is a Google Sheets proof: write code in range (cell A1 of a
// sheet named formd), then save the integration again.
type SheetProof struct {
	Code  string `json:"code" jsonschema:"the form's proof code for this spreadsheet"`
	Range string `json:"range" jsonschema:"the cell to write it in: A1 of a sheet named formd"`
}

// PresentIntegration shows an integration with the settings of its type.
func PresentIntegration(r application.IntegrationRecord) Integration {
	out := Integration{Type: string(r.Type), Enabled: r.Enabled, Secret: r.Secret, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
	if c := r.Connect; c != nil {
		out.Connect = &TelegramConnect{Code: c.Code, Command: c.Command, URL: c.URL, GroupURL: c.GroupURL, ExpiresAt: c.ExpiresAt}
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
			out.Proof = &SheetProof{Code: r.Proof.Code, Range: r.Proof.Range}
		}
	}
	return out
}

// IntegrationSaved acknowledges a change made by a credential that may
// write forms but not read them: that the change is saved, and what that
// one answer alone carries (a new webhook's signing secret, a Telegram
// connect code, a spreadsheet's proof code), not the settings.
type IntegrationSaved struct {
	Type      string           `json:"type"`
	Secret    string           `json:"secret,omitempty" jsonschema:"a new webhook's signing secret (whsec_…), shown only this once"`
	Connect   *TelegramConnect `json:"connect,omitempty" jsonschema:"telegram without a connected chat: how to connect one, shown only this once"`
	Proof     *SheetProof      `json:"proof,omitempty" jsonschema:"google_sheets while unproven: write code in the cell range names, then configure the integration again"`
	UpdatedAt time.Time        `json:"updatedAt"`
}

// Saved is the acknowledgement of the change that left the integration as
// it is shown.
func (i Integration) Saved() IntegrationSaved {
	return IntegrationSaved{Type: i.Type, Secret: i.Secret, Connect: i.Connect, Proof: i.Proof, UpdatedAt: i.UpdatedAt}
}

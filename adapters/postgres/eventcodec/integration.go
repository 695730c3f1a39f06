package eventcodec

import (
	"encoding/json"
	"time"

	"github.com/formd/formd/domain/form"
)

func init() {
	Register(func(e form.IntegrationConfigured) formIntegrationConfiguredV1 {
		out := formIntegrationConfiguredV1{Changes: []changeV1{}, Integration: integrationToV1(e.Integration), At: e.At}
		for _, c := range e.Changes {
			out.Changes = append(out.Changes, changeV1{Field: c.Field, From: c.From, To: c.To})
		}
		return out
	}, func(s formIntegrationConfiguredV1) form.IntegrationConfigured {
		out := form.IntegrationConfigured{Integration: integrationFromV1(s.Integration), At: s.At}
		if len(s.Changes) > 0 {
			out.Changes = make([]form.Change, len(s.Changes))
		}
		for i, c := range s.Changes {
			out.Changes[i] = form.Change{Field: c.Field, From: c.From, To: c.To}
		}
		return out
	})
}

// integrationV1 is how an integration's configuration is stored, in events
// and in the forms read model. It never holds a secret.
type integrationV1 struct {
	Type          string    `json:"type"`
	Enabled       bool      `json:"enabled"`
	TargetURL     string    `json:"targetUrl,omitempty"`
	ChatID        string    `json:"chatId,omitempty"`
	SpreadsheetID string    `json:"spreadsheetId,omitempty"`
	SheetName     string    `json:"sheetName,omitempty"`
	SecretPrefix  string    `json:"secretPrefix,omitempty"`
	SheetProven   bool      `json:"sheetProven,omitempty"`
	CreatedAt     time.Time `json:"createdAt"`
	UpdatedAt     time.Time `json:"updatedAt"`
}

// formIntegrationConfiguredV1 is form.integration_configured.v1 as stored.
type formIntegrationConfiguredV1 struct {
	Changes     []changeV1    `json:"changes"`
	Integration integrationV1 `json:"integration"`
	At          time.Time     `json:"at"`
}

func integrationToV1(i form.Integration) integrationV1 {
	return integrationV1{Type: string(i.Type), Enabled: i.Enabled, TargetURL: i.TargetURL, ChatID: i.ChatID,
		SpreadsheetID: i.SpreadsheetID, SheetName: i.SheetName, SecretPrefix: i.SecretPrefix, SheetProven: i.SheetProven, CreatedAt: i.CreatedAt, UpdatedAt: i.UpdatedAt}
}

func integrationFromV1(s integrationV1) form.Integration {
	return form.Integration{Type: form.IntegrationType(s.Type), Enabled: s.Enabled, TargetURL: s.TargetURL, ChatID: s.ChatID,
		SpreadsheetID: s.SpreadsheetID, SheetName: s.SheetName, SecretPrefix: s.SecretPrefix, SheetProven: s.SheetProven, CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt}
}

// EncodeIntegrations stores a form's integrations for the forms read model.
func EncodeIntegrations(list []form.Integration) ([]byte, error) {
	out := make([]integrationV1, len(list))
	for i, in := range list {
		out[i] = integrationToV1(in)
	}
	return json.Marshal(out)
}

// DecodeIntegrations reads integrations stored by EncodeIntegrations.
func DecodeIntegrations(data []byte) ([]form.Integration, error) {
	var list []integrationV1
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, err
	}
	out := make([]form.Integration, len(list))
	for i, s := range list {
		out[i] = integrationFromV1(s)
	}
	return out, nil
}

// formWebhookSecretIssuedV1 is form.webhook_secret_issued.v1 as stored: the
// secret's id and prefix, never the secret.
type formWebhookSecretIssuedV1 struct {
	SecretID             string     `json:"secretId"`
	SecretPrefix         string     `json:"secretPrefix"`
	PreviousSecretPrefix string     `json:"previousSecretPrefix,omitempty"`
	PreviousExpiresAt    *time.Time `json:"previousExpiresAt,omitempty"`
	At                   time.Time  `json:"at"`
}

func init() {
	Register(func(e form.WebhookSecretIssued) formWebhookSecretIssuedV1 {
		out := formWebhookSecretIssuedV1{SecretID: e.SecretID, SecretPrefix: e.SecretPrefix, PreviousSecretPrefix: e.PreviousSecretPrefix, At: e.At}
		if !e.PreviousExpiresAt.IsZero() {
			t := e.PreviousExpiresAt
			out.PreviousExpiresAt = &t
		}
		return out
	}, func(s formWebhookSecretIssuedV1) form.WebhookSecretIssued {
		out := form.WebhookSecretIssued{SecretID: s.SecretID, SecretPrefix: s.SecretPrefix, PreviousSecretPrefix: s.PreviousSecretPrefix, At: s.At}
		if s.PreviousExpiresAt != nil {
			out.PreviousExpiresAt = *s.PreviousExpiresAt
		}
		return out
	})
}

// formTelegramChatConnectedV1 is form.telegram_chat_connected.v1 as stored.
type formTelegramChatConnectedV1 struct {
	ChatID string    `json:"chatId"`
	At     time.Time `json:"at"`
}

func init() {
	Register(func(e form.TelegramChatConnected) formTelegramChatConnectedV1 {
		return formTelegramChatConnectedV1{ChatID: e.ChatID, At: e.At}
	}, func(s formTelegramChatConnectedV1) form.TelegramChatConnected {
		return form.TelegramChatConnected{ChatID: s.ChatID, At: s.At}
	})
}

// formGoogleSheetProvenV1 is form.google_sheet_proven.v1 as stored.
type formGoogleSheetProvenV1 struct {
	SpreadsheetID string    `json:"spreadsheetId"`
	At            time.Time `json:"at"`
}

func init() {
	Register(func(e form.GoogleSheetProven) formGoogleSheetProvenV1 {
		return formGoogleSheetProvenV1{SpreadsheetID: e.SpreadsheetID, At: e.At}
	}, func(s formGoogleSheetProvenV1) form.GoogleSheetProven {
		return form.GoogleSheetProven{SpreadsheetID: s.SpreadsheetID, At: s.At}
	})
}

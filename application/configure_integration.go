package application

import (
	"context"
	"crypto/rand"
	"net/url"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/form"
)

// ConfigureIntegration is PATCH /v1/forms/{formId}/integrations/{type}.
type ConfigureIntegration struct {
	Caller    Session
	RequestID string
	FormID    string
	Type      form.IntegrationType
	Patch     form.IntegrationPatch
}

// ConfigureIntegrationHandler creates or changes one integration of a form.
type ConfigureIntegrationHandler struct {
	tx     Transactor
	read   FormReader
	ids    IDs
	clock  Clock
	sealer Sealer
	// services says which types this server can send to.
	services IntegrationServices
	// codes keep the Telegram connect codes; bot names the bot for links.
	codes IntegrationCodes
	bot   TelegramBot
	// proofs prove a Google spreadsheet before rows go to it.
	proofs *SheetProofs
}

// NewConfigureIntegrationHandler builds the handler; every dependency is required.
func NewConfigureIntegrationHandler(tx Transactor, read FormReader, ids IDs, clock Clock, sealer Sealer,
	services IntegrationServices, codes IntegrationCodes, bot TelegramBot, proofs *SheetProofs) *ConfigureIntegrationHandler {
	if tx == nil || read == nil || ids == nil || clock == nil || sealer == nil || services == nil || codes == nil || bot == nil || proofs == nil {
		panic("application: nil dependency of ConfigureIntegrationHandler")
	}
	return &ConfigureIntegrationHandler{tx: tx, read: read, ids: ids, clock: clock, sealer: sealer, services: services,
		codes: codes, bot: bot, proofs: proofs}
}

// unconfigured is the error for a type this server has no configuration
// to send to: the owner cannot fix it, so it says who can.
func unconfigured(t form.IntegrationType) error {
	setting := map[form.IntegrationType]string{
		form.IntegrationTelegram:     "FORMD_TELEGRAM_BOT_TOKEN",
		form.IntegrationGoogleSheets: "FORMD_GOOGLE_CREDENTIALS_FILE",
	}[t]
	return domain.Invalid("type", "%s integrations are not available on this server: its operator has not set %s", t, setting)
}

// Handle configures the caller's form's integration. A webhook gets its
// signing secret the first time it is configured, and only that answer
// carries the secret. The answer's target URL is masked, as every view
// shows it once saved. A Telegram integration without a connected chat gets
// a new connect code with every change, shown only in that answer. A Google
// Sheets integration naming a spreadsheet not proven yet is checked for its
// proof, and answers its proof code while unproven.
func (h *ConfigureIntegrationHandler) Handle(ctx context.Context, cmd ConfigureIntegration) (IntegrationRecord, error) {
	if err := cmd.Caller.Require(account.ScopeFormsWrite); err != nil {
		return IntegrationRecord{}, err
	}
	if _, err := ownedForm(ctx, h.read, cmd.Caller, cmd.FormID); err != nil {
		return IntegrationRecord{}, err
	}
	now := h.clock.Now()
	var out IntegrationRecord
	err := h.tx.InTx(ctx, metadataFor(cmd.Caller, cmd.RequestID), func(tx Tx) error {
		out = IntegrationRecord{} // a retried transaction starts afresh
		f, err := tx.LoadForm(ctx, cmd.FormID)
		if err != nil {
			return err
		}
		if err := f.ConfigureIntegration(cmd.Type, cmd.Patch, now); err != nil {
			return err
		}
		// Turning one off is always allowed, so an owner can silence an
		// integration the server can no longer send.
		if in, _ := f.Integration(cmd.Type); in.Enabled && !h.services.Configured(cmd.Type) {
			return unconfigured(cmd.Type)
		}
		if f.NeedsWebhookSecret() {
			if out.Secret, err = issueWebhookSecret(ctx, tx, f, h.ids, h.sealer, now); err != nil {
				return err
			}
		}
		if err := tx.SaveForm(ctx, f); err != nil {
			return err
		}
		in, _ := f.Integration(cmd.Type)
		out.Integration = in.Masked()
		return nil
	})
	if err != nil {
		return IntegrationRecord{}, err
	}
	if cmd.Type == form.IntegrationTelegram && out.ChatID == "" && h.services.Configured(cmd.Type) {
		if out.Connect, err = h.issueConnectCode(ctx, cmd.FormID, now); err != nil {
			return IntegrationRecord{}, err
		}
	}
	if cmd.Type == form.IntegrationGoogleSheets && out.SpreadsheetID != "" && !out.SheetProven && h.services.Configured(cmd.Type) {
		proven, err := h.proofs.Try(ctx, metadataFor(cmd.Caller, cmd.RequestID), cmd.FormID, out.SpreadsheetID)
		if err != nil {
			return IntegrationRecord{}, err
		}
		if out.SheetProven = proven; !proven {
			out.Proof = &SheetProof{Code: h.proofs.Code(cmd.FormID, out.SpreadsheetID), Range: form.SheetProofRange}
		}
	}
	return out, nil
}

// botNameWait bounds asking the Bot API for the bot's name (getMe, once).
const botNameWait = 3 * time.Second

// issueConnectCode makes the form's Telegram connect code, in place of any
// pending one. The code is 128 random bits; only its hash is kept.
func (h *ConfigureIntegrationHandler) issueConnectCode(ctx context.Context, formID string, now time.Time) (*ConnectCode, error) {
	code := rand.Text()
	c := &ConnectCode{Code: code, ExpiresAt: now.Add(form.TelegramConnectCodeTTL).UTC(), Command: "/start " + code}
	if err := h.codes.Issue(ctx, formID, form.IntegrationTelegram, HashSecret(code), c.ExpiresAt); err != nil {
		return nil, err
	}
	// Without the bot's name the command still works: links are a help,
	// not worth keeping the owner waiting on a slow Bot API.
	nameCtx, cancel := context.WithTimeout(ctx, botNameWait)
	defer cancel()
	if name, err := h.bot.Username(nameCtx); err == nil && name != "" {
		c.URL = "https://t.me/" + url.PathEscape(name) + "?start=" + code
		c.GroupURL = "https://t.me/" + url.PathEscape(name) + "?startgroup=" + code
	}
	return c, nil
}

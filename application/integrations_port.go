package application

import (
	"context"
	"time"

	"github.com/formd/formd/domain/form"
)

// IntegrationServices tells which integration types this server can send
// to: Telegram needs the operator's bot token, Google Sheets a service
// account; webhooks and chat webhooks need nothing.
type IntegrationServices interface {
	Configured(t form.IntegrationType) bool
}

// IntegrationRecord is one integration of a form, as PATCH and GET show it.
type IntegrationRecord struct {
	form.Integration
	// Secret is a webhook's new signing secret, only in the answer of the
	// call that made it; afterwards only Integration.SecretPrefix shows.
	Secret string
	// Connect is the one-time code that connects a Telegram chat, only in
	// the answer of the call that issued it (it is stored hashed).
	Connect *ConnectCode
	// Proof is what a Google Sheets integration's owner writes in the
	// spreadsheet to prove they may write to it, while it is not proven.
	Proof *SheetProof
}

// SheetProof is a form's proof code for a spreadsheet and the cell it goes
// in.
type SheetProof struct {
	Code, Range string
}

// ConnectCode is a one-time code that binds a chat to a form's Telegram
// integration when someone sends it to the operator's bot from that chat.
type ConnectCode struct {
	Code      string
	ExpiresAt time.Time
	// URL is the bot's deep link carrying the code (for a private chat), and
	// GroupURL the one that adds the bot to a group with it; both are empty
	// when the bot's username is not known.
	URL, GroupURL string
	// Command is what to send in the chat: "/start <code>".
	Command string
}

// IntegrationCodes keeps the pending one-time codes that prove a form's
// owner controls an integration's destination, each only by its SHA-256.
type IntegrationCodes interface {
	// Issue keeps the form's new code for the integration in place of any
	// code it had: one pending code per form and integration.
	Issue(ctx context.Context, formID string, t form.IntegrationType, codeHash []byte, expiresAt time.Time) error
	// Redeem takes the integration's unexpired code with this hash, once:
	// ok is false when there is none.
	Redeem(ctx context.Context, t form.IntegrationType, codeHash []byte, now time.Time) (formID string, ok bool, err error)
}

// TelegramBot is what connecting chats needs of the operator's bot.
type TelegramBot interface {
	// Updates long-polls the Bot API's getUpdates from offset for up to
	// wait.
	Updates(ctx context.Context, offset int64, wait time.Duration) ([]TelegramUpdate, error)
	// Username is the bot's @username without the @ (getMe), for links.
	Username(ctx context.Context) (string, error)
}

// TelegramUpdate is one update of the operator's bot that may carry a
// connect code: a message or channel post with its chat and text.
type TelegramUpdate struct {
	ID     int64
	ChatID string
	Text   string
}

// TelegramPolls makes sure one process at a time polls the bot's updates
// and keeps the offset they are read from where every process sees it.
type TelegramPolls interface {
	// Poll runs fn with the next update id to read while holding the
	// polling lease, and stores the next id fn returns (also with an
	// error: updates before it were handled). ran is false, and fn is not
	// run, while another process holds the lease.
	Poll(ctx context.Context, fn func(next int64) (int64, error)) (ran bool, err error)
}

// SheetCells reads one cell of a Google spreadsheet as the operator's
// service account: where a form's owner proves they may write to it.
type SheetCells interface {
	ReadCell(ctx context.Context, spreadsheetID, a1 string) (string, error)
}

// IntegrationTestLimits counts a form's integration test calls in
// PostgreSQL, so the limit holds however many processes take them.
type IntegrationTestLimits interface {
	// Take counts one call of the form unless limit calls were taken in
	// the window before now; then ok is false and retryAfter says when
	// the oldest of them leaves the window.
	Take(ctx context.Context, formID string, limit int, window time.Duration, now time.Time) (ok bool, retryAfter time.Duration, err error)
}

package form

import (
	"time"

	"github.com/formd/formd/domain"
)

// TelegramConnectCodeTTL is how long a Telegram connect code can be
// redeemed: long enough to open the chat and send it, short enough that a
// code seen over a shoulder is soon worth nothing.
const TelegramConnectCodeTTL = time.Hour

// TelegramChatConnectedType is the stored name of TelegramChatConnected.
const TelegramChatConnectedType = "form.telegram_chat_connected.v1"

// TelegramChatConnected records that someone in a Telegram chat sent the
// form's connect code to the operator's bot, so the bot posts the form's
// submissions there. The chat id comes from the Bot API, never from the
// form's owner: naming a chat is no proof of belonging to it.
type TelegramChatConnected struct {
	ChatID string    `json:"chatId"`
	At     time.Time `json:"at"`
}

// EventType implements Event.
func (TelegramChatConnected) EventType() string { return TelegramChatConnectedType }

// AwaitsTelegramChat reports whether the form has a Telegram integration
// with no chat connected: its owner needs a connect code.
func (f *Form) AwaitsTelegramChat() bool {
	in, ok := f.integrations[IntegrationTelegram]
	return ok && in.ChatID == ""
}

// ConnectTelegramChat binds the chat a connect code was sent from to the
// form's Telegram integration. Connecting the chat already connected
// records nothing.
func (f *Form) ConnectTelegramChat(chatID string, now time.Time) error {
	in, ok := f.integrations[IntegrationTelegram]
	if !ok {
		return domain.Invalid("type", "the form has no telegram integration")
	}
	if !telegramChatID.MatchString(chatID) {
		return domain.Invalid("chatId", "chatId must be a numeric Telegram chat id or a channel's @username")
	}
	if in.ChatID == chatID {
		return nil
	}
	f.record(TelegramChatConnected{ChatID: chatID, At: now.UTC()})
	return nil
}

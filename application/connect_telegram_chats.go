package application

import (
	"context"
	"errors"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/chat"
	"github.com/formd/formd/domain/form"
)

// TelegramPollWait is how long one getUpdates call waits for an update:
// below the outbound client's timeout, so a quiet bot is not an error.
const TelegramPollWait = 10 * time.Second

// ConnectTelegramChatsHandler reads the operator's bot's updates and
// connects each chat a valid connect code was sent from to the code's
// form. The chat id is the Bot API's, so only someone who can post in a
// chat can connect it. One process polls at a time (TelegramPolls).
type ConnectTelegramChatsHandler struct {
	tx    Transactor
	codes IntegrationCodes
	bot   TelegramBot
	polls TelegramPolls
	clock Clock
}

// NewConnectTelegramChatsHandler builds the handler; every dependency is required.
func NewConnectTelegramChatsHandler(tx Transactor, codes IntegrationCodes, bot TelegramBot, polls TelegramPolls,
	clock Clock) *ConnectTelegramChatsHandler {
	if tx == nil || codes == nil || bot == nil || polls == nil || clock == nil {
		panic("application: nil dependency of ConnectTelegramChatsHandler")
	}
	return &ConnectTelegramChatsHandler{tx: tx, codes: codes, bot: bot, polls: polls, clock: clock}
}

// TelegramPollResult says what one round of polling did.
type TelegramPollResult struct {
	// Polled is false when another process holds the polling lease.
	Polled bool
	// Updates is how many updates were read, Connected how many chats
	// were connected.
	Updates, Connected int
}

// Handle polls once, for up to wait, and handles what came.
func (h *ConnectTelegramChatsHandler) Handle(ctx context.Context, wait time.Duration) (TelegramPollResult, error) {
	var res TelegramPollResult
	ran, err := h.polls.Poll(ctx, func(next int64) (int64, error) {
		updates, err := h.bot.Updates(ctx, next, wait)
		if err != nil {
			return next, err
		}
		res.Updates = len(updates)
		for _, u := range updates {
			connected, err := h.connect(ctx, u)
			if err != nil {
				return next, err // this update is read again next round
			}
			if connected {
				res.Connected++
			}
			next = max(next, u.ID+1)
		}
		return next, nil
	})
	res.Polled = ran
	return res, err
}

// connect handles one update: a "/start <code>" message with a pending
// code connects its chat; anything else is passed over.
func (h *ConnectTelegramChatsHandler) connect(ctx context.Context, u TelegramUpdate) (bool, error) {
	code, ok := chat.StartCode(u.Text)
	if !ok || u.ChatID == "" {
		return false, nil
	}
	now := h.clock.Now()
	formID, ok, err := h.codes.Redeem(ctx, form.IntegrationTelegram, HashSecret(code), now)
	if err != nil || !ok {
		return false, err
	}
	md := Metadata{Actor: Actor{Type: ActorTelegram, ID: "chat:" + u.ChatID}}
	err = h.tx.InTx(ctx, md, func(tx Tx) error {
		f, err := tx.LoadForm(ctx, formID)
		if err != nil {
			return err
		}
		if err := f.ConnectTelegramChat(u.ChatID, now); err != nil {
			return err
		}
		return tx.SaveForm(ctx, f)
	})
	// A form deleted, or its integration gone or the chat unusable since
	// the code was issued: the code is spent and nothing is connected.
	var invalid *domain.InvalidInputError
	if errors.As(err, &invalid) || errors.Is(err, domain.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

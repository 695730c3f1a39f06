package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/formd/formd/application"
)

// pollTelegram reads the operator's bot's updates for connect codes. Every
// process runs it; one at a time holds the lease and polls, the others
// look again now and then, so one takes over when the poller stops.
func pollTelegram(ctx context.Context, connect *application.ConnectTelegramChatsHandler, log *slog.Logger) {
	const (
		standBy = 5 * time.Second  // between looks at another process's lease
		calm    = time.Second      // between rounds that came back at once
		backoff = 15 * time.Second // after a failure
	)
	for ctx.Err() == nil {
		started := time.Now()
		res, err := connect.Handle(ctx, application.TelegramPollWait)
		pause := time.Duration(0)
		switch {
		case err != nil && ctx.Err() == nil:
			log.Warn("reading the telegram bot's updates", "err", err)
			pause = backoff
		case !res.Polled:
			pause = standBy
		case res.Updates == 0:
			pause = calm - time.Since(started)
		}
		if res.Connected > 0 {
			log.Info("connected telegram chats", "count", res.Connected)
		}
		if pause > 0 {
			select {
			case <-ctx.Done():
			case <-time.After(pause):
			}
		}
	}
}

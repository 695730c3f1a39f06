package main

import (
	"log/slog"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/adapters/watermillpg"
	"github.com/formd/formd/application"
	"github.com/formd/formd/ports/events"
)

func provideWatermillLogger(log *slog.Logger) watermill.LoggerAdapter {
	return watermill.NewSlogLoggerWithLevelMapping(log, map[slog.Level]slog.Level{slog.LevelInfo: slog.LevelDebug})
}

// provideTransport tells the Watermill adapter what the event store
// publishes into: the postgres adapter's tables and NOTIFY channel.
func provideTransport() watermillpg.Transport {
	return watermillpg.Transport{Schema: postgres.Schema, Offsets: postgres.Offsets, Channel: postgres.NotifyChannel}
}

// provideSubscribe gives the event router one subscriber per consumer group,
// woken by its topic's notifications.
func provideSubscribe(pool *pgxpool.Pool, t watermillpg.Transport, wakers *watermillpg.Wakers, logger watermill.LoggerAdapter) events.Subscribe {
	return func(topic, group string) (message.Subscriber, error) {
		return watermillpg.NewSubscriber(pool, t, wakers.For(topic), group, logger)
	}
}

// provideDecode gives the event router the event store's decoding.
func provideDecode() events.Decode { return postgres.DecodeMessage }

// provideDeliveriesDue wakes idle delivery workers when a delivery is queued.
func provideDeliveriesDue(wakers *watermillpg.Wakers) events.DeliveriesDue {
	return wakers.For(postgres.DeliveriesDue).Next
}

// RouterFactory builds a fresh event router (a Watermill router cannot run again once stopped).
type RouterFactory func() (*events.Router, error)

func provideRouterFactory(app *application.Application, subscribe events.Subscribe, due events.DeliveriesDue,
	decode events.Decode, logger watermill.LoggerAdapter, handOff *events.DeliveryHandOff) RouterFactory {
	return func() (*events.Router, error) { return events.NewRouter(app, subscribe, due, decode, logger, handOff) }
}

package main

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/google/wire"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/formd/formd/adapters/mail"
	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/adapters/secrets"
	"github.com/formd/formd/adapters/system"
	"github.com/formd/formd/adapters/watermillpg"
	"github.com/formd/formd/adapters/webhook"
	"github.com/formd/formd/application"
	"github.com/formd/formd/ports/events"
	"github.com/formd/formd/ports/httpapi"
)

// adapterSet binds the driven adapters to the application's interfaces.
var adapterSet = wire.NewSet(
	providePool,
	provideKey,
	provideMailer,
	provideWatermillLogger,
	postgres.NewEventStore,
	postgres.NewTransactor,
	postgres.NewReadModel,
	postgres.NewSubmissionStore,
	postgres.NewFormCache,
	postgres.NewDeliveryStore,
	wire.Bind(new(application.DeliveryStore), new(*postgres.DeliveryStore)),
	provideSealer,
	provideWebhookSender,
	wire.Bind(new(application.WebhookSender), new(*webhook.Sender)),
	secrets.NewValueHasher,
	secrets.NewLinkTokens,
	watermillpg.NewWakers,
	wire.Struct(new(system.Clock)),
	wire.Struct(new(system.UUIDs)),
	wire.Struct(new(secrets.Argon2)),
	wire.Bind(new(application.Transactor), new(*postgres.Transactor)),
	wire.Bind(new(application.ReadModel), new(*postgres.ReadModel)),
	wire.Bind(new(application.Entitlements), new(*postgres.ReadModel)),
	wire.Bind(new(application.LinkTokens), new(*secrets.LinkTokens)),
	wire.Bind(new(application.SubmissionStore), new(*postgres.SubmissionStore)),
	wire.Bind(new(application.SubmissionForms), new(*postgres.FormCache)),
	wire.Bind(new(application.Sealer), new(*secrets.Sealer)),
	wire.Bind(new(application.ValueHasher), new(*secrets.ValueHasher)),
	wire.Bind(new(application.Clock), new(system.Clock)),
	wire.Bind(new(application.IDs), new(system.UUIDs)),
	wire.Bind(new(application.PasswordHasher), new(secrets.Argon2)),
)

// applicationSet builds the use cases.
var applicationSet = wire.NewSet(
	application.NewRegisterHandler,
	application.NewVerifyLinkHandler,
	application.NewFormsHandler,
	application.NewAuthenticator,
	application.NewSendVerificationEmailHandler,
	application.NewSubmitHandler,
	application.NewDeliverHandler,
	provideMailSettings,
	provideApplication,
)

// portSet builds the driving ports.
var portSet = wire.NewSet(
	provideHTTPConfig,
	provideHTTPHandler,
	events.NewRouter,
	wire.Struct(new(Service), "*"),
)

func providePool(ctx context.Context, cfg Config) (*pgxpool.Pool, func(), error) {
	pool, err := postgres.Connect(ctx, cfg.DatabaseURL)
	if err != nil {
		return nil, nil, err
	}
	return pool, pool.Close, nil
}

func provideKey(cfg Config, log *slog.Logger) (secrets.Key, error) {
	return secrets.LoadKey(cfg.SecretKey, cfg.DataDir, log)
}

func provideMailer(cfg Config) (application.Mailer, error) {
	if cfg.SMTPURL != "" {
		return mail.NewSMTP(cfg.SMTPURL)
	}
	return mail.NewSpool(cfg.MailSpool)
}

func provideWatermillLogger(log *slog.Logger) watermill.LoggerAdapter {
	return watermill.NewSlogLoggerWithLevelMapping(log, map[slog.Level]slog.Level{slog.LevelInfo: slog.LevelDebug})
}

func provideMailSettings(cfg Config) application.MailSettings {
	return application.MailSettings{BaseURL: cfg.BaseURL, From: cfg.MailFrom}
}

func provideApplication(reg *application.RegisterHandler, verify *application.VerifyLinkHandler,
	forms *application.FormsHandler, auth *application.Authenticator, mailer *application.SendVerificationEmailHandler,
	submit *application.SubmitHandler) *application.Application {
	return &application.Application{
		Commands: application.Commands{Register: reg, VerifyLink: verify, Forms: forms, SendVerificationEmail: mailer, Submit: submit},
		Queries:  application.Queries{Authenticate: auth, Forms: forms},
	}
}

func provideHTTPConfig(cfg Config) httpapi.Config {
	return httpapi.Config{BaseURL: cfg.BaseURL, TrustedProxies: cfg.TrustedProxies,
		SubmitRatePerIP: cfg.SubmitRate, SubmitBurstPerIP: cfg.SubmitBurst, AuthAttemptsPerMinute: cfg.AuthRate}
}

func provideWebhookSender(cfg Config) (*webhook.Sender, error) {
	return webhook.NewSender(webhook.Options{AllowPrivate: cfg.WebhookAllowPrivate, CAFile: cfg.WebhookCAFile})
}

func provideSealer(k secrets.Key) (*secrets.Sealer, error) { return secrets.NewSealer(k) }

func provideHTTPHandler(app *application.Application, pool *pgxpool.Pool, log *slog.Logger, cfg httpapi.Config) http.Handler {
	return httpapi.NewServer(app, pool, log, cfg)
}

// Service is everything `formd serve` runs.
type Service struct {
	Config  Config
	Log     *slog.Logger
	Pool    *pgxpool.Pool
	Wakers  *watermillpg.Wakers
	Router  *events.Router
	Handler http.Handler
	// Submissions is the group-commit store; it is closed after the HTTP
	// server drains so every accepted request gets its commit.
	Submissions *postgres.SubmissionStore
}

func newLogger(level string) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		l = slog.LevelInfo
	}
	return slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: l}))
}

// shutdownGrace bounds how long in-flight requests may finish at shutdown.
const shutdownGrace = 15 * time.Second

package main

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/google/wire"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/formd/formd/adapters/captcha"
	"github.com/formd/formd/adapters/clamav"
	"github.com/formd/formd/adapters/filetype"
	"github.com/formd/formd/adapters/mail"
	"github.com/formd/formd/adapters/outbound"
	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/adapters/prometheus"
	"github.com/formd/formd/adapters/ratelimit"
	"github.com/formd/formd/adapters/s3"
	"github.com/formd/formd/adapters/secrets"
	"github.com/formd/formd/adapters/system"
	"github.com/formd/formd/adapters/watermillpg"
	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/ports/events"
	"github.com/formd/formd/ports/httpapi"
	"github.com/formd/formd/ports/mcp"
	"github.com/formd/formd/ports/web"
)

// adapterSet binds the driven adapters to the application's interfaces.
var adapterSet = wire.NewSet(
	providePool,
	provideKeys,
	provideMailer,
	provideDevelopmentMail,
	provideWatermillLogger,
	provideCommitNotifier,
	provideEventStore,
	postgres.NewTransactor,
	postgres.NewReadModel,
	postgres.NewObservedSubmissionStore,
	postgres.NewFormCache,
	provideDeliveryStore,
	provideFailedPayloadRetention,
	wire.Bind(new(application.DeliveryStore), new(*postgres.DeliveryStore)),
	wire.Bind(new(application.DeliveryLog), new(*postgres.DeliveryStore)),
	postgres.NewDeliveryQueue,
	wire.Bind(new(application.DeliveryQueue), new(*postgres.DeliveryQueue)),
	postgres.NewPoisonedMessages,
	wire.Bind(new(application.PoisonedMessages), new(*postgres.PoisonedMessages)),
	postgres.NewAutoresponderLimits,
	wire.Bind(new(application.AutoresponderLimits), new(*postgres.AutoresponderLimits)),
	postgres.NewSpentChallenges,
	wire.Bind(new(application.SpentChallenges), new(*postgres.SpentChallenges)),
	wire.Bind(new(application.CaptchaSecrets), new(*postgres.ReadModel)),
	secrets.NewChallengeSigner,
	wire.Bind(new(application.ChallengeSigner), new(*secrets.ChallengeSigner)),
	provideCaptchaVerifier,
	wire.Bind(new(application.CaptchaVerifier), new(*captcha.Verifier)),
	provideSealer,
	provideOutbound,
	wire.Bind(new(application.Outbound), new(*outbound.Sender)),
	wire.Bind(new(application.IntegrationServices), new(*outbound.Sender)),
	wire.Bind(new(application.TelegramBot), new(*outbound.Sender)),
	wire.Bind(new(application.SheetCells), new(*outbound.Sender)),
	postgres.NewIntegrationProofs,
	wire.Bind(new(application.IntegrationCodes), new(*postgres.IntegrationProofs)),
	wire.Bind(new(application.TelegramPolls), new(*postgres.IntegrationProofs)),
	wire.Bind(new(application.IntegrationTestLimits), new(*postgres.IntegrationProofs)),
	secrets.NewValueHasher,
	secrets.NewLinkTokens,
	provideTransport,
	watermillpg.NewWakers,
	wire.Struct(new(system.Clock)),
	wire.Struct(new(system.UUIDs)),
	system.NewBackground,
	wire.Bind(new(application.Later), new(*system.Background)),
	wire.Struct(new(secrets.Argon2)),
	wire.Bind(new(application.Transactor), new(*postgres.Transactor)),
	wire.Bind(new(application.ReadModel), new(*postgres.ReadModel)),
	wire.Bind(new(application.Entitlements), new(*postgres.ReadModel)),
	wire.Bind(new(application.AccountPlans), new(*postgres.ReadModel)),
	wire.Bind(new(application.SubmissionCounts), new(*postgres.ReadModel)),
	provideQuotas,
	provideFormFloods,
	provideBucket,
	provideObjectStore,
	provideObjectLinks,
	provideUploadSettings,
	postgres.NewUploadReservations,
	postgres.NewTestInbox,
	wire.Bind(new(application.TestInboxStore), new(*postgres.TestInbox)),
	wire.Bind(new(application.UploadReservations), new(*postgres.UploadReservations)),
	wire.Struct(new(filetype.Sniffer)),
	wire.Bind(new(application.ContentSniffer), new(filetype.Sniffer)),
	wire.Bind(new(application.Verifications), new(*postgres.ReadModel)),
	wire.Bind(new(application.WebhookSecrets), new(*postgres.ReadModel)),
	wire.Bind(new(application.WorkspaceTokens), new(*postgres.ReadModel)),
	wire.Bind(new(application.LinkTokens), new(*secrets.LinkTokens)),
	wire.Bind(new(application.SubmissionStore), new(*postgres.SubmissionStore)),
	wire.Bind(new(application.SubmissionForms), new(*postgres.FormCache)),
	wire.Bind(new(application.Sealer), new(*secrets.Sealer)),
	wire.Bind(new(application.ValueHasher), new(*secrets.ValueHasher)),
	wire.Bind(new(application.Clock), new(system.Clock)),
	wire.Bind(new(application.IDs), new(system.UUIDs)),
	wire.Bind(new(application.PasswordHasher), new(secrets.Argon2)),
	provideMetricSources,
	prometheus.New,
	wire.Bind(new(application.Metrics), new(*prometheus.Metrics)),
	wire.Bind(new(postgres.CommitObserver), new(*prometheus.Metrics)),
	wire.Bind(new(httpapi.RequestObserver), new(*prometheus.Metrics)),
	wire.Bind(new(mcp.RequestObserver), new(*prometheus.Metrics)),
)

// applicationSet builds the use cases.
var applicationSet = wire.NewSet(
	application.NewRegisterHandler,
	application.NewVerifyLinkHandler,
	application.NewRequestPasswordResetHandler,
	application.NewResetPasswordHandler,
	application.NewVerificationLinkHandler,
	application.NewCreateFormHandler,
	application.NewUpdateFormHandler,
	application.NewResendRecipientVerificationHandler,
	application.NewSubmitHandler,
	provideDeliveryHandOff,
	wire.Bind(new(application.DeliveryHandOff), new(*events.DeliveryHandOff)),
	provideIntakeCounter,
	application.NewCaptchaChecks,
	application.NewUploadIntake,
	application.NewReserveUploadHandler,
	application.NewReceiveObjectHandler,
	application.NewDownloadObjectHandler,
	application.NewFileAllowanceHandler,
	application.NewCleanUploadsHandler,
	application.NewRenderer,
	provideTestInbox,
	application.NewReadTestInboxHandler,
	application.NewClearTestInboxHandler,
	application.NewIssueChallengeHandler,
	application.NewGrantFeatureHandler,
	application.NewRevokeFeatureHandler,
	application.NewSetPlanHandler,
	application.NewAccountOverviewHandler,
	application.NewAccountHistoryHandler,
	application.NewQueueDeliveryHandler,
	application.NewRecordPoisonedMessageHandler,
	application.NewDeliverHandler,
	application.NewAuthenticateHandler,
	application.NewListFormsHandler,
	application.NewFormHistoryHandler,
	application.NewRecipientVerificationHandler,
	application.NewListDeliveriesHandler,
	application.NewDeliveryDetailsHandler,
	application.NewRetryDeliveryHandler,
	application.NewConfigureIntegrationHandler,
	application.NewTestIntegrationHandler,
	application.NewConnectTelegramChatsHandler,
	application.NewSheetProofs,
	application.NewRotateWebhookSecretHandler,
	application.NewListIntegrationsHandler,
	application.NewWebhookSigningSecretsHandler,
	application.NewListWorkspacesHandler,
	application.NewListWorkspaceTokensHandler,
	application.NewCreateWorkspaceTokenHandler,
	application.NewRevokeWorkspaceTokenHandler,
	application.NewSignInHandler,
	application.NewSignOutHandler,
	application.NewFormSubmissionCountsHandler,
	application.NewRequestForgeryTokenHandler,
	wire.Struct(new(application.Commands), "*"),
	wire.Struct(new(application.Queries), "*"),
	wire.Struct(new(application.Application), "*"),
	provideMailSettings,
)

// portSet builds the driving ports.
var portSet = wire.NewSet(
	provideHTTPConfig,
	provideWebConfig,
	provideRegistrationLimits,
	provideMCPConfig,
	provideHTTPHandler,
	provideSubscribe,
	provideDeliveriesDue,
	provideDecode,
	events.NewRouter,
	provideRouterFactory,
	wire.Struct(new(Service), "*"),
)

// provideDeliveryStore builds the delivery store with the configured
// retention of failed submissions' payloads.
func provideDeliveryStore(pool *pgxpool.Pool, store *postgres.EventStore, retention application.FailedPayloadRetention) *postgres.DeliveryStore {
	return postgres.NewDeliveryStore(pool, store).WithFailedPayloadRetention(time.Duration(retention))
}

// provideDeliveryHandOff is the delivery workers' hand-off, through which
// submissions give them the deliveries their commits claimed, and whose
// intake load they give way to from an average of FORMD_DELIVERY_GIVE_WAY_AT
// submissions in progress; /metrics serves that load.
func provideDeliveryHandOff(cfg Config, metrics *prometheus.Metrics) *events.DeliveryHandOff {
	h := events.NewDeliveryHandOff(cfg.DeliveryGiveWayAt)
	metrics.WatchIntake(h.Intake())
	return h
}

// provideIntakeCounter counts the submissions in progress into the load
// the delivery workers give way to.
func provideIntakeCounter(h *events.DeliveryHandOff) application.IntakeCounter { return h.Intake() }

func provideFailedPayloadRetention(cfg Config) application.FailedPayloadRetention {
	return application.FailedPayloadRetention(cfg.FailedPayloadRetention)
}

// provideQuotas is the plans' monthly submission quotas (FORMD_QUOTA_*).
func provideQuotas(cfg Config) account.Quotas {
	return account.Quotas{Free: cfg.QuotaFree, Pro: cfg.QuotaPro, Lifetime: cfg.QuotaLifetime}
}

// provideFormFloods is the per-form flood limit (FORMD_FORM_SUBMIT_RATE and
// _BURST); a rate of 0 allows everything.
func provideFormFloods(cfg Config) application.FormFloodLimits {
	return ratelimit.NewKeyed(cfg.FormSubmitRate, cfg.FormSubmitBurst)
}

func providePool(ctx context.Context, cfg Config) (*pgxpool.Pool, func(), error) {
	pool, err := postgres.Connect(ctx, cfg.DatabaseURL)
	if err != nil {
		return nil, nil, err
	}
	return pool, pool.Close, nil
}

// provideCommitNotifier starts the notifier that wakes listeners after the
// hot paths' commits; it stops before the pool closes.
func provideCommitNotifier(pool *pgxpool.Pool, log *slog.Logger) (*postgres.CommitNotifier, func()) {
	n := postgres.NewCommitNotifier(pool, log)
	return n, n.Close
}

// provideEventStore builds the event store whose hot-path appends wake
// listeners after their commits, not inside them, and only the subscribers
// of the topics formd's consumer groups read.
func provideEventStore(n *postgres.CommitNotifier) *postgres.EventStore {
	return postgres.NewEventStore().WithCommitNotifier(n).WakingOnly(events.ConsumedTopics...)
}

// provideKeys loads the keyring and logs its key ids (never the keys), so an
// operator rotating keys can tell which payloads still need an old one.
func provideKeys(cfg Config, log *slog.Logger) (secrets.Keyring, error) {
	r, err := secrets.LoadKeys(cfg.SecretKey, cfg.OldSecretKeys, cfg.DataDir, cfg.Dev, log)
	if err != nil {
		return r, err
	}
	old := make([]string, len(r.Old))
	for i, k := range r.Old {
		old[i] = k.ID()
	}
	log.Info("secret keys", "currentKeyId", r.Current.ID(), "oldKeyIds", old)
	return r, nil
}

// provideMailer keeps one idle SMTP connection per delivery worker, so each
// worker sends its claimed batch over one connection; they are closed with
// QUIT at shutdown.
func provideMailer(cfg Config) (application.Mailer, func(), error) {
	if cfg.SMTPURL != "" {
		m, err := mail.NewSMTP(cfg.SMTPURL, mail.WithPoolSize(cfg.DeliveryWorkers))
		if err != nil {
			return nil, nil, err
		}
		return m, m.Close, nil
	}
	m, err := mail.NewSpool(cfg.MailSpool)
	if err != nil {
		return nil, nil, err
	}
	return m, func() {}, nil
}

// provideDevelopmentMail lets the dashboard show the spooled mails, in
// development mode only (FORMD_DEV without FORMD_SMTP_URL).
func provideDevelopmentMail(cfg Config, mailer application.Mailer) *application.ReadDevelopmentMailHandler {
	if spool, ok := mailer.(*mail.Spool); ok && cfg.Dev {
		return application.NewReadDevelopmentMailHandler(spool)
	}
	return application.NewReadDevelopmentMailHandler(nil)
}

func provideWatermillLogger(log *slog.Logger) watermill.LoggerAdapter {
	return watermill.NewSlogLoggerWithLevelMapping(log, map[slog.Level]slog.Level{slog.LevelInfo: slog.LevelDebug})
}

// provideTestInbox keeps test renderings for FORMD_TEST_INBOX_RETENTION.
func provideTestInbox(store application.TestInboxStore, sealer application.Sealer, render *application.Renderer, clock application.Clock,
	cfg Config) *application.TestInbox {
	return application.NewTestInbox(store, sealer, render, clock, cfg.TestInboxRetention)
}

func provideMailSettings(cfg Config) application.MailSettings {
	return application.MailSettings{BaseURL: cfg.BaseURL, From: cfg.MailFrom}
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

// registrationLimits is the one bucket per client network of the
// registrations that tell whether an address has an account, shared by
// POST /agent/auth and the dashboard's registration; nil: no limit.
type registrationLimits struct{ keyed *ratelimit.Keyed }

// provideRegistrationLimits allows FORMD_REGISTER_RATE such registrations
// an hour per client network (IPv6 by /64), in bursts as large.
func provideRegistrationLimits(cfg Config) registrationLimits {
	if cfg.RegisterRate <= 0 {
		return registrationLimits{}
	}
	return registrationLimits{ratelimit.NewKeyed(cfg.RegisterRate/3600, max(int(cfg.RegisterRate), 1))}
}

func provideHTTPConfig(cfg Config, requests httpapi.RequestObserver, registrations registrationLimits) httpapi.Config {
	c := httpapi.Config{BaseURL: cfg.BaseURL, TrustedProxies: cfg.TrustedProxies,
		SubmitRatePerIP: cfg.SubmitRate, SubmitBurstPerIP: cfg.SubmitBurst, AuthAttemptsPerMinute: cfg.AuthRate,
		SubmissionsInFlight: cfg.SubmissionsInFlight, APIWritesPerMinute: cfg.APIWriteRate,
		FileBytesInFlight: int64(cfg.UploadMiBInFlight) << 20, FileBytesInFlightPerClient: int64(cfg.UploadMiBInFlightPerClient) << 20,
		MinBodyBytesPerSecond: cfg.MinBodyRate}
	if registrations.keyed != nil { // a nil *Keyed in the interface would not read as "no limit"
		c.Registrations = registrations.keyed
	}
	if cfg.MetricsAddr != "" { // nobody scrapes them otherwise: spare every request the work
		c.Requests = requests
	}
	return c
}

// provideMetricSources gives the metrics adapter the database readers of its
// gauges: the delivery queue (postgres) and consumer-group lag (watermillpg).
func provideMetricSources(pool *pgxpool.Pool, deliveries *postgres.DeliveryStore) prometheus.Sources {
	return prometheus.Sources{
		Queue: func(ctx context.Context) (prometheus.QueueStats, error) {
			s, err := deliveries.QueueStats(ctx)
			return prometheus.QueueStats{Queued: s.Queued, Retrying: s.Retrying, OldestDue: s.OldestDue}, err
		},
		Lag: func(ctx context.Context) ([]prometheus.GroupLag, error) {
			var out []prometheus.GroupLag
			for _, topic := range application.Topics {
				lags, err := watermillpg.Lag(ctx, pool, topic)
				if err != nil {
					return nil, err
				}
				for _, l := range lags {
					out = append(out, prometheus.GroupLag{Topic: l.Topic, Group: l.Group, Messages: l.Messages})
				}
			}
			return out, nil
		},
	}
}

func provideOutbound(cfg Config) (*outbound.Sender, error) {
	return outbound.NewSender(outbound.Options{AllowPrivate: cfg.WebhookAllowPrivate, CAFile: cfg.WebhookCAFile,
		TelegramBotToken: cfg.TelegramBotToken, TelegramAPIURL: cfg.TelegramAPIURL,
		GoogleCredentialsFile: cfg.GoogleCredentialsFile, GoogleTokenURL: cfg.GoogleTokenURL, GoogleSheetsURL: cfg.GoogleSheetsURL})
}

// provideBucket connects to the S3-compatible bucket of advanced uploads
// when FORMD_S3_ENDPOINT is set, and checks that the bucket exists, so a
// mistake stops formd at start rather than a visitor's upload; nil when the
// built-in store is used.
func provideBucket(ctx context.Context, cfg Config) (*s3.Store, error) {
	if cfg.S3Endpoint == "" {
		return nil, nil
	}
	bucket, err := s3.New(cfg.s3Config())
	if err != nil {
		return nil, err
	}
	return bucket, bucket.Check(ctx)
}

// provideObjectStore is the bucket when there is one, the built-in store
// in PostgreSQL otherwise.
func provideObjectStore(pool *pgxpool.Pool, bucket *s3.Store) application.ObjectStore {
	if bucket != nil {
		return bucket
	}
	return postgres.NewBuiltinObjects(pool)
}

// provideObjectLinks signs the bucket's URLs, or formd's own for the
// built-in store.
func provideObjectLinks(cfg Config, keys secrets.Keyring, bucket *s3.Store) (application.ObjectLinks, error) {
	if bucket != nil {
		return bucket, nil
	}
	return secrets.NewBuiltinObjectLinks(keys, cfg.BaseURL, cfg.DownloadBaseURL)
}

// provideUploadSettings connects the malware scanner when FORMD_CLAMD_ADDR
// is set (without one, GET /upload is refused) and sets the lifetimes.
func provideUploadSettings(cfg Config) (application.UploadSettings, error) {
	settings := application.UploadSettings{ReservationTTL: cfg.UploadReservationTTL, LinkTTL: cfg.UploadLinkTTL}
	if cfg.ClamdAddr != "" {
		scanner, err := clamav.New(cfg.ClamdAddr, clamav.Options{})
		if err != nil {
			return settings, err
		}
		settings.Scanner = scanner
	}
	return settings, nil
}

// provideCaptchaVerifier points the captcha adapter at the configured
// verification addresses.
func provideCaptchaVerifier(cfg Config) *captcha.Verifier {
	return captcha.NewVerifier(captcha.Options{RecaptchaURL: cfg.RecaptchaVerifyURL, HCaptchaURL: cfg.HCaptchaVerifyURL,
		TurnstileURL: cfg.TurnstileVerifyURL})
}

func provideSealer(r secrets.Keyring) (*secrets.Sealer, error) { return secrets.NewSealer(r) }

// provideHTTPHandler serves the MCP server (/mcp) and the dashboard (GET /
// and /dashboard/…) in front of the JSON API, which answers everything else.
func provideHTTPHandler(app *application.Application, pool *pgxpool.Pool, log *slog.Logger, cfg httpapi.Config,
	dashboard web.Config, agents mcp.Config) http.Handler {
	return mcp.NewHandler(app, log, agents, web.NewHandler(app, log, dashboard, httpapi.NewServer(app, pool, log, cfg)))
}

// provideMCPConfig reports /mcp requests to the metrics when they are
// served, as provideHTTPConfig does for the JSON API.
func provideMCPConfig(cfg Config, requests mcp.RequestObserver) mcp.Config {
	var c mcp.Config
	if cfg.MetricsAddr != "" {
		c.Requests = requests
	}
	return c
}

// provideWebConfig limits the dashboard's sign-in and registration attempts
// as FORMD_AUTH_RATE limits POST /agent/auth: per IP, and half as many per
// account (buckets of the dashboard's own, per process). Its requests count
// in the same latency metrics as the API's.
func provideWebConfig(cfg Config, requests httpapi.RequestObserver, registrations registrationLimits) web.Config {
	c := web.Config{BaseURL: cfg.BaseURL, TrustedProxies: cfg.TrustedProxies}
	if registrations.keyed != nil {
		c.Registrations = registrations.keyed
	}
	if cfg.MetricsAddr != "" {
		c.Requests = requests
	}
	if perMinute := cfg.AuthRate; perMinute > 0 {
		c.SignInPerIP = ratelimit.NewKeyed(perMinute/60, max(int(perMinute), 1))
		c.SignInPerAccount = ratelimit.NewKeyed(perMinute/120, max(int(perMinute/2), 1))
	}
	return c
}

// Service is everything `formd serve` runs.
type Service struct {
	Config Config
	Log    *slog.Logger
	Pool   *pgxpool.Pool
	Wakers *watermillpg.Wakers
	Router *events.Router
	// NewRouter builds another event router when the running one stops on a
	// database failure (serve restarts it).
	NewRouter RouterFactory
	Handler   http.Handler
	// Submissions is the group-commit store; it is closed after the HTTP
	// server drains so every accepted request gets its commit.
	Submissions *postgres.SubmissionStore
	// Deliveries beats this process's heartbeat and releases the claims of
	// processes that died.
	Deliveries *postgres.DeliveryStore
	// Metrics is served on FORMD_METRICS_ADDR when it is set.
	Metrics *prometheus.Metrics
	// CleanUploads deletes unused and delivered uploads, every
	// FORMD_UPLOAD_SWEEP_INTERVAL.
	CleanUploads *application.CleanUploadsHandler
	// TestInbox's sweep shreds test renderings past their retention, in
	// the same loop.
	TestInbox *application.TestInbox
	// ConnectTelegramChats polls the operator's bot for connect codes
	// when FORMD_TELEGRAM_BOT_TOKEN is set.
	ConnectTelegramChats *application.ConnectTelegramChatsHandler
	// Later runs the work requests leave for after their answer (a password
	// reset's mail); shutdown waits for it.
	Later *system.Background
}

// RouterFactory builds a fresh event router (a Watermill router cannot run again once stopped).
type RouterFactory func() (*events.Router, error)

func provideRouterFactory(app *application.Application, subscribe events.Subscribe, due events.DeliveriesDue,
	decode events.Decode, logger watermill.LoggerAdapter, handOff *events.DeliveryHandOff) RouterFactory {
	return func() (*events.Router, error) { return events.NewRouter(app, subscribe, due, decode, logger, handOff) }
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

package main

import (
	"fmt"
	"net"
	"os"
	"reflect"
	"strings"
	"time"

	"github.com/caarlos0/env/v11"

	"github.com/formd/formd/adapters/auditlog"
	"github.com/formd/formd/adapters/secrets"
)

// DefaultDatabaseURL is the local server a fresh machine has (make run starts a
// project-local one when nothing answers there).
const DefaultDatabaseURL = "postgres://postgres@127.0.0.1:5432/formd?sslmode=disable"

// Config is formd's environment configuration (docs/configuration.md).
type Config struct {
	ListenAddr  string `env:"FORMD_LISTEN_ADDR" envDefault:"127.0.0.1:8080"`
	DatabaseURL string `env:"FORMD_DATABASE_URL"`
	BaseURL     string `env:"FORMD_BASE_URL"`
	SMTPURL     string `env:"FORMD_SMTP_URL"`
	MailSpool   string `env:"FORMD_MAIL_SPOOL" envDefault:".data/mail"`
	MailFrom    string `env:"FORMD_MAIL_FROM" envDefault:"formd@localhost"`
	DataDir     string `env:"FORMD_DATA_DIR" envDefault:".data"`
	// SecretKey is the current key (64 hex digits) and OldSecretKeys the keys
	// it replaced, still accepted for reading (docs/operations.md: Key rotation).
	SecretKey     string   `env:"FORMD_SECRET_KEY"`
	OldSecretKeys []string `env:"FORMD_SECRET_KEYS_OLD" envSeparator:","`
	// AuditSigningKey is the Ed25519 note key that signs the audit log's
	// checkpoints ("PRIVATE+KEY+<name>+<hash>+<key>", from `formd audit key
	// generate`); auditors pin its verifier key (docs/audit.md).
	AuditSigningKey string `env:"FORMD_AUDIT_SIGNING_KEY"`
	// AuditCheckpointDir, when set, receives each checkpoint as a file, for
	// the operator to publish (docs/audit.md: Publishing checkpoints).
	AuditCheckpointDir string `env:"FORMD_AUDIT_CHECKPOINT_DIR"`
	// Dev is development mode: without FORMD_SECRET_KEY or
	// FORMD_AUDIT_SIGNING_KEY, a key is generated into DataDir. Outside it,
	// `formd serve` refuses to start without them.
	Dev      bool   `env:"FORMD_DEV"`
	LogLevel string `env:"FORMD_LOG_LEVEL" envDefault:"info"`
	// DebugAddr, when set, serves Go's pprof profiles there (keep it on loopback).
	DebugAddr string `env:"FORMD_DEBUG_ADDR"`
	// MetricsAddr, when set, serves Prometheus metrics at /metrics there, on
	// a listener of its own (keep it on loopback or a private network).
	MetricsAddr string `env:"FORMD_METRICS_ADDR"`
	// TrustedProxies are proxy addresses or CIDRs allowed to set X-Forwarded-For.
	TrustedProxies []string `env:"FORMD_TRUSTED_PROXIES" envSeparator:","`
	// SubmitRate and SubmitBurst are the per-IP, per-process submission limit
	// (token bucket); a rate of 0 disables it.
	SubmitRate  float64 `env:"FORMD_SUBMIT_RATE" envDefault:"5"`
	SubmitBurst int     `env:"FORMD_SUBMIT_BURST" envDefault:"60"`
	// FormSubmitRate and FormSubmitBurst are the per-form, per-process flood
	// limit (token bucket), so one noisy form cannot starve the others; a
	// rate of 0 disables it.
	FormSubmitRate  float64 `env:"FORMD_FORM_SUBMIT_RATE" envDefault:"20"`
	FormSubmitBurst int     `env:"FORMD_FORM_SUBMIT_BURST" envDefault:"200"`
	// SubmissionsInFlight bounds the submissions one process works on at
	// once (429 past it), so that overload costs refusals rather than
	// memory and throughput; 0 disables the bound.
	SubmissionsInFlight int `env:"FORMD_SUBMIT_IN_FLIGHT" envDefault:"512"`
	// UploadMiBInFlight bounds the file content that multipart posts hold
	// while they arrive in one process, UploadMiBInFlightPerClient that of
	// one client (an IPv4 address or IPv6 /64); past either, 429. Each must
	// hold one submission's files (25 MiB).
	UploadMiBInFlight          int `env:"FORMD_UPLOAD_MIB_IN_FLIGHT" envDefault:"256"`
	UploadMiBInFlightPerClient int `env:"FORMD_UPLOAD_MIB_IN_FLIGHT_PER_CLIENT" envDefault:"64"`
	// MinBodyRate cuts off a submission or upload body that brings fewer
	// bytes a second than this over any 10 s; 0 leaves bodies to the
	// server's 60 s read timeout.
	MinBodyRate int64 `env:"FORMD_MIN_BODY_RATE" envDefault:"4096"`
	// QuotaFree, QuotaPro and QuotaLifetime are the plans' monthly
	// submission quotas: live submissions per calendar month (UTC), counted
	// in PostgreSQL, so they hold across restarts and processes.
	QuotaFree     int `env:"FORMD_QUOTA_FREE" envDefault:"1000"`
	QuotaPro      int `env:"FORMD_QUOTA_PRO" envDefault:"50000"`
	QuotaLifetime int `env:"FORMD_QUOTA_LIFETIME" envDefault:"50000"`
	// AuthRate is how many POST /agent/auth attempts one IP may make per
	// minute (per process); one account gets half as many. 0 disables both.
	AuthRate float64 `env:"FORMD_AUTH_RATE" envDefault:"20"`
	// RegisterRate is how many registrations that tell whether an address
	// has an account (a new account, or "already exists") one client
	// network may make an hour (per process), through POST /agent/auth and
	// the dashboard together; 0 disables the limit.
	RegisterRate float64 `env:"FORMD_REGISTER_RATE" envDefault:"10"`
	// APIWriteRate is how many /v1 writes (POST, PATCH, PUT, DELETE) one
	// account may make per minute (per process), in bursts as large; 0
	// disables the limit.
	APIWriteRate float64 `env:"FORMD_API_WRITE_RATE" envDefault:"120"`
	// MemoryLimitMiB is the Go runtime's soft memory limit (see memoryLimit); 0 leaves it off.
	MemoryLimitMiB int `env:"FORMD_MEMORY_LIMIT_MIB" envDefault:"100"`
	// DeliveryWorkers is how many delivery attempts one process makes at
	// once. An attempt waits on its receiver (a webhook may take up to its
	// 15 s timeout), so this bounds how many slow receivers it takes to hold
	// up every other delivery; too few also leave a fast receiver idle
	// while each attempt waits on its round trip.
	DeliveryWorkers int `env:"FORMD_DELIVERY_WORKERS" envDefault:"16"`
	// DeliveryGiveWayAt is the average of submissions in progress in one
	// process from which its delivery senders give way to them
	// (events.IntakeLoad); 0: never.
	DeliveryGiveWayAt int `env:"FORMD_DELIVERY_GIVE_WAY_AT" envDefault:"40"`
	// FailedPayloadRetention is how long a submission with a failed delivery
	// keeps its sealed payload, so the delivery can be retried by hand.
	FailedPayloadRetention time.Duration `env:"FORMD_FAILED_PAYLOAD_RETENTION" envDefault:"168h"`
	// UnreadMessageRetention is how long the Watermill messages of topics
	// no consumer group reads are kept (the events table keeps every event).
	UnreadMessageRetention time.Duration `env:"FORMD_UNREAD_MESSAGE_RETENTION" envDefault:"168h"`
	// WebhookAllowPrivate and WebhookCAFile exist for tests: they let webhooks
	// reach loopback receivers with a test certificate authority.
	WebhookAllowPrivate bool   `env:"FORMD_WEBHOOK_ALLOW_PRIVATE"`
	WebhookCAFile       string `env:"FORMD_WEBHOOK_CA_FILE"`
	// TelegramBotToken is the bot Telegram integrations send as; without it
	// they cannot be enabled. TelegramAPIURL points elsewhere (tests, a
	// local Bot API server).
	TelegramBotToken string `env:"FORMD_TELEGRAM_BOT_TOKEN"`
	TelegramAPIURL   string `env:"FORMD_TELEGRAM_API_URL" envDefault:"https://api.telegram.org"`
	// GoogleCredentialsFile is a service account key file Google Sheets
	// integrations append as; without it they cannot be enabled.
	// GoogleTokenURL and GoogleSheetsURL point elsewhere (tests).
	GoogleCredentialsFile string `env:"FORMD_GOOGLE_CREDENTIALS_FILE"`
	GoogleTokenURL        string `env:"FORMD_GOOGLE_TOKEN_URL"`
	GoogleSheetsURL       string `env:"FORMD_GOOGLE_SHEETS_URL" envDefault:"https://sheets.googleapis.com"`
	// RecaptchaVerifyURL, HCaptchaVerifyURL and TurnstileVerifyURL are the
	// captcha providers' verification (siteverify) addresses; tests point
	// them at local doubles.
	RecaptchaVerifyURL string `env:"FORMD_RECAPTCHA_VERIFY_URL" envDefault:"https://www.google.com/recaptcha/api/siteverify"`
	HCaptchaVerifyURL  string `env:"FORMD_HCAPTCHA_VERIFY_URL" envDefault:"https://api.hcaptcha.com/siteverify"`
	TurnstileVerifyURL string `env:"FORMD_TURNSTILE_VERIFY_URL" envDefault:"https://challenges.cloudflare.com/turnstile/v0/siteverify"`
	// ClamdAddr is ClamAV's clamd, which scans uploaded objects
	// (tcp://host:port or unix:///path); unset, there is no scanner.
	ClamdAddr string `env:"FORMD_CLAMD_ADDR"`
	// RspamdURL is rspamd's scanner, which classifies submissions' content
	// (docs/rspamd.md); unset, there is no classifier. RspamdControllerURL
	// and RspamdPassword (a secret, never logged) are its controller, which
	// learns the owner's judgement; RspamdTimeout bounds each request.
	RspamdURL           string        `env:"FORMD_RSPAMD_URL"`
	RspamdControllerURL string        `env:"FORMD_RSPAMD_CONTROLLER_URL"`
	RspamdPassword      string        `env:"FORMD_RSPAMD_PASSWORD"`
	RspamdTimeout       time.Duration `env:"FORMD_RSPAMD_TIMEOUT" envDefault:"2s"`
	// AkismetKey (a secret, never logged) and AkismetSite, the site the
	// key is registered for, classify submissions with Akismet instead of
	// rspamd (docs/rspamd.md); AkismetURL is its API (tests, proxies).
	AkismetKey  string `env:"FORMD_AKISMET_KEY"`
	AkismetSite string `env:"FORMD_AKISMET_SITE"`
	AkismetURL  string `env:"FORMD_AKISMET_URL" envDefault:"https://rest.akismet.com"`
	// S3Endpoint, with the bucket and credentials, stores advanced uploads
	// in an S3-compatible bucket; unset, they are stored in PostgreSQL and
	// served by formd itself (the built-in store).
	S3Endpoint  string `env:"FORMD_S3_ENDPOINT"`
	S3Bucket    string `env:"FORMD_S3_BUCKET"`
	S3AccessKey string `env:"FORMD_S3_ACCESS_KEY"`
	S3SecretKey string `env:"FORMD_S3_SECRET_KEY"`
	S3Region    string `env:"FORMD_S3_REGION"`
	S3Prefix    string `env:"FORMD_S3_PREFIX"`
	// DownloadBaseURL, when set, is the origin the built-in store's
	// download links point at instead of BaseURL: a host name of its own
	// routed to formd, so uploaded bytes are never served from the origin
	// sites allowlist for formd's script.
	DownloadBaseURL string `env:"FORMD_DOWNLOAD_BASE_URL"`
	// UploadReservationTTL is how long an upload key from GET /upload may
	// be uploaded to and used; UploadLinkTTL how long the download links of
	// a submission's uploaded files work (at most 7 days: S3's limit).
	UploadReservationTTL time.Duration `env:"FORMD_UPLOAD_RESERVATION_TTL" envDefault:"1h"`
	UploadLinkTTL        time.Duration `env:"FORMD_UPLOAD_LINK_TTL" envDefault:"168h"`
	// UploadSweepInterval is how often unused and delivered uploads are
	// looked for and deleted.
	UploadSweepInterval time.Duration `env:"FORMD_UPLOAD_SWEEP_INTERVAL" envDefault:"1m"`
	// TestInboxRetention is how long a test submission's renderings (raw
	// values) are kept in the test inbox; the same sweep deletes them.
	TestInboxRetention time.Duration `env:"FORMD_TEST_INBOX_RETENTION" envDefault:"1h"`
	// ShutdownTimeout bounds the drain after SIGTERM or SIGINT: in-flight
	// requests and delivery attempts finish within it (drain.go).
	ShutdownTimeout time.Duration `env:"FORMD_SHUTDOWN_TIMEOUT" envDefault:"20s"`
}

// loadConfig reads the environment, fills the derived defaults and checks
// every value (validate.go): a bad one stops every command with one line.
func loadConfig() (Config, error) {
	var c Config
	if err := checkUnknownVariables(os.Environ()); err != nil {
		return c, err
	}
	if err := env.Parse(&c); err != nil {
		return c, explainParseError(err, reflect.TypeOf(c))
	}
	if c.DatabaseURL == "" {
		c.DatabaseURL = DefaultDatabaseURL
	}
	if err := checkAddr("FORMD_LISTEN_ADDR", c.ListenAddr, true); err != nil {
		return c, err
	}
	if c.BaseURL == "" {
		host, port, _ := net.SplitHostPort(c.ListenAddr)
		if host == "" || host == "0.0.0.0" || host == "::" {
			host = "localhost"
		}
		c.BaseURL = "http://" + net.JoinHostPort(host, port)
	}
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	c.DownloadBaseURL = strings.TrimRight(c.DownloadBaseURL, "/")
	if err := c.validate(); err != nil {
		return c, err
	}
	return c, nil
}

// requireSecretKey refuses to serve without a configured key outside
// development mode: a key generated into a data folder is lost with it, and
// every payload sealed under it with it.
func (c Config) requireSecretKey() error {
	if strings.TrimSpace(c.SecretKey) == "" && !c.Dev {
		return secrets.ErrNoKey
	}
	return nil
}

// requireAuditSigningKey refuses to serve without a usable audit signing key
// outside development mode: checkpoints signed by a key generated into a
// data folder could not be verified against a key auditors had pinned.
func (c Config) requireAuditSigningKey() error {
	if strings.TrimSpace(c.AuditSigningKey) == "" {
		if c.Dev {
			return nil
		}
		return auditlog.ErrNoSigningKey
	}
	if _, err := auditlog.ParseSigningKey(c.AuditSigningKey); err != nil {
		return fmt.Errorf("%w: set it to the signing key line `formd audit key generate <name>` prints (docs/audit.md)", err)
	}
	return nil
}

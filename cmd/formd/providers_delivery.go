package main

import (
	"github.com/formd/formd/adapters/mail"
	"github.com/formd/formd/adapters/mailtemplate"
	"github.com/formd/formd/adapters/outbound"
	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/adapters/prometheus"
	"github.com/formd/formd/application"
	"github.com/formd/formd/ports/events"
)

// provideDeliveryHandOff is the delivery workers' hand-off, through which
// submissions give them the deliveries their commits claimed, and whose
// intake load they give way to from an average of FORMD_DELIVERY_GIVE_WAY_AT
// submissions in progress; /metrics serves that load. After the database was
// away, the workers release through it this process's claims they do not hold.
func provideDeliveryHandOff(cfg Config, metrics *prometheus.Metrics, store *postgres.DeliveryStore,
	clock application.Clock) *events.DeliveryHandOff {
	h := events.NewDeliveryHandOff(cfg.DeliveryGiveWayAt).
		WithStrayClaims(application.NewReleaseStrayClaimsHandler(store, clock))
	metrics.WatchIntake(h.Intake())
	return h
}

// provideIntakeCounter counts the submissions in progress into the load
// the delivery workers give way to.
func provideIntakeCounter(h *events.DeliveryHandOff) application.IntakeCounter { return h.Intake() }

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

// provideTemplateEngine renders the forms' mail templates (Mustache).
func provideTemplateEngine() application.TemplateEngine { return mailtemplate.New() }

func provideMailSettings(cfg Config) application.MailSettings {
	return application.MailSettings{BaseURL: cfg.BaseURL, From: cfg.MailFrom}
}

func provideOutbound(cfg Config) (*outbound.Sender, error) {
	return outbound.NewSender(outbound.Options{AllowPrivate: cfg.WebhookAllowPrivate, CAFile: cfg.WebhookCAFile,
		TelegramBotToken: cfg.TelegramBotToken, TelegramAPIURL: cfg.TelegramAPIURL,
		GoogleCredentialsFile: cfg.GoogleCredentialsFile, GoogleTokenURL: cfg.GoogleTokenURL, GoogleSheetsURL: cfg.GoogleSheetsURL})
}

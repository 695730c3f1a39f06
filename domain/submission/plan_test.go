package submission_test

import (
	"slices"
	"testing"

	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
)

func TestPlanDeliveries(t *testing.T) {
	base := form.Settings{Name: "Contact", RecipientEmail: "inbox@example.com"}.Normalize()
	auto := base
	auto.Autoresponder = form.Autoresponder{Enabled: true}
	custom := base
	custom.SubjectDefault, custom.FromNameDefault = "Form mail", "Site"
	custom.Autoresponder = form.Autoresponder{Enabled: true, Subject: "Thanks", Message: "Soon."}
	relay := custom
	relay.ReplyToDefault = "support@example.com"
	tests := []struct {
		name      string
		st        form.Settings
		env       submission.Envelope
		kinds     []string
		subject   string
		fromName  string
		autoReply *submission.Autoresponder
	}{
		{"notification only", base, submission.Envelope{}, []string{delivery.KindEmail},
			"New submission: Contact", form.DefaultFromName, nil},
		{"submitted subject and sender name win, on one line", custom,
			submission.Envelope{Subject: "Hello\r\nBcc: x@example.com", FromName: " Ada\n Lovelace "}, []string{delivery.KindEmail},
			"Hello Bcc: x@example.com", "Ada Lovelace", nil},
		{"the form's defaults", custom, submission.Envelope{}, []string{delivery.KindEmail}, "Form mail", "Site", nil},
		{"an autoresponder to a valid email", auto, submission.Envelope{Email: "ada@example.com"},
			[]string{delivery.KindEmail, delivery.KindAutoresponder}, "New submission: Contact", form.DefaultFromName,
			&submission.Autoresponder{Subject: submission.DefaultAutoresponderSubject, Message: submission.DefaultAutoresponderMessage, FromName: form.DefaultFromName}},
		{"no autoresponder to an invalid email", auto, submission.Envelope{Email: "not-an-address"},
			[]string{delivery.KindEmail}, "New submission: Contact", form.DefaultFromName, nil},
		{"the form's autoresponder text", custom, submission.Envelope{Email: "ada@example.com"},
			[]string{delivery.KindEmail, delivery.KindAutoresponder}, "Form mail", "Site",
			&submission.Autoresponder{Subject: "Thanks", Message: "Soon.", FromName: "Site"}},
		// Security review: the submitter chose the autoresponder's sender name,
		// and its Reply-To revealed the recipient.
		{"the autoresponder keeps the form's sender name and Reply-To whatever is submitted", relay,
			submission.Envelope{Email: "victim@example.com", FromName: "Your bank", ReplyTo: "attacker@example.com"},
			[]string{delivery.KindEmail, delivery.KindAutoresponder}, "Form mail", "Your bank",
			&submission.Autoresponder{Subject: "Thanks", Message: "Soon.", FromName: "Site", ReplyTo: "support@example.com"}},
		{"a webhook last", auto, submission.Envelope{Email: "ada@example.com", Webhook: "https://hooks.example.com"},
			[]string{delivery.KindEmail, delivery.KindAutoresponder, delivery.KindWebhook}, "New submission: Contact", form.DefaultFromName,
			&submission.Autoresponder{Subject: submission.DefaultAutoresponderSubject, Message: submission.DefaultAutoresponderMessage, FromName: form.DefaultFromName}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := submission.PlanDeliveries(tt.st, tt.env)
			if !slices.Equal(p.Kinds(), tt.kinds) {
				t.Errorf("Kinds() = %v, want %v", p.Kinds(), tt.kinds)
			}
			if p.Subject() != tt.subject || p.FromName() != tt.fromName || p.Recipient() != "inbox@example.com" {
				t.Errorf("subject %q, from %q, to %q", p.Subject(), p.FromName(), p.Recipient())
			}
			auto, ok := p.Autoresponder()
			if ok != (tt.autoReply != nil) || (ok && auto != *tt.autoReply) {
				t.Errorf("autoresponder %+v (%v), want %+v", auto, ok, tt.autoReply)
			}
			if p.Webhook() != tt.env.Webhook || p.SubmitterEmail() != tt.env.Email {
				t.Errorf("webhook %q, submitter %q; want %q, %q", p.Webhook(), p.SubmitterEmail(), tt.env.Webhook, tt.env.Email)
			}
		})
	}
}

func TestPlanSplitsCC(t *testing.T) {
	p := submission.PlanDeliveries(form.Settings{Name: "C"}, submission.Envelope{CC: "a@example.com; b@example.com,"})
	if !slices.Equal(p.CC(), []string{"a@example.com", "b@example.com"}) {
		t.Fatalf("CC = %v", p.CC())
	}
}

func TestReplyToFollowsTheModeAndTheOverride(t *testing.T) {
	st := form.Settings{ReplyToDefault: "team@example.com"}
	cases := []struct {
		mode        form.ReplyToMode
		email, over string
		want        string
	}{
		{form.ReplyToSubmitter, "ada@example.com", "", "ada@example.com"},
		{form.ReplyToSubmitter, "not-an-address", "", ""},
		{form.ReplyToSubmitter, "ada@example.com", "boss@example.com", "boss@example.com"},
		{form.ReplyToDefault, "ada@example.com", "", "team@example.com"},
		{form.ReplyToDefault, "ada@example.com", "boss@example.com", "boss@example.com"},
		{form.ReplyToNone, "ada@example.com", "boss@example.com", ""},
	}
	for _, c := range cases {
		st.ReplyToMode = c.mode
		if got := submission.ReplyTo(st, submission.Envelope{Email: c.email, ReplyTo: c.over}); got != c.want {
			t.Errorf("mode %s, email %q, replyto %q: got %q, want %q", c.mode, c.email, c.over, got, c.want)
		}
	}
}

func TestRedirect(t *testing.T) {
	st := form.Settings{RedirectDefault: "https://example.com/default"}
	cases := []struct {
		submitted string
		json      bool
		want      string
	}{
		{"", false, "https://example.com/default"},
		{"https://example.com/thanks", false, "https://example.com/thanks"},
		{"https://example.com/thanks", true, ""},
		{"", true, ""},
	}
	for _, c := range cases {
		if got := submission.Redirect(st, submission.Envelope{Redirect: c.submitted}, c.json); got != c.want {
			t.Errorf("redirect %q, json %v: got %q, want %q", c.submitted, c.json, got, c.want)
		}
	}
}

func TestPlanTargetsAreSafe(t *testing.T) {
	st := form.Settings{Name: "Contact", RecipientEmail: "inbox@Example.com"}.Normalize()
	st.Autoresponder = form.Autoresponder{Enabled: true}
	p := submission.PlanDeliveries(st, submission.Envelope{Email: "ada@mail.example.org", Webhook: "https://hooks.example.net/secret/path?token=t"})
	want := map[string]string{
		delivery.KindEmail:         "example.com",
		delivery.KindAutoresponder: "mail.example.org",
		delivery.KindWebhook:       "hooks.example.net",
	}
	for kind, target := range want {
		if got := p.Target(kind); got != target {
			t.Errorf("Target(%s) = %q, want %q", kind, got, target)
		}
	}
}

// Each enabled integration with what it needs gets a delivery of its own on
// every accepted submission, next to a per-submit webhook, in a fixed order;
// a disabled or incomplete one does not.
func TestPlanDeliversToTheIntegrations(t *testing.T) {
	st := form.Settings{Name: "Contact", RecipientEmail: "inbox@example.com"}.Normalize()
	hook := form.Integration{Type: form.IntegrationWebhook, Enabled: true, TargetURL: "https://In.Example.org/formd?k=v"}
	slack := form.Integration{Type: form.IntegrationSlack, Enabled: true, TargetURL: "https://hooks.Slack.com/services/T/B/secret"}
	discord := form.Integration{Type: form.IntegrationDiscord, Enabled: true, TargetURL: "https://discord.com/api/webhooks/1/secret"}
	telegram := form.Integration{Type: form.IntegrationTelegram, Enabled: true, ChatID: "42"}
	sheets := form.Integration{Type: form.IntegrationGoogleSheets, Enabled: true, SpreadsheetID: "1AbCdEfGhIjK", SheetName: "Leads", SheetProven: true}
	sheetless := form.Integration{Type: form.IntegrationGoogleSheets, Enabled: true, SpreadsheetID: "1AbCdEfGhIjK", SheetProven: true}
	unproven := sheets
	unproven.SheetProven = false
	off, slackOff, telegramOff := hook, slack, telegram
	off.Enabled, slackOff.Enabled, telegramOff.Enabled = false, false, false
	telegramPlanned := submission.Planned{Kind: delivery.KindTelegram, Target: "telegram:42", ChatID: "42", Integration: form.IntegrationTelegram}
	sheetsPlanned := submission.Planned{Kind: delivery.KindGoogleSheets, Target: "sheets:1AbCdEfGhIjK", SpreadsheetID: "1AbCdEfGhIjK",
		SheetName: "Leads", Integration: form.IntegrationGoogleSheets}
	slackPlanned := submission.Planned{Kind: delivery.KindSlack, Target: "hooks.slack.com", WebhookURL: slack.TargetURL,
		Integration: form.IntegrationSlack}
	discordPlanned := submission.Planned{Kind: delivery.KindDiscord, Target: "discord.com", WebhookURL: discord.TargetURL,
		Integration: form.IntegrationDiscord}
	tests := []struct {
		name string
		env  submission.Envelope
		list []form.Integration
		want []submission.Planned
	}{
		{"enabled", submission.Envelope{}, []form.Integration{hook, telegram}, []submission.Planned{
			{Kind: delivery.KindEmail, Target: "example.com", Recipient: "inbox@example.com"},
			{Kind: delivery.KindWebhook, Target: "in.example.org", WebhookURL: hook.TargetURL, Integration: form.IntegrationWebhook},
			telegramPlanned,
		}},
		{"all five in a fixed order", submission.Envelope{}, []form.Integration{sheets, telegram, discord, slack, hook}, []submission.Planned{
			{Kind: delivery.KindEmail, Target: "example.com", Recipient: "inbox@example.com"},
			{Kind: delivery.KindWebhook, Target: "in.example.org", WebhookURL: hook.TargetURL, Integration: form.IntegrationWebhook},
			slackPlanned, discordPlanned, telegramPlanned, sheetsPlanned,
		}},
		{"a sheet needs its proof", submission.Envelope{}, []form.Integration{unproven}, []submission.Planned{
			{Kind: delivery.KindEmail, Target: "example.com", Recipient: "inbox@example.com"},
		}},
		{"a sheet needs its name", submission.Envelope{}, []form.Integration{sheetless}, []submission.Planned{
			{Kind: delivery.KindEmail, Target: "example.com", Recipient: "inbox@example.com"},
		}},
		{"with a per-submit webhook", submission.Envelope{Webhook: "https://per.example.net/h"}, []form.Integration{hook}, []submission.Planned{
			{Kind: delivery.KindEmail, Target: "example.com", Recipient: "inbox@example.com"},
			{Kind: delivery.KindWebhook, Target: "per.example.net", WebhookURL: "https://per.example.net/h"},
			{Kind: delivery.KindWebhook, Target: "in.example.org", WebhookURL: hook.TargetURL, Integration: form.IntegrationWebhook},
		}},
		{"chats after the webhook, Slack first whatever the order", submission.Envelope{}, []form.Integration{discord, slack, hook}, []submission.Planned{
			{Kind: delivery.KindEmail, Target: "example.com", Recipient: "inbox@example.com"},
			{Kind: delivery.KindWebhook, Target: "in.example.org", WebhookURL: hook.TargetURL, Integration: form.IntegrationWebhook},
			slackPlanned, discordPlanned,
		}},
		{"discord alone", submission.Envelope{}, []form.Integration{discord, slackOff}, []submission.Planned{
			{Kind: delivery.KindEmail, Target: "example.com", Recipient: "inbox@example.com"}, discordPlanned,
		}},
		{"disabled", submission.Envelope{}, []form.Integration{off, slackOff, telegramOff}, []submission.Planned{
			{Kind: delivery.KindEmail, Target: "example.com", Recipient: "inbox@example.com"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := submission.PlanDeliveries(st, tt.env).WithIntegrations(tt.list).Deliveries()
			if !slices.Equal(got, tt.want) {
				t.Errorf("Deliveries() = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestTheDefaultAutoresponderIsInTheWordsHandedInUnlessTheFormHasItsOwn(t *testing.T) {
	st := form.Settings{Name: "Contact", RecipientEmail: "inbox@example.com", Autoresponder: form.Autoresponder{Enabled: true}}.Normalize()
	german := submission.MailText{Subject: "Wir haben Ihre Nachricht erhalten", Message: "Danke."}
	tg := target(func(s *form.Settings) { s.Autoresponder = st.Autoresponder })
	plan := submission.Decide(submission.Facts{Request: browser(field("email", "ada@example.com")), Form: &tg, AutoresponderDefaults: german}).Plan()
	if a, ok := plan.Autoresponder(); !ok || a.Subject != german.Subject || a.Message != german.Message {
		t.Fatalf("default autoresponder %+v, want the German words", a)
	}
	st.Autoresponder.Subject = "Merci"
	a, _ := submission.PlanDeliveries(st, submission.Envelope{Email: "ada@example.com"}).WithAutoresponderDefaults(st, german).Autoresponder()
	if a.Subject != "Merci" || a.Message != german.Message {
		t.Errorf("the form's own subject wins, the default message is the German one: %+v", a)
	}
	a, _ = submission.PlanDeliveries(st, submission.Envelope{Email: "ada@example.com"}).WithAutoresponderDefaults(st, submission.MailText{}).Autoresponder()
	if a.Message != submission.DefaultAutoresponderMessage {
		t.Errorf("without defaults handed in, English: %+v", a)
	}
}

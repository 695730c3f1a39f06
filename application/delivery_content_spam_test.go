package application

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/submission"
)

// chatText is the text a rendered Slack, Discord or Telegram delivery shows.
func chatText(t *testing.T, out Outgoing) string {
	t.Helper()
	var body []byte
	switch {
	case out.Webhook != nil:
		body = out.Webhook.Body
	case out.Telegram != nil:
		body = out.Telegram.Body
	default:
		t.Fatalf("rendered %+v, want a chat message", out)
	}
	var got struct{ Text, Content string }
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	return got.Text + got.Content
}

// A submission the spam gate tagged reaches Slack, Discord and Telegram
// with the notification subject's marker on the message's first line and
// its score and reasons on the next; an untagged one shows neither.
func TestATaggedSubmissionsChatMessagesAreMarked(t *testing.T) {
	tag := &SpamTag{Score: 3, Reasons: []string{"classifier spam, score 3"}}
	p := Payload{FormName: "Contact", Fields: []submission.Field{{Name: "message", Value: "hi"}},
		WebhookURLs:  map[string]string{"ds": "https://hooks.slack.com/s", "dd": "https://discord.com/api/webhooks/1/x"},
		Destinations: map[string]Destination{"dt": {ChatID: "-1001"}}}
	render := NewRenderer(MailSettings{}, noSecrets{}, plainSealer{}, plainLinks{}, plainSpamLinks{}, fixedClock{}, plainTemplates{})
	for kind, id := range map[string]string{delivery.KindSlack: "ds", delivery.KindDiscord: "dd", delivery.KindTelegram: "dt"} {
		t.Run(kind, func(t *testing.T) {
			q := delivery.Queued{DeliveryID: id, SubmissionID: "s1", FormID: "f1", Kind: kind}
			p.Spam = tag
			out, err := render.Render(context.Background(), q, p)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(chatText(t, out), "\n")
			if len(lines) != 3 || lines[0] != submission.SpamSubjectMarker+"New submission to Contact" ||
				lines[1] != "Spam score 3: classifier spam, score 3" || lines[2] != "message: hi" {
				t.Errorf("tagged message lines %q, want the marked title, the score line, then the fields", lines)
			}
			p.Spam = nil
			out, err = render.Render(context.Background(), q, p)
			if err != nil {
				t.Fatal(err)
			}
			if got := chatText(t, out); got != "New submission to Contact\nmessage: hi" {
				t.Errorf("untagged message %q, want no marker and no score", got)
			}
		})
	}
}

// A sheet's columns are fixed (the time, then the fields by name), so a
// tagged submission's row is the same as an untagged one's: a column only
// some rows had would shift every column after it (docs/spam.md says so).
func TestATaggedSubmissionsSheetRowKeepsItsColumns(t *testing.T) {
	at := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	p := Payload{FormName: "Contact", Fields: []submission.Field{{Name: "message", Value: "hi"}},
		Destinations: map[string]Destination{"dg": {SpreadsheetID: "1AbC", SheetName: "Leads"}}}
	q := delivery.Queued{DeliveryID: "dg", SubmissionID: "s1", FormID: "f1", Kind: delivery.KindGoogleSheets, At: at}
	render := NewRenderer(MailSettings{}, noSecrets{}, plainSealer{}, plainLinks{}, plainSpamLinks{}, fixedClock{}, plainTemplates{})
	untagged, err := render.Render(context.Background(), q, p)
	if err != nil {
		t.Fatal(err)
	}
	p.Spam = &SpamTag{Score: 3}
	tagged, err := render.Render(context.Background(), q, p)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(tagged.Row.Values, "|") != strings.Join(untagged.Row.Values, "|") {
		t.Errorf("tagged row %q, untagged %q: want the same columns", tagged.Row.Values, untagged.Row.Values)
	}
}

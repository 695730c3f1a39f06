package chat_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/formd/formd/domain/chat"
	"github.com/formd/formd/domain/submission"
)

// messageText reads the shown text of a Slack, Discord or Telegram body.
func messageText(t *testing.T, body []byte) string {
	t.Helper()
	var got struct{ Text, Content string }
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	return got.Text + got.Content
}

// Every chat message of a tagged submission starts with the notification
// subject's marker and states the score and reasons on its second line, in
// that service's escaping; an untagged one has neither.
func TestChatMessagesOfATaggedSubmissionAreMarked(t *testing.T) {
	tagged := &submission.SpamVerdict{Spam: true, Score: 2.5, Reasons: []string{`blockWords matched "<b>"`, "maxLinks 5 > 3"}}
	fields := []submission.Field{{Name: "message", Value: "hi"}}
	builders := map[string]func(*submission.SpamVerdict) ([]byte, error){
		"slack":   func(s *submission.SpamVerdict) ([]byte, error) { return chat.SlackMessage("Contact", s, fields) },
		"discord": func(s *submission.SpamVerdict) ([]byte, error) { return chat.DiscordMessage("Contact", s, fields) },
		"telegram": func(s *submission.SpamVerdict) ([]byte, error) {
			return chat.TelegramMessage("1", "Contact", s, fields)
		},
	}
	wantSummary := map[string]string{
		"slack":    `Spam score 2.5: blockWords matched "&lt;b&gt;"; maxLinks 5 &gt; 3`,
		"discord":  `Spam score 2.5: blockWords matched "<b\>"; maxLinks 5 \> 3`,
		"telegram": `Spam score 2.5: blockWords matched "<b>"; maxLinks 5 > 3`,
	}
	for service, build := range builders {
		t.Run(service, func(t *testing.T) {
			body, err := build(tagged)
			if err != nil {
				t.Fatal(err)
			}
			want := submission.SpamSubjectMarker + "New submission to Contact\n" + wantSummary[service] + "\nmessage: hi"
			if got := messageText(t, body); got != want {
				t.Errorf("tagged text = %q, want %q", got, want)
			}
			body, err = build(nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := messageText(t, body); got != "New submission to Contact\nmessage: hi" {
				t.Errorf("untagged text = %q, want no marker and no score", got)
			}
		})
	}
}

func TestSpamSummary(t *testing.T) {
	if got := chat.SpamSummary(submission.SpamVerdict{Score: 7.25}); got != "Spam score 7.25" {
		t.Errorf("without reasons = %q", got)
	}
	got := chat.SpamSummary(submission.SpamVerdict{Score: 1, Reasons: []string{"a", "b"}})
	if got != "Spam score 1: a; b" || strings.Contains(got, "\n") {
		t.Errorf("with reasons = %q, want one line", got)
	}
}

package chat_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/formd/formd/domain/chat"
	"github.com/formd/formd/domain/submission"
)

func TestSlackMessage(t *testing.T) {
	tests := []struct {
		name     string
		formName string
		fields   []submission.Field
		want     string
	}{
		{"plain", "Contact", []submission.Field{{Name: "name", Value: "Ada"}, {Name: "message", Value: "Hi"}},
			"New submission to Contact\nname: Ada\nmessage: Hi"},
		{"markup escaped", "A & B", []submission.Field{{Name: "m", Value: "<!everyone> <https://evil|click> a&b >"}},
			"New submission to A &amp; B\nm: &lt;!everyone&gt; &lt;https://evil|click&gt; a&amp;b &gt;"},
		{"no fields", "F", nil, "New submission to F"},
		{"field name escaped", "F", []submission.Field{{Name: "<x>", Value: "1"}}, "New submission to F\n&lt;x&gt;: 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, err := chat.SlackMessage(tt.formName, nil, tt.fields)
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || got["text"] != tt.want {
				t.Errorf("SlackMessage = %s, want only text %q", body, tt.want)
			}
		})
	}
}

type discordBody struct {
	Content         string `json:"content"`
	AllowedMentions *struct {
		Parse []string `json:"parse"`
	} `json:"allowed_mentions"`
}

func TestDiscordMessage(t *testing.T) {
	long := strings.Repeat("x", 2500)
	tests := []struct {
		name     string
		formName string
		fields   []submission.Field
		want     string
	}{
		{"plain", "Contact", []submission.Field{{Name: "name", Value: "Ada"}},
			"New submission to Contact\nname: Ada"},
		{"everyone neutralised", "F", []submission.Field{{Name: "m", Value: "@everyone @here <@123>"}},
			"New submission to F\nm: @\u200beveryone @\u200bhere <@\u200b123\\>"},
		{"markdown escaped", "F", []submission.Field{{Name: "my_field", Value: "**bold** _i_ ~~s~~ `c` ||sp|| > q \\"}},
			"New submission to F\nmy\\_field: \\*\\*bold\\*\\* \\_i\\_ \\~\\~s\\~\\~ \\`c\\` \\|\\|sp\\|\\| \\> q \\\\"},
		{"masked links and headings escaped", "F", []submission.Field{{Name: "m", Value: "# Urgent [bank](https://evil.example) <#42>"}},
			"New submission to F\nm: \\# Urgent \\[bank](https://evil.example) <\\#42\\>"},
		{"truncated", "F", []submission.Field{{Name: "m", Value: long}},
			("New submission to F\nm: " + long)[:chat.DiscordLimit-1] + "…"},
		{"cut never leaves a lone backslash", "FF", []submission.Field{{Name: "m", Value: strings.Repeat("*", 2000)}},
			func() string {
				s := "New submission to FF\nm: " + strings.Repeat(`\*`, 2000)
				s = s[:chat.DiscordLimit-1] // ends in a lone backslash
				return s[:len(s)-1] + "…"   // which is dropped
			}()},
		{"exactly at the limit kept", "F", []submission.Field{{Name: "m", Value: strings.Repeat("y", chat.DiscordLimit-len("New submission to F\nm: "))}},
			"New submission to F\nm: " + strings.Repeat("y", chat.DiscordLimit-len("New submission to F\nm: "))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, err := chat.DiscordMessage(tt.formName, nil, tt.fields)
			if err != nil {
				t.Fatal(err)
			}
			var got discordBody
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatal(err)
			}
			if got.Content != tt.want {
				t.Errorf("content = %q, want %q", got.Content, tt.want)
			}
			if n := utf8.RuneCountInString(got.Content); n > chat.DiscordLimit {
				t.Errorf("content has %d characters, over %d", n, chat.DiscordLimit)
			}
			if got.AllowedMentions == nil || got.AllowedMentions.Parse == nil || len(got.AllowedMentions.Parse) != 0 {
				t.Errorf("allowed_mentions = %s, want parse: []", body)
			}
		})
	}
}

package submission_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/formd/formd/domain/submission"
)

type subF = submission.Field

func TestSplit(t *testing.T) {
	tests := []struct {
		name     string
		fields   []subF
		wantEnv  submission.Envelope
		wantData []subF
	}{
		{
			name:     "nothing",
			fields:   nil,
			wantData: []subF{},
		},
		{
			name: "routing fields extracted and not forwarded",
			fields: []subF{
				{"access_key", "key-1"}, {"name", "Ada"}, {"email", "ada@example.com"},
				{"subject", "Hello"}, {"from_name", "Site"}, {"replyto", "reply@example.com"},
				{"ccemail", "cc@example.com"}, {"redirect", "https://example.com/ok"},
				{"webhook", "https://hooks.example.com/x"}, {"botcheck", ""}, {"message", "Hi"},
			},
			wantEnv: submission.Envelope{
				AccessKey: "key-1", Email: "ada@example.com", Subject: "Hello", FromName: "Site",
				ReplyTo: "reply@example.com", CC: "cc@example.com", Redirect: "https://example.com/ok",
				Webhook: "https://hooks.example.com/x",
			},
			// email is routing and custom data at once: it is forwarded.
			wantData: []subF{{"name", "Ada"}, {"email", "ada@example.com"}, {"message", "Hi"}},
		},
		{
			name: "names are case-insensitive and kept as submitted",
			fields: []subF{
				{"ACCESS_KEY", "key-1"}, {"Email", "ada@example.com"}, {"Subject", "Hello"},
				{"From_Name", "Site"}, {"ReplyTo", "r@example.com"}, {"CCEmail", "cc@example.com"},
				{"Redirect", "https://example.com/ok"}, {"WebHook", "https://h.example.com"},
				{"BotCheck", ""}, {"Message", "Hi"},
			},
			wantEnv: submission.Envelope{
				AccessKey: "key-1", Email: "ada@example.com", Subject: "Hello", FromName: "Site",
				ReplyTo: "r@example.com", CC: "cc@example.com", Redirect: "https://example.com/ok",
				Webhook: "https://h.example.com",
			},
			wantData: []subF{{"Email", "ada@example.com"}, {"Message", "Hi"}},
		},
		{
			name:     "apikey alone is the access key",
			fields:   []subF{{"apikey", "key-2"}, {"name", "Ada"}},
			wantEnv:  submission.Envelope{AccessKey: "key-2"},
			wantData: []subF{{"name", "Ada"}},
		},
		{
			name:     "APIKEY upper-case",
			fields:   []subF{{"APIKey", " key-2 "}},
			wantEnv:  submission.Envelope{AccessKey: "key-2"},
			wantData: []subF{},
		},
		{
			name:     "access_key wins over a later apikey",
			fields:   []subF{{"access_key", "key-1"}, {"apikey", "key-2"}},
			wantEnv:  submission.Envelope{AccessKey: "key-1"},
			wantData: []subF{},
		},
		{
			name:     "access_key wins over an earlier apikey",
			fields:   []subF{{"apikey", "key-2"}, {"access_key", "key-1"}},
			wantEnv:  submission.Envelope{AccessKey: "key-1"},
			wantData: []subF{},
		},
		{
			name: "envelope trimmed, data as submitted",
			fields: []subF{
				{"access_key", "  key-1\n"}, {"email", " ada@example.com\t"},
				{"subject", "\tHello  "}, {"ccemail", " a@example.com; b@example.com "},
				{"name", "  Ada  "},
			},
			wantEnv: submission.Envelope{
				AccessKey: "key-1", Email: "ada@example.com", Subject: "Hello",
				CC: "a@example.com; b@example.com",
			},
			wantData: []subF{{"email", " ada@example.com\t"}, {"name", "  Ada  "}},
		},
		{
			name: "blank routing values are empty",
			fields: []subF{
				{"subject", "   "}, {"from_name", ""}, {"redirect", "\n"},
			},
			wantEnv:  submission.Envelope{},
			wantData: []subF{},
		},
		{
			name: "data order preserved",
			fields: []subF{
				{"zeta", "1"}, {"subject", "s"}, {"alpha", "2"}, {"Mid", "3"},
				{"access_key", "k"}, {"beta", "4"}, {"alpha2", ""},
			},
			wantEnv:  submission.Envelope{AccessKey: "k", Subject: "s"},
			wantData: []subF{{"zeta", "1"}, {"alpha", "2"}, {"Mid", "3"}, {"beta", "4"}, {"alpha2", ""}},
		},
		{
			name: "captcha fields dropped",
			fields: []subF{
				{"g-captcha-response", "t"}, {"captcha_response", "t"}, {"h-captcha-response", "t"},
				{"cf-captcha-response", "t"}, {"g-recaptcha-response", "t"}, {"recaptcha_response", "t"},
				{"cf-turnstile-response", "t"}, {"G-Recaptcha-Response", "t"}, {"CF-Turnstile-Response", "t"},
				{"message", "Hi"},
			},
			wantData: []subF{{"message", "Hi"}},
		},
		{
			name:     "honeypot filled is spam",
			fields:   []subF{{"botcheck", "on"}, {"message", "buy"}},
			wantEnv:  submission.Envelope{Spam: true},
			wantData: []subF{{"message", "buy"}},
		},
		{
			name:     "honeypot upper-case name filled",
			fields:   []subF{{"BOTCHECK", "1"}},
			wantEnv:  submission.Envelope{Spam: true},
			wantData: []subF{},
		},
		{
			name:     "honeypot false-like values are not spam",
			fields:   []subF{{"botcheck", " false "}},
			wantData: []subF{},
		},
		{
			name:     "no honeypot is not spam",
			fields:   []subF{{"message", "Hi"}},
			wantData: []subF{{"message", "Hi"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			input := append([]subF(nil), tt.fields...)
			env, data := submission.Split(tt.fields)
			if env != tt.wantEnv {
				t.Errorf("envelope =\n%+v\nwant\n%+v", env, tt.wantEnv)
			}
			if len(data) != len(tt.wantData) || (len(data) > 0 && !reflect.DeepEqual(data, tt.wantData)) {
				t.Errorf("data = %q, want %q", data, tt.wantData)
			}
			if !reflect.DeepEqual(tt.fields, input) {
				t.Errorf("Split changed its input to %q", tt.fields)
			}
			for _, f := range data {
				if !submission.IsForwarded(f.Name) {
					t.Errorf("forwarded %q, which IsForwarded refuses", f.Name)
				}
			}
		})
	}
}

func TestSplitCC(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"   ", nil},
		{",;, ;", nil},
		{"a@example.com", []string{"a@example.com"}},
		{" a@example.com ", []string{"a@example.com"}},
		{"a@example.com,b@example.com", []string{"a@example.com", "b@example.com"}},
		{"a@example.com;b@example.com", []string{"a@example.com", "b@example.com"}},
		{"a@example.com , b@example.com; c@example.com", []string{"a@example.com", "b@example.com", "c@example.com"}},
		{",,a@example.com;; ;b@example.com,\t,", []string{"a@example.com", "b@example.com"}},
		{"a@example.com b@example.com", []string{"a@example.com b@example.com"}},
	}
	for _, tt := range tests {
		got := submission.SplitCC(tt.in)
		if len(got) != len(tt.want) || (len(got) > 0 && !reflect.DeepEqual(got, tt.want)) {
			t.Errorf("SplitCC(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestIsForwarded(t *testing.T) {
	notForwarded := []string{
		"access_key", "apikey", "subject", "from_name", "replyto", "ccemail", "redirect",
		"botcheck", "webhook", "g-captcha-response", "captcha_response", "h-captcha-response",
		"cf-captcha-response", "g-recaptcha-response", "recaptcha_response", "cf-turnstile-response",
	}
	forwarded := []string{
		"email", "name", "message", "phone", "", "subject_line", "access", "key",
		"reply_to", "cc", "redirect_url", "captcha", "my_access_key",
	}
	type tc struct {
		name string
		want bool
	}
	var tests []tc
	for _, n := range notForwarded {
		tests = append(tests, tc{n, false}, tc{strings.ToUpper(n), false}, tc{strings.ToUpper(n[:1]) + n[1:], false})
	}
	for _, n := range forwarded {
		tests = append(tests, tc{n, true}, tc{strings.ToUpper(n), true})
	}
	for _, tt := range tests {
		if got := submission.IsForwarded(tt.name); got != tt.want {
			t.Errorf("IsForwarded(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestEventTypes(t *testing.T) {
	if got := (submission.Accepted{}).EventType(); got != "submission.accepted.v1" {
		t.Errorf("Accepted.EventType() = %q", got)
	}
	if got := (submission.Redacted{}).EventType(); got != "submission.redacted.v1" {
		t.Errorf("Redacted.EventType() = %q", got)
	}
}

// Regression: a blank access_key after an apikey once wiped the key out, so
// the outcome depended on field order.
func TestSplitBlankAccessKeyKeepsTheAPIKey(t *testing.T) {
	for _, fields := range [][]submission.Field{
		{{Name: "apikey", Value: "k"}, {Name: "access_key", Value: ""}},
		{{Name: "access_key", Value: " "}, {Name: "apikey", Value: "k"}},
	} {
		if env, _ := submission.Split(fields); env.AccessKey != "k" {
			t.Errorf("Split(%v).AccessKey = %q, want k", fields, env.AccessKey)
		}
	}
}

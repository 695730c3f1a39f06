package i18n

import (
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"

	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
)

// keys flattens a catalog's tables into dotted message ids.
func keys(t *testing.T, file string) map[string]string {
	t.Helper()
	raw, err := catalogs.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var tree map[string]any
	if err := toml.Unmarshal(raw, &tree); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	out := map[string]string{}
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		for k, v := range m {
			switch v := v.(type) {
			case map[string]any:
				walk(prefix+k+".", v)
			case string:
				out[prefix+k] = v
			default:
				t.Errorf("%s: %s%s is a %T, not text", file, prefix, k, v)
			}
		}
	}
	walk("", tree)
	return out
}

// placeholders are a message's {{.Name}} fields.
func placeholders(text string) []string {
	var out []string
	for _, part := range strings.Split(text, "{{.")[1:] {
		name, _, _ := strings.Cut(part, "}}")
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// Every catalog has exactly English's keys, each with the same
// placeholders, and every one renders.
func TestEveryCatalogIsCompleteAndRenders(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	english := keys(t, "catalogs/en.toml")
	files, _ := fs.Glob(catalogs, "catalogs/*.toml")
	if len(files) < 8 {
		t.Fatalf("%d catalogs, want at least English, German, French, Spanish, Portuguese, Italian, Dutch and Japanese", len(files))
	}
	for _, f := range files {
		lang := strings.TrimSuffix(path.Base(f), ".toml")
		got := keys(t, f)
		for id, text := range english {
			translated, ok := got[id]
			if !ok {
				t.Errorf("%s: %s is missing", f, id)
				continue
			}
			if !slices.Equal(placeholders(translated), placeholders(text)) {
				t.Errorf("%s: %s has placeholders %v, English %v", f, id, placeholders(translated), placeholders(text))
			}
			rendered := c.Text(lang, id, map[string]any{"Field": "email", "RequestID": "req_1", "Email": "ada@example.com", "Link": "https://forms.example/verify/t", "Expires": "2026-01-01 12:00 UTC", "Status": 503,
				"FormName": "Contact", "Min": 12})
			if rendered == id || strings.Contains(rendered, "{{") || strings.Contains(rendered, "<no value>") {
				t.Errorf("%s: %s renders as %q", f, id, rendered)
			}
		}
		for _, id := range slices.Sorted(maps.Keys(got)) {
			if _, ok := english[id]; !ok {
				t.Errorf("%s: %s is not in English's catalog", f, id)
			}
		}
	}
	// The error page's reason codes (ports/httpapi/hosted_pages.go): every
	// gate's, and the refusals that are not a gate's.
	for _, code := range []string{submission.GateAccessKey, submission.GateRecipientVerified, submission.GateOrigin,
		submission.GateServerSide, submission.GateCaptcha, submission.GateHoneypot, submission.GateSpam, submission.GateRedirect,
		submission.GatePaidFeatures, submission.GateUploads, submission.GateFields, submission.GateQuota,
		"too_large", "rate_limited", "invalid_body", "idempotency_key", "form_rate_limited", "busy", "unavailable"} {
		if _, ok := english["reason."+code]; !ok {
			t.Errorf("no text for the error page's reason %s", code)
		}
	}
	for _, rule := range []string{submission.RuleRequired, submission.RuleMinLength, submission.RuleMaxLength, submission.RuleEmail,
		submission.RuleURL, submission.RuleNumber, submission.RuleRegex, submission.RuleFileRequired, submission.RuleFileType} {
		if _, ok := english["rule."+rule]; !ok {
			t.Errorf("no text for the field rule %s", rule)
		}
	}
	if english["mail.autoresponder.subject"] != submission.DefaultAutoresponderSubject ||
		english["mail.autoresponder.message"] != submission.DefaultAutoresponderMessage {
		t.Errorf("English default autoresponder differs from the domain's")
	}
	if english["reason.spam"] != submission.MsgSpamContent {
		t.Errorf("English reason.spam is %q, the spec's message %q", english["reason.spam"], submission.MsgSpamContent)
	}
}

// The languages a form may name (form.Languages) are exactly the
// catalogs', English first: the one list of them lives in the domain.
func TestTheCatalogsAreTheLanguagesAFormMayName(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	got := c.Languages()
	if got[0] != "en" || !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(form.Languages))) {
		t.Errorf("catalogs %v, form.Languages %v", got, form.Languages)
	}
}

func TestTheVisitorsLanguageIsMatchedAmongTheCatalogs(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		preferences []string
		want        string
	}{
		{[]string{"de-DE,de;q=0.9,en;q=0.8"}, "de"},
		{[]string{"", "fr-CH, fr;q=0.9"}, "fr"},
		{[]string{"pt-BR"}, "pt"},
		{[]string{"ja"}, "ja"},
		{[]string{"nl", "de"}, "nl"},
		{[]string{"zh-CN,zh;q=0.9"}, "en"},
		{[]string{"not a header"}, "en"},
		{nil, "en"},
	} {
		if got := c.Language(tc.preferences...); got != tc.want {
			t.Errorf("Language(%q) = %q, want %q", tc.preferences, got, tc.want)
		}
	}
	if got := c.Text("de", "page.success.title", nil); got != "Vielen Dank!" {
		t.Errorf("German success title %q", got)
	}
	if got := c.Text("xx", "page.success.title", nil); got != "Thank you!" {
		t.Errorf("an unknown language falls back to English: %q", got)
	}
}

package form

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestMaskURLShowsSchemeHostAndTheLastFourCharacters(t *testing.T) {
	for raw, want := range map[string]string{
		"https://hooks.slack.com/services/T0001/B0001/abcdefghijklmnopqrstwxyz": "https://hooks.slack.com/…wxyz",
		"https://discord.com/api/webhooks/123456789/tok-en_secret":              "https://discord.com/…cret",
		"https://user:pa55word@example.com/hook?token=s3cr3t-value":             "https://example.com/…alue",
		"https://example.com:8443/h":                                            "https://example.com:8443/…",
		"https://example.com":                                                   "https://example.com/…",
		"":                                                                      "",
		"not a url":                                                             "…",
	} {
		if got := MaskURL(raw); got != want {
			t.Errorf("MaskURL(%q) = %q, want %q", raw, got, want)
		}
	}
	if got := MaskURL("https://user:pa55word@example.com/hook"); strings.Contains(got, "pa55word") || strings.Contains(got, "user") {
		t.Errorf("user information shown: %q", got)
	}
}

func TestAMaskedIntegrationAndItsHistoryNeverShowTheTargetURL(t *testing.T) {
	secret := "https://hooks.slack.com/services/T0001/B0001/abcdefghijklmnopqrstwxyz"
	in := Integration{Type: IntegrationSlack, TargetURL: secret, ChatID: "-100", SpreadsheetID: "1Ab", SheetName: "S"}
	got := in.Masked()
	if got.TargetURL != "https://hooks.slack.com/…wxyz" || got.ChatID != "-100" || got.SpreadsheetID != "1Ab" || got.SheetName != "S" {
		t.Errorf("masked %+v", got)
	}
	to, _ := json.Marshal(secret)
	c := MaskedChange(Change{Field: "integrations.slack.targetUrl", From: json.RawMessage("null"), To: to})
	if strings.Contains(string(c.To), "abcdefgh") || string(c.To) != `"https://hooks.slack.com/…wxyz"` || string(c.From) != "null" {
		t.Errorf("masked change %s → %s", c.From, c.To)
	}
	name := Change{Field: "integrations.google_sheets.sheetName", To: json.RawMessage(`"Leads"`)}
	if MaskedChange(name).To == nil || string(MaskedChange(name).To) != `"Leads"` {
		t.Error("a sheet name is not masked")
	}
}

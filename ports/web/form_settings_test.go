package web

import (
	"encoding/json"
	"testing"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/form"
)

func TestSettingsPatchSendsTheCaptchaSecretOnlyWhenTyped(t *testing.T) {
	in := settingsFields{CaptchaProvider: "turnstile", CaptchaSiteKey: "0x4AAA"}
	patch, problems := settingsPatch(in)
	if problems != nil {
		t.Fatalf("problems: %v", problems)
	}
	if patch.Captcha == nil || *patch.Captcha.Provider != "turnstile" || *patch.Captcha.SiteKey != "0x4AAA" {
		t.Fatalf("captcha patch %+v", patch.Captcha)
	}
	if patch.Captcha.Secret != nil {
		t.Fatal("an empty secret box must keep the stored secret, not send an empty one")
	}
	in.CaptchaSecret = "s3cret"
	patch, _ = settingsPatch(in)
	if patch.Captcha.Secret == nil || *patch.Captcha.Secret != "s3cret" {
		t.Fatalf("a typed secret is sent: %+v", patch.Captcha)
	}
}

func TestSettingsPatchSendsNoProviderSettingsForNoneOrFormd(t *testing.T) {
	for _, provider := range []string{form.CaptchaNoneName, string(form.CaptchaFormd)} {
		patch, problems := settingsPatch(settingsFields{CaptchaProvider: provider, CaptchaSiteKey: "stale", CaptchaSecret: "stale",
			CaptchaMinScore: "0.3"})
		if problems != nil {
			t.Fatalf("%s: %v", provider, problems)
		}
		if c := patch.Captcha; c.SiteKey != nil || c.Secret != nil || c.MinScore != nil {
			t.Fatalf("%s: the domain refuses these for its provider, so they must not be sent: %+v", provider, c)
		}
	}
}

func TestSettingsPatchRefusesWhatCannotBeRead(t *testing.T) {
	for field, in := range map[string]settingsFields{
		"maxFiles":        {MaxFiles: "two"},
		"maxFileBytes":    {MaxFileBytes: "1 MB"},
		"validation":      {Validation: `{"fields": [`},
		"captchaMinScore": {CaptchaProvider: "recaptcha_v3", CaptchaMinScore: "high"},
	} {
		if in.CaptchaProvider == "" {
			in.CaptchaProvider = form.CaptchaNoneName
		}
		if _, problems := settingsPatch(in); problems[field] == "" {
			t.Errorf("%s: got %v", field, problems)
		}
	}
	if _, problems := settingsPatch(settingsFields{CaptchaProvider: "none", Validation: `{"fields": [], "extra": 1}`}); problems["validation"] == "" {
		t.Error("unknown keys in the rules are refused, not ignored")
	}
}

func TestSettingsPatchEmptiesListsAndRules(t *testing.T) {
	patch, problems := settingsPatch(settingsFields{CaptchaProvider: "none"})
	if problems != nil {
		t.Fatal(problems)
	}
	if patch.Validation == nil || patch.Validation.Fields == nil || len(patch.Validation.Fields) != 0 {
		t.Fatalf("an empty box clears the rules: %+v", patch.Validation)
	}
	if patch.AllowedSenderIPs == nil || len(*patch.AllowedSenderIPs) != 0 || patch.UploadLimits == nil || patch.UploadLimits.MaxFiles != 0 || patch.UploadLimits.MaxFileBytes != 0 || len(patch.UploadLimits.AllowedMimeTypes) != 0 {
		t.Fatalf("empty boxes clear the list and take the default limits: %+v %+v", patch.AllowedSenderIPs, patch.UploadLimits)
	}
}

func TestSettingsProblemPlacesErrorsNextToTheirFields(t *testing.T) {
	for _, c := range []struct{ field, wantField, wantPrefix string }{
		{"validation.fields[1].type", "validation", "Rule 2: "},
		{"validation.fields", "validation", "Type"},
		{"allowedSenderIps[3]", "allowedSenderIps", "Type"},
		{"uploadLimits.allowedMimeTypes[0]", "allowedMimeTypes", "Type"},
		{"captcha.secret", "captchaSecret", "Type"},
	} {
		field, message, ok := settingsProblem(&domain.InvalidInputError{Field: c.field, Message: "type must be right"})
		if !ok || field != c.wantField || message[:len(c.wantPrefix)] != c.wantPrefix {
			t.Errorf("%s: got %q %q %v", c.field, field, message, ok)
		}
	}
}

func TestSettingsPatchSendsTestModeEitherWay(t *testing.T) {
	for _, on := range []bool{true, false} {
		patch, problems := settingsPatch(settingsFields{CaptchaProvider: form.CaptchaNoneName, TestMode: on})
		if problems != nil {
			t.Fatal(problems)
		}
		if patch.TestMode == nil || *patch.TestMode != on {
			t.Fatalf("an unticked box switches test mode off, a ticked one on: want %v, got %v", on, patch.TestMode)
		}
	}
	if got := fieldsOf(form.Settings{TestMode: true}); !got.TestMode {
		t.Fatal("the box shows the saved test mode")
	}
}

func TestSettingsPatchSendsTheArchive(t *testing.T) {
	patch, problems := settingsPatch(settingsFields{CaptchaProvider: form.CaptchaNoneName, ArchiveEnabled: true, ArchiveRetentionDays: "30"})
	if problems != nil || patch.Archive == nil || *patch.Archive != (form.Archive{Enabled: true, RetentionDays: 30}) {
		t.Fatalf("a ticked box with days turns the archive on: %+v %v", patch.Archive, problems)
	}
	patch, problems = settingsPatch(settingsFields{CaptchaProvider: form.CaptchaNoneName, ArchiveRetentionDays: "30"})
	if problems != nil || patch.Archive == nil || *patch.Archive != (form.Archive{}) {
		t.Fatalf("an unticked box turns it off, whatever days are left in the box: %+v %v", patch.Archive, problems)
	}
	if _, problems := settingsPatch(settingsFields{CaptchaProvider: form.CaptchaNoneName, ArchiveEnabled: true, ArchiveRetentionDays: "a month"}); problems["archiveRetentionDays"] == "" {
		t.Fatalf("days that are no number are refused next to the field: %v", problems)
	}
	if got := fieldsOf(form.Settings{Archive: form.Archive{Enabled: true, RetentionDays: 7}}); !got.ArchiveEnabled || got.ArchiveRetentionDays != "7" {
		t.Fatalf("the page shows the saved archive: %+v", got)
	}
	if field, _, ok := settingsProblem(&domain.InvalidInputError{Field: "archive.retentionDays", Message: "too long"}); !ok || field != "archiveRetentionDays" {
		t.Fatalf("a refused retention is placed next to its field, got %q", field)
	}
}

func TestAuditTrailShowsTheArchiveForPeople(t *testing.T) {
	for raw, want := range map[string]string{
		"":                                    "off",
		"null":                                "off",
		`{"enabled":true,"retentionDays":30}`: "on, 30 days",
		`{"enabled":true,"retentionDays":1}`:  "on, 1 day",
	} {
		if got := shownArchive(json.RawMessage(raw)); got != want {
			t.Errorf("%s: got %q, want %q", raw, got, want)
		}
	}
}

func TestAuditTrailShowsTheSpamPolicyForPeople(t *testing.T) {
	for raw, want := range map[string]string{
		"":     "off",
		"null": "off",
		`{"mode":"tag","rules":{"blockWords":["viagra"],"maxLinks":3,"blockDisposable":true}}`: "tag, 3 rules",
		`{"mode":"reject","rules":{"blockIps":["10.0.0.0/8"]}}`:                                "reject, 1 rule",
		`{"rules":{"blockIps":["10.0.0.0/8"]}}`:                                                "off, 1 rule",
	} {
		if got := shownSpam(json.RawMessage(raw)); got != want {
			t.Errorf("%s: got %q, want %q", raw, got, want)
		}
	}
}

func TestSettingsPatchSendsHoldModeAndItsDays(t *testing.T) {
	patch, problems := settingsPatch(settingsFields{CaptchaProvider: form.CaptchaNoneName, SpamMode: "hold", SpamHoldDays: "14"})
	if problems != nil || patch.Spam == nil || patch.Spam.Mode != form.SpamHold || patch.Spam.HoldDays != 14 {
		t.Fatalf("hold mode with days is sent: %+v %v", patch.Spam, problems)
	}
	patch, problems = settingsPatch(settingsFields{CaptchaProvider: form.CaptchaNoneName, SpamMode: "hold"})
	if problems != nil || patch.Spam.HoldDays != 0 {
		t.Fatalf("an empty box takes the default (0): %+v %v", patch.Spam, problems)
	}
	patch, problems = settingsPatch(settingsFields{CaptchaProvider: form.CaptchaNoneName, SpamMode: "tag", SpamHoldDays: "14"})
	if problems != nil || patch.Spam.HoldDays != 0 {
		t.Fatalf("out of hold mode, days left in the box are no setting (the domain refuses them): %+v %v", patch.Spam, problems)
	}
	if _, problems := settingsPatch(settingsFields{CaptchaProvider: form.CaptchaNoneName, SpamMode: "hold", SpamHoldDays: "a week"}); problems["spamHoldDays"] == "" {
		t.Fatalf("days that are no number are refused next to the field: %v", problems)
	}
	if got := fieldsOf(form.Settings{Spam: form.Spam{Mode: form.SpamHold, HoldDays: 7}}); got.SpamMode != "hold" || got.SpamHoldDays != "7" {
		t.Fatalf("the page shows the saved hold: %+v", got)
	}
	if field, _, ok := settingsProblem(&domain.InvalidInputError{Field: "spam.holdDays", Message: "too long"}); !ok || field != "spamHoldDays" {
		t.Fatalf("a refused hold is placed next to its field, got %q", field)
	}
}

package form_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/form"
)

func score(f float64) *float64 { return &f }

func TestCaptchaPatch(t *testing.T) {
	hcaptcha := form.Captcha{Provider: form.CaptchaHCaptcha, SiteKey: "site-1", SecretID: "sec-1"}
	v3 := form.Captcha{Provider: form.CaptchaRecaptchaV3, SiteKey: "site-3", MinScore: 0.7, SecretID: "sec-3"}
	tests := []struct {
		name      string
		before    form.Captcha
		patch     form.CaptchaPatch
		want      form.Captcha
		wantField string // the refused field; empty: accepted
	}{
		{"a third-party provider with its keys", form.Captcha{},
			form.CaptchaPatch{Provider: formStr("hcaptcha"), SiteKey: formStr(" site-1 "), Secret: formStr("0xSECRET"), SecretID: "sec-1"},
			hcaptcha, ""},
		{"recaptcha_v3 gets the default minScore", form.Captcha{},
			form.CaptchaPatch{Provider: formStr("recaptcha_v3"), SiteKey: formStr("k"), Secret: formStr("s"), SecretID: "sec-2"},
			form.Captcha{Provider: form.CaptchaRecaptchaV3, SiteKey: "k", MinScore: form.DefaultMinScore, SecretID: "sec-2"}, ""},
		{"recaptcha_v3 with its own minScore", form.Captcha{},
			form.CaptchaPatch{Provider: formStr("recaptcha_v3"), SiteKey: formStr("k"), Secret: formStr("s"), SecretID: "sec-2", MinScore: score(0)},
			form.Captcha{Provider: form.CaptchaRecaptchaV3, SiteKey: "k", MinScore: 0, SecretID: "sec-2"}, ""},
		{"only the minScore changes, keys kept", v3, form.CaptchaPatch{MinScore: score(0.9)},
			form.Captcha{Provider: form.CaptchaRecaptchaV3, SiteKey: "site-3", MinScore: 0.9, SecretID: "sec-3"}, ""},
		{"naming the same provider keeps its keys", hcaptcha, form.CaptchaPatch{Provider: formStr("hcaptcha")}, hcaptcha, ""},
		{"a new secret for the same provider", hcaptcha, form.CaptchaPatch{Secret: formStr("0xNEW"), SecretID: "sec-9"},
			form.Captcha{Provider: form.CaptchaHCaptcha, SiteKey: "site-1", SecretID: "sec-9"}, ""},
		{"formd's own needs no keys", hcaptcha, form.CaptchaPatch{Provider: formStr("formd")}, form.Captcha{Provider: form.CaptchaFormd}, ""},
		{"none turns it off", hcaptcha, form.CaptchaPatch{Provider: formStr("none")}, form.Captcha{}, ""},
		{"an unknown provider", form.Captcha{}, form.CaptchaPatch{Provider: formStr("recaptcha")}, form.Captcha{}, "captcha.provider"},
		{"a new provider needs its own secret", hcaptcha, form.CaptchaPatch{Provider: formStr("turnstile"), SiteKey: formStr("0x4AAA")},
			hcaptcha, "captcha.secret"},
		{"a third-party provider needs a site key", form.Captcha{},
			form.CaptchaPatch{Provider: formStr("turnstile"), Secret: formStr("s"), SecretID: "x"}, form.Captcha{}, "captcha.siteKey"},
		{"a site key with a space", form.Captcha{},
			form.CaptchaPatch{Provider: formStr("turnstile"), SiteKey: formStr("a b"), Secret: formStr("s"), SecretID: "x"}, form.Captcha{}, "captcha.siteKey"},
		{"an empty secret", hcaptcha, form.CaptchaPatch{Secret: formStr(""), SecretID: "x"}, hcaptcha, "captcha.secret"},
		{"a secret too long", hcaptcha, form.CaptchaPatch{Secret: formStr(strings.Repeat("s", 201)), SecretID: "x"}, hcaptcha, "captcha.secret"},
		{"minScore above 1", v3, form.CaptchaPatch{MinScore: score(1.5)}, v3, "captcha.minScore"},
		{"minScore below 0", v3, form.CaptchaPatch{MinScore: score(-0.1)}, v3, "captcha.minScore"},
		{"minScore for another provider", hcaptcha, form.CaptchaPatch{MinScore: score(0.5)}, hcaptcha, "captcha.minScore"},
		{"a secret for formd's own", form.Captcha{}, form.CaptchaPatch{Provider: formStr("formd"), Secret: formStr("s"), SecretID: "x"},
			form.Captcha{}, "captcha.secret"},
		{"a site key while off", form.Captcha{}, form.CaptchaPatch{SiteKey: formStr("k")}, form.Captcha{}, "captcha.siteKey"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.before.Apply(tt.patch)
			if tt.wantField == "" {
				if err != nil || got != tt.want {
					t.Fatalf("Apply = %+v, %v; want %+v", got, err, tt.want)
				}
				return
			}
			var invalid *domain.InvalidInputError
			if !errors.As(err, &invalid) || invalid.Field != tt.wantField {
				t.Fatalf("Apply = %+v, %v; want a refusal of %s", got, err, tt.wantField)
			}
		})
	}
}

func TestCaptchaTokenFieldsAreTheSpecs(t *testing.T) {
	for p, want := range map[form.CaptchaProvider]string{
		form.CaptchaRecaptchaV2: "g-captcha-response", form.CaptchaRecaptchaV3: "captcha_response",
		form.CaptchaHCaptcha: "h-captcha-response", form.CaptchaTurnstile: "cf-captcha-response", form.CaptchaFormd: "altcha",
	} {
		if got := p.TokenField(); got != want {
			t.Errorf("%s.TokenField() = %q, want %q", p, got, want)
		}
	}
}

func TestCaptchaDiffHidesTheSecret(t *testing.T) {
	f := formLoaded(t)
	secret := "0xTOPSECRET"
	if err := f.ChangeSettings(form.Patch{Captcha: &form.CaptchaPatch{Provider: formStr("recaptcha_v3"), SiteKey: formStr("site-3"),
		Secret: &secret, SecretID: "sec-1"}}, form.Policy{}, formT0); err != nil {
		t.Fatal(err)
	}
	if err := f.ChangeSettings(form.Patch{Captcha: &form.CaptchaPatch{Secret: formStr("0xOTHER"), SecretID: "sec-2"}}, form.Policy{}, formT0); err != nil {
		t.Fatal(err)
	}
	type change struct{ field, from, to string }
	var got []change
	for _, e := range f.Changes() {
		for _, c := range e.(form.SettingsChanged).Changes {
			got = append(got, change{c.Field, string(c.From), string(c.To)})
		}
	}
	want := []change{
		{"captcha.provider", `"none"`, `"recaptcha_v3"`},
		{"captcha.siteKey", `""`, `"site-3"`},
		{"captcha.minScore", `null`, `0.5`},
		{"captcha.secret", `null`, `"(hidden)"`},
		// A new secret is a change even though both show alike.
		{"captcha.secret", `"(hidden)"`, `"(hidden)"`},
	}
	if len(got) != len(want) {
		t.Fatalf("changes %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("change %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if st := f.Settings().Captcha; st.SecretID != "sec-2" || st.MinScore != 0.5 {
		t.Fatalf("captcha %+v", st)
	}
	for _, e := range f.Changes() {
		if b, _ := json.Marshal(e); strings.Contains(string(b), secret) || strings.Contains(string(b), "0xOTHER") {
			t.Fatalf("an event holds the secret: %s", b)
		}
	}
	if changes := form.Diff(form.Settings{}, f.Settings(), true); changes[len(changes)-1].Field != "captcha.secret" ||
		string(changes[len(changes)-1].To) != `"(hidden)"` {
		t.Fatalf("the audit view of creation must list the captcha too, secret hidden: %+v", changes)
	}
}

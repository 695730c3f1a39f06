package main

import (
	"strings"
	"testing"
	"time"

	"github.com/formd/formd/adapters/akismet"
	"github.com/formd/formd/adapters/rspamd"
)

func TestRspamdSettingsAreCheckedAtStart(t *testing.T) {
	scanner := "http://127.0.0.1:11333"
	checkConfigCases(t, map[string]configCase{
		"no classifier": {env: map[string]string{}},
		"scanner only":  {env: map[string]string{"FORMD_RSPAMD_URL": scanner}},
		"scanner and controller": {env: map[string]string{"FORMD_RSPAMD_URL": scanner, "FORMD_RSPAMD_CONTROLLER_URL": "https://rspamd.internal:11334/",
			"FORMD_RSPAMD_PASSWORD": "s3cret", "FORMD_RSPAMD_TIMEOUT": "500ms"}},
		"not a URL": {env: map[string]string{"FORMD_RSPAMD_URL": "127.0.0.1:11333"},
			want: []string{"FORMD_RSPAMD_URL", "http://", `"127.0.0.1:11333"`}},
		"a bad controller URL": {env: map[string]string{"FORMD_RSPAMD_URL": scanner, "FORMD_RSPAMD_CONTROLLER_URL": "http://127.0.0.1:11334?x"},
			want: []string{"FORMD_RSPAMD_CONTROLLER_URL", "query"}},
		"credentials in the URL": {env: map[string]string{"FORMD_RSPAMD_URL": "http://u:s3cret@127.0.0.1:11333"},
			want: []string{"FORMD_RSPAMD_URL", "credentials"}, hidden: []string{"s3cret"}},
		"a controller without a scanner": {env: map[string]string{"FORMD_RSPAMD_CONTROLLER_URL": "http://127.0.0.1:11334"},
			want: []string{"FORMD_RSPAMD_URL is not"}},
		"a password without a controller": {env: map[string]string{"FORMD_RSPAMD_URL": scanner, "FORMD_RSPAMD_PASSWORD": "s3cret"},
			want: []string{"FORMD_RSPAMD_PASSWORD", "FORMD_RSPAMD_CONTROLLER_URL is not"}, hidden: []string{"s3cret"}},
		"a zero timeout": {env: map[string]string{"FORMD_RSPAMD_URL": scanner, "FORMD_RSPAMD_TIMEOUT": "0s"},
			want: []string{"FORMD_RSPAMD_TIMEOUT", "30s"}},
		"a timeout too long": {env: map[string]string{"FORMD_RSPAMD_URL": scanner, "FORMD_RSPAMD_TIMEOUT": "5m"},
			want: []string{"FORMD_RSPAMD_TIMEOUT", "at most"}},
		"a timeout that is no duration": {env: map[string]string{"FORMD_RSPAMD_URL": scanner, "FORMD_RSPAMD_TIMEOUT": "2"},
			want: []string{"FORMD_RSPAMD_TIMEOUT"}},
	})
}

func TestAkismetSettingsAreCheckedAtStart(t *testing.T) {
	key, site := "k3y-s3cret-123", "https://shop.example"
	checkConfigCases(t, map[string]configCase{
		"key and site": {env: map[string]string{"FORMD_AKISMET_KEY": key, "FORMD_AKISMET_SITE": site}},
		"key, site and a proxy": {env: map[string]string{"FORMD_AKISMET_KEY": key, "FORMD_AKISMET_SITE": site,
			"FORMD_AKISMET_URL": "http://127.0.0.1:8081"}},
		"a key without a site": {env: map[string]string{"FORMD_AKISMET_KEY": key},
			want: []string{"FORMD_AKISMET_SITE is not"}, hidden: []string{key}},
		"a site without a key": {env: map[string]string{"FORMD_AKISMET_SITE": site},
			want: []string{"FORMD_AKISMET_KEY is not"}},
		"a key with a space": {env: map[string]string{"FORMD_AKISMET_KEY": "k3y s3cret", "FORMD_AKISMET_SITE": site},
			want: []string{"FORMD_AKISMET_KEY", "spaces"}, hidden: []string{"s3cret"}},
		"a site that is no URL": {env: map[string]string{"FORMD_AKISMET_KEY": key, "FORMD_AKISMET_SITE": "shop.example"},
			want: []string{"FORMD_AKISMET_SITE", "https://", `"shop.example"`}, hidden: []string{key}},
		"an API address with a password": {env: map[string]string{"FORMD_AKISMET_KEY": key, "FORMD_AKISMET_SITE": site,
			"FORMD_AKISMET_URL": "https://u:pr0xy-pass@proxy.example"}, want: []string{"FORMD_AKISMET_URL", "credentials"},
			hidden: []string{key, "pr0xy-pass"}},
		"rspamd and Akismet both": {env: map[string]string{"FORMD_AKISMET_KEY": key, "FORMD_AKISMET_SITE": site,
			"FORMD_RSPAMD_URL": "http://127.0.0.1:11333"}, want: []string{"FORMD_AKISMET_KEY", "FORMD_RSPAMD_URL", "one spam classifier"},
			hidden: []string{key}},
	})
}

func TestTheSpamClassifierIsThereOnlyWhenConfigured(t *testing.T) {
	load := func(env map[string]string) Config {
		t.Helper()
		unsetFormdEnv(t)
		t.Setenv("FORMD_SECRET_KEY", strings.Repeat("ab", 32))
		for k, v := range env {
			t.Setenv(k, v)
		}
		cfg, err := loadConfig()
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	cfg := load(nil)
	if cfg.RspamdTimeout != 2*time.Second {
		t.Fatalf("the default timeout is %s, want 2s", cfg.RspamdTimeout)
	}
	if none, err := provideSpamClassifier(cfg); err != nil || none != nil {
		t.Fatalf("without FORMD_RSPAMD_URL: %v, %v; want no classifier", none, err)
	}
	cfg = load(map[string]string{"FORMD_RSPAMD_URL": "http://127.0.0.1:11333"})
	if some, err := provideSpamClassifier(cfg); err != nil || some == nil {
		t.Fatalf("with FORMD_RSPAMD_URL: %v, %v; want a classifier", some, err)
	} else if _, ok := some.(*rspamd.Classifier); !ok {
		t.Fatalf("with FORMD_RSPAMD_URL: a %T, want rspamd's", some)
	}
	cfg = load(map[string]string{"FORMD_AKISMET_KEY": "k3y-s3cret-123", "FORMD_AKISMET_SITE": "https://shop.example"})
	if cfg.AkismetURL != akismet.DefaultURL {
		t.Fatalf("the default Akismet URL is %q, want %q", cfg.AkismetURL, akismet.DefaultURL)
	}
	if some, err := provideSpamClassifier(cfg); err != nil {
		t.Fatalf("with FORMD_AKISMET_KEY: %v", err)
	} else if _, ok := some.(*akismet.Classifier); !ok {
		t.Fatalf("with FORMD_AKISMET_KEY: a %T, want Akismet's", some)
	}
}

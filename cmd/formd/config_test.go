package main

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/formd/formd/adapters/secrets"
)

// Regression (issue 8, item 10): without FORMD_SECRET_KEY formd generated a
// key into its data folder and served; a restart with another folder lost
// every queued payload. Now serving needs the key unless development mode
// is explicit.
func TestServingNeedsASecretKeyOutsideDevelopmentMode(t *testing.T) {
	for name, env := range map[string]map[string]string{
		"no key":              {},
		"blank key":           {"FORMD_SECRET_KEY": "  "},
		"development off":     {"FORMD_DEV": "false"},
		"only old keys given": {"FORMD_SECRET_KEYS_OLD": strings.Repeat("ab", 32)},
	} {
		t.Run(name, func(t *testing.T) {
			clearEnv(t)
			for k, v := range env {
				t.Setenv(k, v)
			}
			cfg, err := loadConfig()
			if err != nil {
				t.Fatal(err)
			}
			if err := cfg.requireSecretKey(); !errors.Is(err, secrets.ErrNoKey) || !strings.Contains(err.Error(), "FORMD_DEV=true") {
				t.Fatalf("requireSecretKey = %v; want ErrNoKey saying how to run in development mode", err)
			}
		})
	}
	for name, env := range map[string]map[string]string{
		"a key":            {"FORMD_SECRET_KEY": strings.Repeat("ab", 32)},
		"development mode": {"FORMD_DEV": "true"},
	} {
		t.Run(name, func(t *testing.T) {
			clearEnv(t)
			for k, v := range env {
				t.Setenv(k, v)
			}
			cfg, err := loadConfig()
			if err != nil || cfg.requireSecretKey() != nil {
				t.Fatalf("loadConfig: %v, requireSecretKey: %v; want both to pass", err, cfg.requireSecretKey())
			}
		})
	}
}

func TestAMalformedKeyIsRefusedAtStartWithoutShowingIt(t *testing.T) {
	clearEnv(t)
	t.Setenv("FORMD_SECRET_KEY", "not-hex-but-secret")
	_, err := loadConfig()
	if err == nil || !strings.Contains(err.Error(), "FORMD_SECRET_KEY") || strings.Contains(err.Error(), "not-hex-but-secret") {
		t.Fatalf("loadConfig = %v; want an error naming FORMD_SECRET_KEY without its value", err)
	}
}

// clearEnv unsets the key variables for the test (t.Setenv restores them).
func clearEnv(t *testing.T) {
	for _, k := range []string{"FORMD_SECRET_KEY", "FORMD_SECRET_KEYS_OLD", "FORMD_DEV"} {
		t.Setenv(k, "")
	}
}

func TestFailedPayloadRetention(t *testing.T) {
	tests := []struct {
		value   string
		want    time.Duration
		wantErr string
	}{
		{"", 7 * 24 * time.Hour, ""},
		{"72h", 72 * time.Hour, ""},
		{"0", 0, ""},
		{"-1h", 0, "FORMD_FAILED_PAYLOAD_RETENTION"},
		// Naming the variable in every parse error is item 1 of issue 9.
		{"a week", 0, "invalid duration"},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			clearEnv(t)
			if tt.value != "" {
				t.Setenv("FORMD_FAILED_PAYLOAD_RETENTION", tt.value)
			}
			cfg, err := loadConfig()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("loadConfig = %v, want an error naming %s", err, tt.wantErr)
				}
				return
			}
			if err != nil || cfg.FailedPayloadRetention != tt.want {
				t.Fatalf("retention %v, %v; want %v", cfg.FailedPayloadRetention, err, tt.want)
			}
		})
	}
}

package main

import (
	"bytes"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/formd/formd/adapters/auditlog"
)

// generated runs `formd audit key generate name` and returns the two keys
// it printed.
func generated(t *testing.T, name string) (skey, vkey string) {
	t.Helper()
	var out bytes.Buffer
	if err := auditKey(Config{}, slog.New(slog.DiscardHandler), []string{"generate", name}, &out); err != nil {
		t.Fatalf("audit key generate %s: %v", name, err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("audit key generate printed %q; want the signing key line and the verifier key line", out.String())
	}
	skey, ok := strings.CutPrefix(lines[0], "FORMD_AUDIT_SIGNING_KEY=")
	if !ok {
		t.Fatalf("first line %q; want FORMD_AUDIT_SIGNING_KEY=<key>", lines[0])
	}
	vkey, ok = strings.CutPrefix(lines[1], "verifier key (publish it; auditors pin it): ")
	if !ok {
		t.Fatalf("second line %q; want the verifier key, said to be one", lines[1])
	}
	return skey, vkey
}

func TestAuditKeyGenerateRoundTrips(t *testing.T) {
	skey, vkey := generated(t, "forms.example.com/audit")
	s, err := auditlog.ParseSigningKey(skey)
	if err != nil {
		t.Fatalf("ParseSigningKey(generated key): %v", err)
	}
	if s.VerifierKey() != vkey || s.Origin() != "forms.example.com/audit" {
		t.Fatalf("parsed key: verifier %q, origin %q; want %q and the name given", s.VerifierKey(), s.Origin(), vkey)
	}
	signed, err := s.SignCheckpoint(3, bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	if size, _, err := auditlog.OpenCheckpoint(signed, vkey); err != nil || size != 3 {
		t.Fatalf("OpenCheckpoint with the printed verifier key: size %d, %v; want 3 and no error", size, err)
	}
	if strings.Contains(vkey, "PRIVATE") || strings.Contains(vkey, strings.TrimPrefix(skey, "PRIVATE+KEY+")) {
		t.Fatalf("verifier key %q shows the signing key", vkey)
	}
}

func TestAuditKeyRefusesBadNamesAndArguments(t *testing.T) {
	for name, args := range map[string][]string{
		"an empty name":   {"generate", ""},
		"a space":         {"generate", "forms example"},
		"a plus":          {"generate", "forms+example"},
		"a tab":           {"generate", "forms\texample"},
		"no name":         {"generate"},
		"two names":       {"generate", "a", "b"},
		"another command": {"rotate"},
	} {
		t.Run(name, func(t *testing.T) {
			var out bytes.Buffer
			err := auditKey(Config{}, slog.New(slog.DiscardHandler), args, &out)
			if err == nil || !strings.Contains(err.Error(), "no spaces") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("audit key %q = %v; want one line saying what a name may be", args, err)
			}
			if out.Len() > 0 {
				t.Fatalf("audit key %q printed %q; want nothing", args, out.String())
			}
		})
	}
}

func TestAuditKeyPrintsTheConfiguredVerifierKey(t *testing.T) {
	skey, vkey := generated(t, "forms.example.com/audit")
	var out bytes.Buffer
	if err := auditKey(Config{AuditSigningKey: skey}, slog.New(slog.DiscardHandler), nil, &out); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(out.String()); got != "verifier key (publish it; auditors pin it): "+vkey {
		t.Fatalf("audit key printed %q; want the configured key's verifier key %q", got, vkey)
	}
}

func TestAuditKeyWithoutAKeyOutsideDevelopmentMode(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	err := auditKey(Config{DataDir: dir}, slog.New(slog.DiscardHandler), nil, &out)
	if !errors.Is(err, auditlog.ErrNoSigningKey) || out.Len() > 0 {
		t.Fatalf("audit key = %v, printed %q; want ErrNoSigningKey and nothing printed", err, out.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "audit-signing.key")); !os.IsNotExist(err) {
		t.Fatalf("a key file was written outside development mode (%v)", err)
	}
}

func TestAuditKeyInDevelopmentModeIsTheGeneratedOne(t *testing.T) {
	cfg := Config{DataDir: t.TempDir(), Dev: true}
	var first, second bytes.Buffer
	if err := auditKey(cfg, slog.New(slog.DiscardHandler), nil, &first); err != nil {
		t.Fatal(err)
	}
	if err := auditKey(cfg, slog.New(slog.DiscardHandler), nil, &second); err != nil {
		t.Fatal(err)
	}
	if first.String() == "" || first.String() != second.String() {
		t.Fatalf("audit key in development mode printed %q, then %q; want the data folder's key both times", first.String(), second.String())
	}
}

// Serving needs the audit signing key outside development mode, and a
// malformed one is refused at start, naming the variable and never its value.
func TestServingNeedsAnAuditSigningKeyOutsideDevelopmentMode(t *testing.T) {
	skey, _ := generated(t, "forms.example.com/audit")
	for name, c := range map[string]struct {
		env  map[string]string
		want string
	}{
		"no key":             {env: map[string]string{}, want: "FORMD_AUDIT_SIGNING_KEY is not set"},
		"blank key":          {env: map[string]string{"FORMD_AUDIT_SIGNING_KEY": "  "}, want: "FORMD_AUDIT_SIGNING_KEY is not set"},
		"malformed":          {env: map[string]string{"FORMD_AUDIT_SIGNING_KEY": "not-a-key-but-secret"}, want: "FORMD_AUDIT_SIGNING_KEY is not a note signing key"},
		"malformed, in dev":  {env: map[string]string{"FORMD_AUDIT_SIGNING_KEY": "PRIVATE+KEY+x+secret", "FORMD_DEV": "true"}, want: "FORMD_AUDIT_SIGNING_KEY is not"},
		"a verifier key":     {env: map[string]string{"FORMD_AUDIT_SIGNING_KEY": strings.TrimPrefix(skey, "PRIVATE+KEY+")}, want: "FORMD_AUDIT_SIGNING_KEY is not"},
		"a key":              {env: map[string]string{"FORMD_AUDIT_SIGNING_KEY": skey}},
		"a key, with spaces": {env: map[string]string{"FORMD_AUDIT_SIGNING_KEY": " " + skey + "\n"}},
		"development mode":   {env: map[string]string{"FORMD_DEV": "true"}},
	} {
		t.Run(name, func(t *testing.T) {
			clearEnv(t)
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			cfg, err := loadConfig()
			if err != nil {
				t.Fatal(err)
			}
			err = cfg.requireAuditSigningKey()
			if c.want == "" {
				if err != nil {
					t.Fatalf("requireAuditSigningKey = %v; want it to pass", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "formd audit key generate") ||
				strings.Contains(err.Error(), "secret") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("requireAuditSigningKey = %v; want one line containing %q and how to make a key, without the value", err, c.want)
			}
		})
	}
}

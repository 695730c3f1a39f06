package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/caarlos0/env/v11"

	"github.com/formd/formd/adapters/secrets"
	"github.com/formd/formd/adapters/watermillpg"
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
	for _, k := range []string{"FORMD_SECRET_KEY", "FORMD_SECRET_KEYS_OLD", "FORMD_AUDIT_SIGNING_KEY", "FORMD_DEV"} {
		t.Setenv(k, "")
	}
}

// configCase is one environment and what loadConfig must say about it: no
// error when want is empty, else an error containing every want and none of
// hidden (secrets the message must not show).
type configCase struct {
	env    map[string]string
	want   []string
	hidden []string
}

// checkConfigCases runs each case against a clean FORMD_* environment (with a
// valid key, so only the variable under test can be wrong) and checks that a
// refusal is a single line.
func checkConfigCases(t *testing.T, cases map[string]configCase) {
	t.Helper()
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			unsetFormdEnv(t)
			t.Setenv("FORMD_SECRET_KEY", strings.Repeat("ab", 32))
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			_, err := loadConfig()
			if len(c.want) == 0 {
				if err != nil {
					t.Fatalf("loadConfig = %v; want it accepted", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("loadConfig accepted %v; want an error containing %q", c.env, c.want)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Errorf("message %q is more than one line", msg)
			}
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q does not contain %q", msg, w)
				}
			}
			for _, h := range c.hidden {
				if strings.Contains(msg, h) {
					t.Errorf("message %q shows the secret %q", msg, h)
				}
			}
		})
	}
}

// unsetFormdEnv removes every FORMD_* variable for the test (restored after).
func unsetFormdEnv(t *testing.T) {
	t.Helper()
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "FORMD_") && !isTestVariable(name) {
			t.Setenv(name, "")
			os.Unsetenv(name)
		}
	}
}

func TestAddressesAreCheckedAtStart(t *testing.T) {
	checkConfigCases(t, map[string]configCase{
		"default listen address":    {env: map[string]string{}},
		"listen on every interface": {env: map[string]string{"FORMD_LISTEN_ADDR": ":8080"}},
		"IPv6 debug address":        {env: map[string]string{"FORMD_DEBUG_ADDR": "[::1]:6060"}},
		"listen address without port": {env: map[string]string{"FORMD_LISTEN_ADDR": "localhost"},
			want: []string{"FORMD_LISTEN_ADDR", "host:port", `"localhost"`}},
		"listen port out of range": {env: map[string]string{"FORMD_LISTEN_ADDR": "127.0.0.1:70000"},
			want: []string{"FORMD_LISTEN_ADDR", "0 to 65535"}},
		"debug port not a number": {env: map[string]string{"FORMD_DEBUG_ADDR": "127.0.0.1:http"},
			want: []string{"FORMD_DEBUG_ADDR", `"http"`}},
	})
}

func TestURLsAreCheckedAtStartWithoutShowingPasswords(t *testing.T) {
	checkConfigCases(t, map[string]configCase{
		"database URL":         {env: map[string]string{"FORMD_DATABASE_URL": "postgres://u:pw@db:5432/formd?sslmode=disable"}},
		"postgresql scheme":    {env: map[string]string{"FORMD_DATABASE_URL": "postgresql://db/formd"}},
		"Unix socket":          {env: map[string]string{"FORMD_DATABASE_URL": "postgres:///formd?host=/var/run/postgresql"}},
		"https base URL":       {env: map[string]string{"FORMD_BASE_URL": "https://forms.example.com/"}},
		"base URL with a path": {env: map[string]string{"FORMD_BASE_URL": "https://example.com/forms"}},
		"SMTP URL":             {env: map[string]string{"FORMD_SMTP_URL": "smtp://u:pw@mail.example:2525?tls=starttls"}},
		"database URL of another scheme": {env: map[string]string{"FORMD_DATABASE_URL": "mysql://root:hunter2@db/formd"},
			want: []string{"FORMD_DATABASE_URL", "postgres://"}, hidden: []string{"hunter2"}},
		"database key=value string": {env: map[string]string{"FORMD_DATABASE_URL": "host=db password=hunter2"},
			want: []string{"FORMD_DATABASE_URL"}, hidden: []string{"hunter2"}},
		"database URL with a bad port": {env: map[string]string{"FORMD_DATABASE_URL": "postgres://u:hunter2@db:99999/formd"},
			want: []string{"FORMD_DATABASE_URL"}, hidden: []string{"hunter2"}},
		"database URL with a bad parameter": {env: map[string]string{"FORMD_DATABASE_URL": "postgres://u:hunter2@db/formd?sslmode=maybe"},
			want: []string{"FORMD_DATABASE_URL", "not a valid PostgreSQL URL"}, hidden: []string{"hunter2"}},
		"relative base URL": {env: map[string]string{"FORMD_BASE_URL": "forms.example.com"},
			want: []string{"FORMD_BASE_URL", "absolute"}},
		"base URL of another scheme": {env: map[string]string{"FORMD_BASE_URL": "ftp://forms.example.com"},
			want: []string{"FORMD_BASE_URL", "http"}},
		"base URL with a query": {env: map[string]string{"FORMD_BASE_URL": "https://forms.example.com/?a=1"},
			want: []string{"FORMD_BASE_URL", "query"}},
		"base URL with a fragment": {env: map[string]string{"FORMD_BASE_URL": "https://forms.example.com/#top"},
			want: []string{"FORMD_BASE_URL", "fragment"}},
		"SMTP URL of another scheme": {env: map[string]string{"FORMD_SMTP_URL": "smtps://u:hunter2@mail.example"},
			want: []string{"FORMD_SMTP_URL", "smtp://"}, hidden: []string{"hunter2"}},
		"SMTP URL with an unknown TLS mode": {env: map[string]string{"FORMD_SMTP_URL": "smtp://u:hunter2@mail.example?tls=ssl"},
			want: []string{"FORMD_SMTP_URL", "none, starttls or tls", `"ssl"`}, hidden: []string{"hunter2"}},
		"SMTP URL with a bad port": {env: map[string]string{"FORMD_SMTP_URL": "smtp://u:hunter2@mail.example:0"},
			want: []string{"FORMD_SMTP_URL", "port"}, hidden: []string{"hunter2"}},
		"SMTP URL with a misspelt parameter": {env: map[string]string{"FORMD_SMTP_URL": "smtp://mail.example?tsl=none"},
			want: []string{"FORMD_SMTP_URL", `"tsl"`}},
		"download base URL": {env: map[string]string{"FORMD_BASE_URL": "https://forms.example.com",
			"FORMD_DOWNLOAD_BASE_URL": "https://files.example-usercontent.com/"}},
		"relative download base URL": {env: map[string]string{"FORMD_DOWNLOAD_BASE_URL": "files.example.com"},
			want: []string{"FORMD_DOWNLOAD_BASE_URL", "absolute"}},
		"download base URL with a query": {env: map[string]string{"FORMD_DOWNLOAD_BASE_URL": "https://files.example.com/?a=1"},
			want: []string{"FORMD_DOWNLOAD_BASE_URL", "query"}},
		"download base URL on formd's origin": {env: map[string]string{"FORMD_BASE_URL": "https://forms.example.com",
			"FORMD_DOWNLOAD_BASE_URL": "https://FORMS.example.com/files"}, want: []string{"FORMD_DOWNLOAD_BASE_URL", "another origin"}},
	})
}

// Regression (issue 9, item 1): a sender with a display name made every mail
// fail; it is a valid setting, and a list or a bare name is refused at start.
func TestTheSenderIsOneAddressWithOrWithoutAName(t *testing.T) {
	checkConfigCases(t, map[string]configCase{
		"bare address":        {env: map[string]string{"FORMD_MAIL_FROM": "forms@acme.example"}},
		"display name":        {env: map[string]string{"FORMD_MAIL_FROM": "Acme Forms <forms@acme.example>"}},
		"quoted display name": {env: map[string]string{"FORMD_MAIL_FROM": `"Acme, Inc." <forms@acme.example>`}},
		"a name without address": {env: map[string]string{"FORMD_MAIL_FROM": "Acme Forms"},
			want: []string{"FORMD_MAIL_FROM", "one email address"}},
		"two addresses": {env: map[string]string{"FORMD_MAIL_FROM": "a@acme.example, b@acme.example"},
			want: []string{"FORMD_MAIL_FROM", "one email address"}},
		"empty": {env: map[string]string{"FORMD_MAIL_FROM": " "},
			want: []string{"FORMD_MAIL_FROM"}},
	})
}

func TestNumbersAndRangesAreCheckedAtStart(t *testing.T) {
	checkConfigCases(t, map[string]configCase{
		"limits off":               {env: map[string]string{"FORMD_SUBMIT_RATE": "0", "FORMD_SUBMIT_BURST": "0", "FORMD_AUTH_RATE": "0"}},
		"fractional rate":          {env: map[string]string{"FORMD_SUBMIT_RATE": "0.5", "FORMD_SUBMIT_BURST": "1"}},
		"no delivery workers":      {env: map[string]string{"FORMD_DELIVERY_WORKERS": "0"}},
		"most delivery workers":    {env: map[string]string{"FORMD_DELIVERY_WORKERS": "256"}},
		"negative submit rate":     {env: map[string]string{"FORMD_SUBMIT_RATE": "-1"}, want: []string{"FORMD_SUBMIT_RATE", "at least 0"}},
		"submit rate not a number": {env: map[string]string{"FORMD_SUBMIT_RATE": "fast"}, want: []string{"FORMD_SUBMIT_RATE", "number", `"fast"`}},
		"submit rate NaN":          {env: map[string]string{"FORMD_SUBMIT_RATE": "NaN"}, want: []string{"FORMD_SUBMIT_RATE"}},
		"no burst while on":        {env: map[string]string{"FORMD_SUBMIT_RATE": "5", "FORMD_SUBMIT_BURST": "0"}, want: []string{"FORMD_SUBMIT_BURST", "at least 1"}},
		"burst not whole":          {env: map[string]string{"FORMD_SUBMIT_BURST": "1.5"}, want: []string{"FORMD_SUBMIT_BURST", "whole number"}},
		"negative auth rate":       {env: map[string]string{"FORMD_AUTH_RATE": "-0.1"}, want: []string{"FORMD_AUTH_RATE", "at least 0"}},
		"api write limit off":      {env: map[string]string{"FORMD_API_WRITE_RATE": "0"}},
		"register limit off":       {env: map[string]string{"FORMD_REGISTER_RATE": "0"}},
		"negative register rate":   {env: map[string]string{"FORMD_REGISTER_RATE": "-1"}, want: []string{"FORMD_REGISTER_RATE", "at least 0"}},
		"negative api write rate":  {env: map[string]string{"FORMD_API_WRITE_RATE": "-1"}, want: []string{"FORMD_API_WRITE_RATE", "at least 0"}},
		"too many workers":         {env: map[string]string{"FORMD_DELIVERY_WORKERS": "257"}, want: []string{"FORMD_DELIVERY_WORKERS", "0 to 256"}},
		"memory limit off":         {env: map[string]string{"FORMD_MEMORY_LIMIT_MIB": "0"}},
		"smallest memory limit":    {env: map[string]string{"FORMD_MEMORY_LIMIT_MIB": "32"}},
		"memory limit too small":   {env: map[string]string{"FORMD_MEMORY_LIMIT_MIB": "31"}, want: []string{"FORMD_MEMORY_LIMIT_MIB", "32 to 1048576"}},
		"memory limit too large":   {env: map[string]string{"FORMD_MEMORY_LIMIT_MIB": "1048577"}, want: []string{"FORMD_MEMORY_LIMIT_MIB", "32 to 1048576"}},
		"negative workers":         {env: map[string]string{"FORMD_DELIVERY_WORKERS": "-1"}, want: []string{"FORMD_DELIVERY_WORKERS", "0 to 256"}},
		"senders never give way":   {env: map[string]string{"FORMD_DELIVERY_GIVE_WAY_AT": "0"}},
		"negative give-way":        {env: map[string]string{"FORMD_DELIVERY_GIVE_WAY_AT": "-1"}, want: []string{"FORMD_DELIVERY_GIVE_WAY_AT", "0 (never) to 100000"}},
		"give-way past the bound":  {env: map[string]string{"FORMD_DELIVERY_GIVE_WAY_AT": "100001"}, want: []string{"FORMD_DELIVERY_GIVE_WAY_AT", "0 (never) to 100000"}},
		"no in-flight bound":       {env: map[string]string{"FORMD_SUBMIT_IN_FLIGHT": "0"}},
		"upload budget":            {env: map[string]string{"FORMD_UPLOAD_MIB_IN_FLIGHT": "1024", "FORMD_UPLOAD_MIB_IN_FLIGHT_PER_CLIENT": "25"}},
		"upload budget too small":  {env: map[string]string{"FORMD_UPLOAD_MIB_IN_FLIGHT": "24"}, want: []string{"FORMD_UPLOAD_MIB_IN_FLIGHT", "from 25"}},
		"client share above total": {env: map[string]string{"FORMD_UPLOAD_MIB_IN_FLIGHT": "100", "FORMD_UPLOAD_MIB_IN_FLIGHT_PER_CLIENT": "200"}, want: []string{"FORMD_UPLOAD_MIB_IN_FLIGHT_PER_CLIENT", "(100)"}},
		"no minimum body rate":     {env: map[string]string{"FORMD_MIN_BODY_RATE": "0"}},
		"negative body rate":       {env: map[string]string{"FORMD_MIN_BODY_RATE": "-1"}, want: []string{"FORMD_MIN_BODY_RATE", "at least 0"}},
		"widest in-flight bound":   {env: map[string]string{"FORMD_SUBMIT_IN_FLIGHT": "100000"}},
		"negative in-flight bound": {env: map[string]string{"FORMD_SUBMIT_IN_FLIGHT": "-1"}, want: []string{"FORMD_SUBMIT_IN_FLIGHT", "0 (no bound) to 100000"}},
		"in-flight bound too wide": {env: map[string]string{"FORMD_SUBMIT_IN_FLIGHT": "100001"}, want: []string{"FORMD_SUBMIT_IN_FLIGHT", "to 100000"}},
		"form limit off":           {env: map[string]string{"FORMD_FORM_SUBMIT_RATE": "0", "FORMD_FORM_SUBMIT_BURST": "0"}},
		"negative form rate":       {env: map[string]string{"FORMD_FORM_SUBMIT_RATE": "-2"}, want: []string{"FORMD_FORM_SUBMIT_RATE", "at least 0"}},
		"form rate infinite":       {env: map[string]string{"FORMD_FORM_SUBMIT_RATE": "+Inf"}, want: []string{"FORMD_FORM_SUBMIT_RATE"}},
		"no form burst while on":   {env: map[string]string{"FORMD_FORM_SUBMIT_RATE": "1", "FORMD_FORM_SUBMIT_BURST": "0"}, want: []string{"FORMD_FORM_SUBMIT_BURST", "at least 1"}},
		"quotas":                   {env: map[string]string{"FORMD_QUOTA_FREE": "1", "FORMD_QUOTA_PRO": "2000000000", "FORMD_QUOTA_LIFETIME": "7"}},
		"no free quota":            {env: map[string]string{"FORMD_QUOTA_FREE": "0"}, want: []string{"FORMD_QUOTA_FREE", "from 1 to 2000000000"}},
		"negative pro quota":       {env: map[string]string{"FORMD_QUOTA_PRO": "-5"}, want: []string{"FORMD_QUOTA_PRO", "from 1"}},
		"lifetime quota too large": {env: map[string]string{"FORMD_QUOTA_LIFETIME": "2100000000"}, want: []string{"FORMD_QUOTA_LIFETIME", "2000000000"}},
		"quota not whole":          {env: map[string]string{"FORMD_QUOTA_FREE": "1e3"}, want: []string{"FORMD_QUOTA_FREE", "whole number"}},
		"test inbox retention":     {env: map[string]string{"FORMD_TEST_INBOX_RETENTION": "24h"}},
		"no test inbox retention":  {env: map[string]string{"FORMD_TEST_INBOX_RETENTION": "0s"}, want: []string{"FORMD_TEST_INBOX_RETENTION", "1s to 24h"}},
		"test inbox kept too long": {env: map[string]string{"FORMD_TEST_INBOX_RETENTION": "25h"}, want: []string{"FORMD_TEST_INBOX_RETENTION", "1s to 24h"}},
	})
}

func TestBooleansListsAndEnumsAreCheckedAtStart(t *testing.T) {
	checkConfigCases(t, map[string]configCase{
		"booleans":             {env: map[string]string{"FORMD_DEV": "true", "FORMD_WEBHOOK_ALLOW_PRIVATE": "0"}},
		"proxies and ranges":   {env: map[string]string{"FORMD_TRUSTED_PROXIES": "10.0.0.1, 192.168.0.0/16,::1,fd00::/8"}},
		"log level any case":   {env: map[string]string{"FORMD_LOG_LEVEL": "DEBUG"}},
		"development mode yes": {env: map[string]string{"FORMD_DEV": "yes"}, want: []string{"FORMD_DEV", "true or false", `"yes"`}},
		"allow private maybe":  {env: map[string]string{"FORMD_WEBHOOK_ALLOW_PRIVATE": "maybe"}, want: []string{"FORMD_WEBHOOK_ALLOW_PRIVATE", "true or false"}},
		"proxy host name":      {env: map[string]string{"FORMD_TRUSTED_PROXIES": "10.0.0.1,proxy.internal"}, want: []string{"FORMD_TRUSTED_PROXIES", `"proxy.internal"`}},
		"proxy bad range":      {env: map[string]string{"FORMD_TRUSTED_PROXIES": "10.0.0.0/33"}, want: []string{"FORMD_TRUSTED_PROXIES", `"10.0.0.0/33"`}},
		"unknown log level":    {env: map[string]string{"FORMD_LOG_LEVEL": "verbose"}, want: []string{"FORMD_LOG_LEVEL", "debug, info, warn or error", `"verbose"`}},
	})
}

func TestKeysAreCheckedAtStartWithoutShowingThem(t *testing.T) {
	key, other := strings.Repeat("ab", 32), strings.Repeat("cd", 32)
	checkConfigCases(t, map[string]configCase{
		"a current and an old key": {env: map[string]string{"FORMD_SECRET_KEYS_OLD": other}},
		"short current key": {env: map[string]string{"FORMD_SECRET_KEY": "abcdef-secret"},
			want: []string{"FORMD_SECRET_KEY must be 64 hexadecimal digits"}, hidden: []string{"abcdef-secret"}},
		"bad old key": {env: map[string]string{"FORMD_SECRET_KEYS_OLD": other + ",old-secret"},
			want: []string{"FORMD_SECRET_KEYS_OLD (entry 2) must be 64 hexadecimal digits"}, hidden: []string{"old-secret", other}},
		"a key listed twice": {env: map[string]string{"FORMD_SECRET_KEYS_OLD": key},
			want: []string{"listed twice"}, hidden: []string{key}},
	})
}

func TestTheWebhookCAFileMustBeAReadablePEM(t *testing.T) {
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "ca.txt")
	if err := os.WriteFile(notPEM, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	pemFile := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(pemFile, testCAPEM(t), 0o600); err != nil {
		t.Fatal(err)
	}
	checkConfigCases(t, map[string]configCase{
		"a PEM certificate": {env: map[string]string{"FORMD_WEBHOOK_CA_FILE": pemFile}},
		"missing file": {env: map[string]string{"FORMD_WEBHOOK_CA_FILE": filepath.Join(dir, "nope.pem")},
			want: []string{"FORMD_WEBHOOK_CA_FILE", "cannot read", "nope.pem"}},
		"not PEM": {env: map[string]string{"FORMD_WEBHOOK_CA_FILE": notPEM},
			want: []string{"FORMD_WEBHOOK_CA_FILE", "no PEM certificate"}},
	})
}

func TestUnknownVariablesAreRefusedNamingTheClosestOne(t *testing.T) {
	checkConfigCases(t, map[string]configCase{
		"the test suite's own": {env: map[string]string{"FORMD_TEST_DATABASE_URL": "postgres://x/y", "FORMD_CHAOS_CYCLES": "3"}},
		"a typo": {env: map[string]string{"FORMD_SMTP_ULR": "smtp://u:hunter2@mail.example"},
			want: []string{"FORMD_SMTP_ULR is not a formd setting", "did you mean FORMD_SMTP_URL?"}, hidden: []string{"hunter2"}},
		"a missing letter": {env: map[string]string{"FORMD_SECRET_KEYS_OL": "x"},
			want: []string{"FORMD_SECRET_KEYS_OL", "FORMD_SECRET_KEYS_OLD"}},
		"even when empty": {env: map[string]string{"FORMD_LOGLEVEL": ""},
			want: []string{"FORMD_LOGLEVEL", "FORMD_LOG_LEVEL"}},
	})
}

func TestServeNeedsWritableFolders(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a-file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		cfg  Config
		want string
	}{
		"folders made on demand":   {cfg: Config{DataDir: filepath.Join(dir, "data"), MailSpool: filepath.Join(dir, "data", "mail")}},
		"spool unused with SMTP":   {cfg: Config{DataDir: dir, MailSpool: filepath.Join(file, "mail"), SMTPURL: "smtp://mail.example"}},
		"data folder under a file": {cfg: Config{DataDir: filepath.Join(file, "data"), MailSpool: dir}, want: "FORMD_DATA_DIR: cannot create the folder"},
		"data folder is a file":    {cfg: Config{DataDir: file, MailSpool: dir}, want: "FORMD_DATA_DIR"},
		"spool under a file":       {cfg: Config{DataDir: dir, MailSpool: filepath.Join(file, "mail")}, want: "FORMD_MAIL_SPOOL: cannot create the folder"},
		"spool folder empty":       {cfg: Config{DataDir: dir, MailSpool: ""}, want: "FORMD_MAIL_SPOOL must name a folder"},
	} {
		t.Run(name, func(t *testing.T) {
			err := c.cfg.checkFolders()
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("checkFolders = %v; want it accepted", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("checkFolders = %v; want an error containing %q", err, c.want)
			}
		})
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 { // a-file and data: no check file left behind
		t.Errorf("folder holds %d entries after the checks; want a-file and data", len(entries))
	}
}

// testCAPEM is a self-signed certificate, PEM-encoded.
func testCAPEM(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// Duration settings (none yet in Config; other branches add them) get a
// message saying what a duration looks like.
func TestADurationThatDoesNotParseSaysWhatADurationIs(t *testing.T) {
	t.Setenv("FORMD_LOG_LEVEL", "soon")
	var c struct {
		D time.Duration `env:"FORMD_LOG_LEVEL"`
	}
	err := explainParseError(env.Parse(&c), reflect.TypeOf(c))
	if err == nil || !strings.Contains(err.Error(), "duration such as") || !strings.Contains(err.Error(), `"soon"`) {
		t.Fatalf("explainParseError = %v; want a message saying what a duration looks like", err)
	}
}

func TestFailedPayloadRetention(t *testing.T) {
	checkConfigCases(t, map[string]configCase{
		"a duration":          {env: map[string]string{"FORMD_FAILED_PAYLOAD_RETENTION": "72h"}},
		"zero: shred at once": {env: map[string]string{"FORMD_FAILED_PAYLOAD_RETENTION": "0"}},
		"negative":            {env: map[string]string{"FORMD_FAILED_PAYLOAD_RETENTION": "-1h"}, want: []string{"FORMD_FAILED_PAYLOAD_RETENTION", "negative"}},
		"not a duration":      {env: map[string]string{"FORMD_FAILED_PAYLOAD_RETENTION": "a week"}, want: []string{"FORMD_FAILED_PAYLOAD_RETENTION"}},
	})
	unsetFormdEnv(t)
	t.Setenv("FORMD_SECRET_KEY", strings.Repeat("ab", 32))
	cfg, err := loadConfig()
	if err != nil || cfg.FailedPayloadRetention != 7*24*time.Hour {
		t.Fatalf("default retention %v, %v; want 168h", cfg.FailedPayloadRetention, err)
	}
}

func TestUnreadMessageRetention(t *testing.T) {
	checkConfigCases(t, map[string]configCase{
		"a duration":          {env: map[string]string{"FORMD_UNREAD_MESSAGE_RETENTION": "24h"}},
		"zero: prune at once": {env: map[string]string{"FORMD_UNREAD_MESSAGE_RETENTION": "0"}},
		"negative":            {env: map[string]string{"FORMD_UNREAD_MESSAGE_RETENTION": "-1h"}, want: []string{"FORMD_UNREAD_MESSAGE_RETENTION", "negative"}},
		"not a duration":      {env: map[string]string{"FORMD_UNREAD_MESSAGE_RETENTION": "a week"}, want: []string{"FORMD_UNREAD_MESSAGE_RETENTION"}},
	})
	unsetFormdEnv(t)
	t.Setenv("FORMD_SECRET_KEY", strings.Repeat("ab", 32))
	cfg, err := loadConfig()
	// The default is the one watermillpg documents, a week.
	if err != nil || cfg.UnreadMessageRetention != watermillpg.UnconsumedRetention {
		t.Fatalf("default retention %v, %v; want watermillpg.UnconsumedRetention (%v)", cfg.UnreadMessageRetention, err, watermillpg.UnconsumedRetention)
	}
}

func TestMetricsAddrIsChecked(t *testing.T) {
	checkConfigCases(t, map[string]configCase{
		"off":           {},
		"on loopback":   {env: map[string]string{"FORMD_METRICS_ADDR": "127.0.0.1:9464"}},
		"not host:port": {env: map[string]string{"FORMD_METRICS_ADDR": "9464"}, want: []string{"FORMD_METRICS_ADDR", "host:port"}},
	})
}

func TestIntegrationServicesAreCheckedAtStart(t *testing.T) {
	dir := t.TempDir()
	userCredential := filepath.Join(dir, "user.json")
	if err := os.WriteFile(userCredential, []byte(`{"type":"authorized_user","client_id":"x"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	token := "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw-secret"
	checkConfigCases(t, map[string]configCase{
		"a bot and a local Bot API": {env: map[string]string{"FORMD_TELEGRAM_BOT_TOKEN": token, "FORMD_TELEGRAM_API_URL": "http://127.0.0.1:8081"}},
		"not a bot token": {env: map[string]string{"FORMD_TELEGRAM_BOT_TOKEN": "my-bot-secret"},
			want: []string{"FORMD_TELEGRAM_BOT_TOKEN does not look like a bot token"}, hidden: []string{"my-bot-secret"}},
		"Bot API not a URL": {env: map[string]string{"FORMD_TELEGRAM_API_URL": "api.telegram.org"}, want: []string{"FORMD_TELEGRAM_API_URL", "absolute"}},
		"token URL with a query": {env: map[string]string{"FORMD_GOOGLE_TOKEN_URL": "https://t.example/token?x=1"},
			want: []string{"FORMD_GOOGLE_TOKEN_URL", "without a query"}},
		"Sheets URL not http": {env: map[string]string{"FORMD_GOOGLE_SHEETS_URL": "ftp://sheets.example"}, want: []string{"FORMD_GOOGLE_SHEETS_URL"}},
		"missing credentials": {env: map[string]string{"FORMD_GOOGLE_CREDENTIALS_FILE": filepath.Join(dir, "nope.json")},
			want: []string{"FORMD_GOOGLE_CREDENTIALS_FILE", "nope.json"}},
		"a user's credentials": {env: map[string]string{"FORMD_GOOGLE_CREDENTIALS_FILE": userCredential},
			want: []string{"FORMD_GOOGLE_CREDENTIALS_FILE", "service_account"}},
	})
}

func TestCaptchaVerifyURLsAreCheckedAtStart(t *testing.T) {
	checkConfigCases(t, map[string]configCase{
		"local doubles": {env: map[string]string{"FORMD_RECAPTCHA_VERIFY_URL": "http://127.0.0.1:9000/recaptcha",
			"FORMD_HCAPTCHA_VERIFY_URL": "http://127.0.0.1:9000/hcaptcha", "FORMD_TURNSTILE_VERIFY_URL": "https://gw.example/turnstile"}},
		"reCAPTCHA not a URL": {env: map[string]string{"FORMD_RECAPTCHA_VERIFY_URL": "www.google.com/recaptcha/api/siteverify"},
			want: []string{"FORMD_RECAPTCHA_VERIFY_URL", "absolute"}},
		"hCaptcha with a query": {env: map[string]string{"FORMD_HCAPTCHA_VERIFY_URL": "https://api.hcaptcha.com/siteverify?x=1"},
			want: []string{"FORMD_HCAPTCHA_VERIFY_URL", "without a query"}},
		"Turnstile over ftp": {env: map[string]string{"FORMD_TURNSTILE_VERIFY_URL": "ftp://challenges.example/siteverify"},
			want: []string{"FORMD_TURNSTILE_VERIFY_URL"}},
	})
	unsetFormdEnv(t)
	t.Setenv("FORMD_SECRET_KEY", strings.Repeat("ab", 32))
	cfg, err := loadConfig()
	if err != nil || cfg.RecaptchaVerifyURL != "https://www.google.com/recaptcha/api/siteverify" ||
		cfg.HCaptchaVerifyURL != "https://api.hcaptcha.com/siteverify" ||
		cfg.TurnstileVerifyURL != "https://challenges.cloudflare.com/turnstile/v0/siteverify" {
		t.Fatalf("defaults %q %q %q, %v", cfg.RecaptchaVerifyURL, cfg.HCaptchaVerifyURL, cfg.TurnstileVerifyURL, err)
	}
}

func TestTheClamdAddressIsCheckedAtStart(t *testing.T) {
	checkConfigCases(t, map[string]configCase{
		"no scanner":          {env: map[string]string{}},
		"tcp":                 {env: map[string]string{"FORMD_CLAMD_ADDR": "tcp://127.0.0.1:3310"}},
		"bare host and port":  {env: map[string]string{"FORMD_CLAMD_ADDR": "clamd.internal:3310"}},
		"unix socket":         {env: map[string]string{"FORMD_CLAMD_ADDR": "unix:///run/clamav/clamd.ctl"}},
		"bare socket path":    {env: map[string]string{"FORMD_CLAMD_ADDR": "/run/clamav/clamd.ctl"}},
		"an http URL":         {env: map[string]string{"FORMD_CLAMD_ADDR": "http://clamd:3310"}, want: []string{"FORMD_CLAMD_ADDR", "tcp:// or unix://", `"http://clamd:3310"`}},
		"no port":             {env: map[string]string{"FORMD_CLAMD_ADDR": "tcp://clamd"}, want: []string{"FORMD_CLAMD_ADDR", "host:port"}},
		"port out of range":   {env: map[string]string{"FORMD_CLAMD_ADDR": "clamd:70000"}, want: []string{"FORMD_CLAMD_ADDR", "1 to 65535"}},
		"relative socket":     {env: map[string]string{"FORMD_CLAMD_ADDR": "unix://clamd.sock"}, want: []string{"FORMD_CLAMD_ADDR", "absolute path"}},
		"a password in a URL": {env: map[string]string{"FORMD_CLAMD_ADDR": "tcp://u:s3cret@clamd:3310"}, want: []string{"FORMD_CLAMD_ADDR"}, hidden: []string{"s3cret"}},
	})
}

func TestMemoryLimitDefersToGOMEMLIMITAndTurnsOff(t *testing.T) {
	for name, tc := range map[string]struct {
		goMemLimit string
		mib        int
		want       int64
		set        bool
	}{
		"default 100 MiB":    {mib: 100, want: 100 << 20, set: true},
		"GOMEMLIMIT set":     {goMemLimit: "1GiB", mib: 100},
		"off":                {mib: 0},
		"GOMEMLIMIT and off": {goMemLimit: "off", mib: 0},
		"a larger setting":   {mib: 4096, want: 4096 << 20, set: true},
	} {
		got, set := memoryLimit(tc.goMemLimit, tc.mib)
		if got != tc.want || set != tc.set {
			t.Errorf("%s: memoryLimit(%q, %d) = %d, %v; want %d, %v", name, tc.goMemLimit, tc.mib, got, set, tc.want, tc.set)
		}
	}
}

func TestShutdownTimeout(t *testing.T) {
	checkConfigCases(t, map[string]configCase{
		"a duration":     {env: map[string]string{"FORMD_SHUTDOWN_TIMEOUT": "45s"}},
		"zero":           {env: map[string]string{"FORMD_SHUTDOWN_TIMEOUT": "0"}, want: []string{"FORMD_SHUTDOWN_TIMEOUT", "above 0"}},
		"negative":       {env: map[string]string{"FORMD_SHUTDOWN_TIMEOUT": "-5s"}, want: []string{"FORMD_SHUTDOWN_TIMEOUT", "above 0"}},
		"not a duration": {env: map[string]string{"FORMD_SHUTDOWN_TIMEOUT": "soon"}, want: []string{"FORMD_SHUTDOWN_TIMEOUT"}},
	})
	unsetFormdEnv(t)
	t.Setenv("FORMD_SECRET_KEY", strings.Repeat("ab", 32))
	cfg, err := loadConfig()
	if err != nil || cfg.ShutdownTimeout != 20*time.Second {
		t.Fatalf("default shutdown timeout %v, %v; want 20s", cfg.ShutdownTimeout, err)
	}
}

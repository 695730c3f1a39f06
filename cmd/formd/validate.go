package main

// Every FORMD_* value is checked before formd connects to anything or
// listens: an operator gets one line naming the variable and what is wrong,
// rather than a half-working server that fails on the first mail or link.
// Messages show a value only when it cannot be a secret (never a key, never a
// URL's password).

import (
	"crypto/x509"
	"errors"
	"fmt"
	"math"
	"net"
	netmail "net/mail"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/caarlos0/env/v11"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/formd/formd/adapters/clamav"
	"github.com/formd/formd/adapters/outbound"
	"github.com/formd/formd/adapters/s3"
	"github.com/formd/formd/adapters/secrets"
)

// maxQuota bounds a plan's monthly quota: the count is a PostgreSQL integer.
const maxQuota = 2_000_000_000

// maxDeliveryWorkers bounds FORMD_DELIVERY_WORKERS: each attempt slot keeps
// an SMTP connection open and up to 16 claimed deliveries in memory.
const maxDeliveryWorkers = 256

// maxSubmissionsInFlight bounds FORMD_SUBMIT_IN_FLIGHT: beyond it the bound
// no longer protects memory (a multipart submission may hold megabytes).
const maxSubmissionsInFlight = 100_000

// FORMD_UPLOAD_MIB_IN_FLIGHT bounds: at least one submission's files (25
// MiB, form.MaxTotalFileBytes), at most 1 TiB.
const (
	minUploadMiBInFlight = 25
	maxUploadMiBInFlight = 1 << 20
)

// FORMD_MEMORY_LIMIT_MIB bounds: below 32 MiB the collector would run
// nearly all the time; above 1 TiB is a typo.
const (
	minMemoryLimitMiB = 32
	maxMemoryLimitMiB = 1 << 20
)

// testVariablePrefixes are FORMD_* variables read by the test suite and the
// benchmark, not by formd; `make test` exports them, so they are not typos.
var testVariablePrefixes = []string{"FORMD_TEST_", "FORMD_CHAOS_"}

// knownVariables are the names of Config's env tags.
func knownVariables() []string {
	var names []string
	t := reflect.TypeFor[Config]()
	for i := range t.NumField() {
		if name := t.Field(i).Tag.Get("env"); name != "" {
			names = append(names, name)
		}
	}
	return names
}

// variableOf is the environment variable of a field of the struct type t.
func variableOf(t reflect.Type, field string) string {
	if f, ok := t.FieldByName(field); ok {
		return f.Tag.Get("env")
	}
	return field
}

// checkUnknownVariables refuses FORMD_* names formd does not read: a typo
// (FORMD_SMTP_ULR) would otherwise silently leave the default in place.
func checkUnknownVariables(environ []string) error {
	known := knownVariables()
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "FORMD_") || isTestVariable(name) {
			continue
		}
		found := false
		for _, k := range known {
			found = found || k == name
		}
		if !found {
			return fmt.Errorf("%s is not a formd setting; did you mean %s?", name, closest(name, known))
		}
	}
	return nil
}

func isTestVariable(name string) bool {
	for _, p := range testVariablePrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// closest is the candidate with the smallest edit distance to name.
func closest(name string, candidates []string) string {
	best, bestDist := "", math.MaxInt
	for _, c := range candidates {
		if d := editDistance(name, c); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// explainParseError turns caarlos0/env's error (which names the Go field and
// type of target, the struct parsed) into one line naming the variable. Only numbers and booleans can
// fail to parse, so quoting the value shows no secret.
func explainParseError(err error, target reflect.Type) error {
	var agg env.AggregateError
	if !errors.As(err, &agg) || len(agg.Errors) == 0 {
		return err
	}
	var pe env.ParseError
	if !errors.As(agg.Errors[0], &pe) {
		return agg.Errors[0]
	}
	name := variableOf(target, pe.Name)
	value := os.Getenv(name)
	if pe.Type == reflect.TypeFor[time.Duration]() {
		return fmt.Errorf("%s must be a duration such as 90s, 15m or 168h, not %q", name, value)
	}
	switch pe.Type.Kind() {
	case reflect.Bool:
		return fmt.Errorf("%s must be true or false, not %q", name, value)
	case reflect.Int, reflect.Int64:
		return fmt.Errorf("%s must be a whole number, not %q", name, value)
	case reflect.Float64:
		return fmt.Errorf("%s must be a number, not %q", name, value)
	}
	return fmt.Errorf("%s is invalid: %v", name, pe.Err)
}

// validate checks every value that needs no file system or network. It
// normalises what it accepts (trusted proxies without spaces).
func (c *Config) validate() error {
	checks := []func() error{
		func() error { return checkAddr("FORMD_LISTEN_ADDR", c.ListenAddr, true) },
		func() error { return checkAddr("FORMD_DEBUG_ADDR", c.DebugAddr, false) },
		func() error { return checkAddr("FORMD_METRICS_ADDR", c.MetricsAddr, false) },
		c.checkDatabaseURL,
		c.checkBaseURL,
		c.checkDownloadBaseURL,
		c.checkSMTPURL,
		c.checkMailFrom,
		c.checkNumbers,
		c.checkTrustedProxies,
		c.checkLogLevel,
		c.checkKeys,
		c.checkCAFile,
		c.checkRetention,
		c.checkIntegrationServices,
		c.checkCaptchaURLs,
		c.checkClamdAddr,
		c.checkUploads,
	}
	for _, check := range checks {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// checkAddr accepts host:port with a port number (0 picks a free one) and an
// empty, IP or DNS-name host.
func checkAddr(name, addr string, required bool) error {
	if addr == "" && !required {
		return nil
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%s must be host:port (such as 127.0.0.1:8080), not %q", name, addr)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
		return fmt.Errorf("%s: the port must be a number from 0 to 65535, not %q", name, port)
	}
	if strings.ContainsAny(host, " /?#@") {
		return fmt.Errorf("%s: %q is not a host name or IP address", name, host)
	}
	return nil
}

func (c *Config) checkDatabaseURL() error {
	const name = "FORMD_DATABASE_URL"
	u, err := url.Parse(c.DatabaseURL)
	// url.Parse's and pgx's errors quote the URL, password included: neither
	// is shown.
	// No host is fine: pgx then takes a Unix socket (?host=/var/run/postgresql).
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return fmt.Errorf("%s must be a URL such as postgres://user:password@host:5432/formd?sslmode=disable", name)
	}
	if _, err := pgxpool.ParseConfig(c.DatabaseURL); err != nil {
		return fmt.Errorf("%s (%s) is not a valid PostgreSQL URL: check its port and parameters", name, u.Redacted())
	}
	return nil
}

func (c *Config) checkBaseURL() error {
	return checkLinkBase("FORMD_BASE_URL", c.BaseURL, "forms.example.com")
}

// checkDownloadBaseURL accepts no download origin, or one that is not
// formd's own: the same origin would keep nothing apart.
func (c *Config) checkDownloadBaseURL() error {
	const name = "FORMD_DOWNLOAD_BASE_URL"
	if c.DownloadBaseURL == "" {
		return nil
	}
	if err := checkLinkBase(name, c.DownloadBaseURL, "files.example-usercontent.com"); err != nil {
		return err
	}
	d, _ := url.Parse(c.DownloadBaseURL)
	if b, err := url.Parse(c.BaseURL); err == nil && strings.EqualFold(b.Scheme, d.Scheme) && strings.EqualFold(b.Host, d.Host) {
		return fmt.Errorf("%s must be another origin than FORMD_BASE_URL (a host name of its own routed to formd), not %s", name, d.Redacted())
	}
	return nil
}

// checkLinkBase accepts an absolute http(s) URL that links can be built on.
func checkLinkBase(name, value, exampleHost string) error {
	u, err := url.Parse(value)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%s must be an absolute http:// or https:// URL such as https://%s", name, exampleHost)
	}
	if u.User != nil {
		return fmt.Errorf("%s must not hold a user name or password", name)
	}
	// Links are built by appending paths: a query or fragment would end up
	// in the middle of them.
	if u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.Contains(value, "#") {
		return fmt.Errorf("%s must not have a query (?…) or fragment (#…): %s", name, u.Redacted())
	}
	return nil
}

func (c *Config) checkSMTPURL() error {
	const name = "FORMD_SMTP_URL"
	if c.SMTPURL == "" {
		return nil
	}
	u, err := url.Parse(c.SMTPURL)
	if err != nil || u.Scheme != "smtp" || u.Hostname() == "" {
		return fmt.Errorf("%s must look like smtp://user:password@host:port?tls=none|starttls|tls", name)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("%s: the port must be a number from 1 to 65535, not %q", name, p)
		}
	}
	q := u.Query()
	for k := range q {
		if k != "tls" {
			return fmt.Errorf("%s: unknown parameter %q (only tls=none|starttls|tls)", name, k)
		}
	}
	switch q.Get("tls") {
	case "", "none", "starttls", "tls":
	default:
		return fmt.Errorf("%s: tls must be none, starttls or tls, not %q", name, q.Get("tls"))
	}
	return nil
}

func (c *Config) checkMailFrom() error {
	a, err := netmail.ParseAddress(c.MailFrom)
	if err != nil || !strings.Contains(a.Address, "@") {
		return fmt.Errorf("FORMD_MAIL_FROM must be one email address, bare (forms@example.com) or with a name (Acme Forms <forms@example.com>), not %q", c.MailFrom)
	}
	return nil
}

func (c *Config) checkNumbers() error {
	switch {
	case math.IsNaN(c.SubmitRate) || math.IsInf(c.SubmitRate, 0) || c.SubmitRate < 0:
		return fmt.Errorf("FORMD_SUBMIT_RATE must be a number of at least 0 (0 turns the limit off), not %v", c.SubmitRate)
	case c.SubmitRate > 0 && c.SubmitBurst < 1:
		return fmt.Errorf("FORMD_SUBMIT_BURST must be at least 1 while FORMD_SUBMIT_RATE is on, not %d", c.SubmitBurst)
	case math.IsNaN(c.AuthRate) || math.IsInf(c.AuthRate, 0) || c.AuthRate < 0:
		return fmt.Errorf("FORMD_AUTH_RATE must be a number of at least 0 (0 turns the limit off), not %v", c.AuthRate)
	case math.IsNaN(c.RegisterRate) || math.IsInf(c.RegisterRate, 0) || c.RegisterRate < 0:
		return fmt.Errorf("FORMD_REGISTER_RATE must be a number of at least 0 (0 turns the limit off), not %v", c.RegisterRate)
	case math.IsNaN(c.APIWriteRate) || math.IsInf(c.APIWriteRate, 0) || c.APIWriteRate < 0:
		return fmt.Errorf("FORMD_API_WRITE_RATE must be a number of at least 0 (0 turns the limit off), not %v", c.APIWriteRate)
	case c.MemoryLimitMiB != 0 && (c.MemoryLimitMiB < minMemoryLimitMiB || c.MemoryLimitMiB > maxMemoryLimitMiB):
		return fmt.Errorf("FORMD_MEMORY_LIMIT_MIB must be 0 (off) or from %d to %d, not %d", minMemoryLimitMiB, maxMemoryLimitMiB, c.MemoryLimitMiB)
	case c.SubmissionsInFlight < 0 || c.SubmissionsInFlight > maxSubmissionsInFlight:
		return fmt.Errorf("FORMD_SUBMIT_IN_FLIGHT must be from 0 (no bound) to %d, not %d", maxSubmissionsInFlight, c.SubmissionsInFlight)
	case c.UploadMiBInFlight < minUploadMiBInFlight || c.UploadMiBInFlight > maxUploadMiBInFlight:
		return fmt.Errorf("FORMD_UPLOAD_MIB_IN_FLIGHT must be from %d (one submission's files) to %d, not %d", minUploadMiBInFlight, maxUploadMiBInFlight, c.UploadMiBInFlight)
	case c.UploadMiBInFlightPerClient < minUploadMiBInFlight || c.UploadMiBInFlightPerClient > c.UploadMiBInFlight:
		return fmt.Errorf("FORMD_UPLOAD_MIB_IN_FLIGHT_PER_CLIENT must be from %d (one submission's files) to FORMD_UPLOAD_MIB_IN_FLIGHT (%d), not %d", minUploadMiBInFlight, c.UploadMiBInFlight, c.UploadMiBInFlightPerClient)
	case c.MinBodyRate < 0:
		return fmt.Errorf("FORMD_MIN_BODY_RATE must be at least 0 bytes a second (0 turns it off), not %d", c.MinBodyRate)
	case c.DeliveryWorkers < 0 || c.DeliveryWorkers > maxDeliveryWorkers:
		return fmt.Errorf("FORMD_DELIVERY_WORKERS must be from 0 to %d, not %d", maxDeliveryWorkers, c.DeliveryWorkers)
	case c.DeliveryGiveWayAt < 0 || c.DeliveryGiveWayAt > maxSubmissionsInFlight:
		return fmt.Errorf("FORMD_DELIVERY_GIVE_WAY_AT must be from 0 (never) to %d, not %d", maxSubmissionsInFlight, c.DeliveryGiveWayAt)
	case math.IsNaN(c.FormSubmitRate) || math.IsInf(c.FormSubmitRate, 0) || c.FormSubmitRate < 0:
		return fmt.Errorf("FORMD_FORM_SUBMIT_RATE must be a number of at least 0 (0 turns the limit off), not %v", c.FormSubmitRate)
	case c.FormSubmitRate > 0 && c.FormSubmitBurst < 1:
		return fmt.Errorf("FORMD_FORM_SUBMIT_BURST must be at least 1 while FORMD_FORM_SUBMIT_RATE is on, not %d", c.FormSubmitBurst)
	}
	for _, q := range []struct {
		name  string
		quota int
	}{{"FORMD_QUOTA_FREE", c.QuotaFree}, {"FORMD_QUOTA_PRO", c.QuotaPro}, {"FORMD_QUOTA_LIFETIME", c.QuotaLifetime}} {
		if q.quota < 1 || q.quota > maxQuota {
			return fmt.Errorf("%s must be from 1 to %d submissions a month, not %d (%d means no practical limit)",
				q.name, maxQuota, q.quota, maxQuota)
		}
	}
	return nil
}

func (c *Config) checkTrustedProxies() error {
	var proxies []string
	for _, p := range c.TrustedProxies {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		if _, err := netip.ParseAddr(p); err != nil {
			if _, err := netip.ParsePrefix(p); err != nil {
				return fmt.Errorf("FORMD_TRUSTED_PROXIES: %q is neither an IP address nor a CIDR range (such as 10.0.0.0/8)", p)
			}
		}
		proxies = append(proxies, p)
	}
	c.TrustedProxies = proxies
	return nil
}

func (c *Config) checkLogLevel() error {
	switch strings.ToLower(c.LogLevel) {
	case "debug", "info", "warn", "error":
		return nil
	}
	return fmt.Errorf("FORMD_LOG_LEVEL must be debug, info, warn or error, not %q", c.LogLevel)
}

// checkKeys parses the keys with the keyring's own messages, which name the
// variable and never show a key.
func (c *Config) checkKeys() error {
	var cur secrets.Key
	if strings.TrimSpace(c.SecretKey) != "" {
		k, err := secrets.ParseKey("FORMD_SECRET_KEY", c.SecretKey)
		if err != nil {
			return err
		}
		cur = k
	}
	var olds []secrets.Key
	for i, h := range c.OldSecretKeys {
		if strings.TrimSpace(h) == "" {
			continue
		}
		k, err := secrets.ParseKey(fmt.Sprintf("FORMD_SECRET_KEYS_OLD (entry %d)", i+1), h)
		if err != nil {
			return err
		}
		olds = append(olds, k)
	}
	if cur != nil {
		_, err := secrets.NewKeyring(cur, olds...)
		return err
	}
	return nil
}

func (c *Config) checkCAFile() error {
	const name = "FORMD_WEBHOOK_CA_FILE"
	if c.WebhookCAFile == "" {
		return nil
	}
	pem, err := os.ReadFile(c.WebhookCAFile)
	if err != nil {
		return fmt.Errorf("%s: cannot read %s: %v", name, c.WebhookCAFile, cause(err))
	}
	if !x509.NewCertPool().AppendCertsFromPEM(pem) {
		return fmt.Errorf("%s: %s holds no PEM certificate", name, c.WebhookCAFile)
	}
	return nil
}

// checkIntegrationServices checks the Telegram and Google settings: the
// service addresses are absolute URLs (plain http is the operator's choice,
// for a local gateway or a test), the bot token looks like one, and the
// service account file is one, read now rather than at the first row.
func (c *Config) checkIntegrationServices() error {
	for name, raw := range map[string]string{
		"FORMD_TELEGRAM_API_URL": c.TelegramAPIURL, "FORMD_GOOGLE_TOKEN_URL": c.GoogleTokenURL, "FORMD_GOOGLE_SHEETS_URL": c.GoogleSheetsURL,
	} {
		if raw == "" {
			continue
		}
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
			return fmt.Errorf("%s must be an absolute http:// or https:// URL without a query, such as https://api.example.com", name)
		}
	}
	// A bot token is "<bot id>:<secret>"; never echoed back, even in part.
	if t := c.TelegramBotToken; t != "" && !telegramBotToken.MatchString(t) {
		return errors.New("FORMD_TELEGRAM_BOT_TOKEN does not look like a bot token (digits, a colon, then letters, digits, - and _) as @BotFather gives it")
	}
	if c.GoogleCredentialsFile != "" {
		if _, err := outbound.ReadServiceAccount(c.GoogleCredentialsFile); err != nil {
			return fmt.Errorf("FORMD_GOOGLE_CREDENTIALS_FILE: %s: %v", c.GoogleCredentialsFile, cause(err))
		}
	}
	return nil
}

// checkCaptchaURLs checks the captcha providers' verification addresses:
// each an absolute URL without a query, http allowed (operator
// configuration, such as a local double or gateway). They hold no secret,
// so an error may show them.
func (c *Config) checkCaptchaURLs() error {
	for _, v := range []struct{ name, raw string }{
		{"FORMD_RECAPTCHA_VERIFY_URL", c.RecaptchaVerifyURL}, {"FORMD_HCAPTCHA_VERIFY_URL", c.HCaptchaVerifyURL},
		{"FORMD_TURNSTILE_VERIFY_URL", c.TurnstileVerifyURL},
	} {
		u, err := url.Parse(v.raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
			return fmt.Errorf("%s must be an absolute http:// or https:// URL without a query, such as https://api.hcaptcha.com/siteverify", v.name)
		}
	}
	return nil
}

// checkClamdAddr checks the form of the clamd address only: clamd may start
// after formd, and a scan that cannot reach it fails closed anyway. The
// value is shown unless it holds an @ (a mistyped URL with a password).
func (c *Config) checkClamdAddr() error {
	const name = "FORMD_CLAMD_ADDR"
	if c.ClamdAddr == "" {
		return nil
	}
	if _, _, err := clamav.ParseAddr(c.ClamdAddr); err != nil {
		if strings.Contains(c.ClamdAddr, "@") {
			return fmt.Errorf("%s: %v", name, err)
		}
		return fmt.Errorf("%s: %v, not %q", name, err, c.ClamdAddr)
	}
	return nil
}

// checkUploads checks the upload lifetimes and, when an S3 endpoint is
// set, the bucket's settings (s3.New names the variable at fault and
// never shows the secret key).
func (c *Config) checkUploads() error {
	switch {
	case c.UploadReservationTTL < time.Minute || c.UploadReservationTTL > 24*time.Hour:
		return fmt.Errorf("FORMD_UPLOAD_RESERVATION_TTL must be from 1m to 24h, not %s", c.UploadReservationTTL)
	case c.UploadLinkTTL < time.Second || c.UploadLinkTTL > 7*24*time.Hour:
		return fmt.Errorf("FORMD_UPLOAD_LINK_TTL must be from 1s to 168h (a presigned S3 link lives at most 7 days), not %s", c.UploadLinkTTL)
	case c.UploadSweepInterval < time.Second:
		return fmt.Errorf("FORMD_UPLOAD_SWEEP_INTERVAL must be at least 1s, not %s", c.UploadSweepInterval)
	case c.TestInboxRetention < time.Second || c.TestInboxRetention > 24*time.Hour:
		return fmt.Errorf("FORMD_TEST_INBOX_RETENTION must be from 1s to 24h (test renderings hold raw values), not %s", c.TestInboxRetention)
	}
	if c.S3Endpoint == "" {
		if c.S3Bucket != "" || c.S3AccessKey != "" || c.S3SecretKey != "" {
			return errors.New("FORMD_S3_BUCKET and the S3 credentials are set but FORMD_S3_ENDPOINT is not: set it to use the bucket, or unset them to use the built-in store")
		}
		return nil
	}
	_, err := s3.New(c.s3Config())
	return err
}

// s3Config is the bucket of advanced uploads.
func (c *Config) s3Config() s3.Config {
	return s3.Config{Endpoint: c.S3Endpoint, Bucket: c.S3Bucket, AccessKey: c.S3AccessKey, SecretKey: c.S3SecretKey,
		Region: c.S3Region, Prefix: c.S3Prefix}
}

var telegramBotToken = regexp.MustCompile(`^[0-9]{1,20}:[A-Za-z0-9_-]{20,100}$`)

// checkFolders makes sure the folders `formd serve` writes to exist or can
// be made, and take a file. It is not part of validate: migrate and grant
// write nothing there and should not create them.
func (c Config) checkFolders() error {
	folders := [][2]string{{"FORMD_DATA_DIR", c.DataDir}}
	if c.SMTPURL == "" { // the spool is only written without an SMTP server
		folders = append(folders, [2]string{"FORMD_MAIL_SPOOL", c.MailSpool})
	}
	for _, f := range folders {
		if err := checkWritableFolder(f[0], f[1]); err != nil {
			return err
		}
	}
	return nil
}

func checkWritableFolder(name, dir string) error {
	if strings.TrimSpace(dir) == "" {
		return fmt.Errorf("%s must name a folder", name)
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return fmt.Errorf("%s: cannot create the folder %s: %v", name, dir, cause(err))
	}
	f, err := os.CreateTemp(dir, ".formd-check-*")
	if err != nil {
		return fmt.Errorf("%s: cannot write into the folder %s: %v", name, filepath.Clean(dir), cause(err))
	}
	f.Close()
	return os.Remove(f.Name())
}

// cause is err without the path wrapping (the message names the path already).
func cause(err error) error {
	if u := errors.Unwrap(err); u != nil {
		return u
	}
	return err
}

// checkRetention: how long failed deliveries' payloads are kept for a retry
// by hand (0 shreds them at once, as when every delivery is final), and how
// long unread Watermill messages are (0 prunes them on the next sweep).
func (c *Config) checkRetention() error {
	if c.FailedPayloadRetention < 0 {
		return fmt.Errorf("FORMD_FAILED_PAYLOAD_RETENTION is negative (%s): use a duration such as 168h, or 0 to shred at once", c.FailedPayloadRetention)
	}
	if c.UnreadMessageRetention < 0 {
		return fmt.Errorf("FORMD_UNREAD_MESSAGE_RETENTION is negative (%s): use a duration such as 168h, or 0 to prune unread messages at once", c.UnreadMessageRetention)
	}
	return nil
}

// Package akismet classifies submissions with Akismet's REST API, the
// alternative to rspamd for an operator who would rather not run a
// classifier: a submission's fields, rendered as the notification mail shows
// them, are posted form-encoded to {base}/1.1/comment-check as a
// contact-form comment, which answers "true" (spam) or "false"; the owner's
// judgement is posted to /1.1/submit-spam or /1.1/submit-ham. The API key is
// sent in the request body, never in an address, so no error can show it.
package akismet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/formd/formd/application"
)

// DefaultURL is Akismet's API; tests and proxies set another.
const DefaultURL = "https://rest.akismet.com"

// DefaultTimeout bounds one request when Config.Timeout is zero. Akismet is
// a remote service, so it gets longer than a local rspamd; a submitter still
// waits for it, so a slower one counts as down (the caller fails open).
const DefaultTimeout = 3 * time.Second

// MaxTimeout is the longest timeout New accepts: longer would hold a
// submitter's request (and an intake slot) on a service that is down.
const MaxTimeout = 30 * time.Second

// maxAnswer bounds an answer read: Akismet answers a word or a sentence.
const maxAnswer = 16 << 10

// How an Akismet verdict reads as a SpamVerdict. Akismet gives no score,
// only spam or not, so spam scores spamScore, which is also the required
// score: the verdict is spam exactly when Akismet says so.
const (
	spamScore = 1
	// SymbolSpam names Akismet's "true": spam, to be kept for review.
	SymbolSpam = "AKISMET_SPAM"
	// SymbolDiscard names Akismet's "true" with the discard pro tip:
	// blatant spam, which it advises not even keeping.
	SymbolDiscard = "AKISMET_DISCARD"
)

// The sentence submit-spam and submit-ham answer when they took a message.
const thanks = "Thanks for making the web a better place."

// ErrUnavailable wraps every failure to get a verdict or to teach Akismet,
// so callers can tell "no verdict" apart from a verdict. Its messages never
// hold the submission's values or the API key.
var ErrUnavailable = errors.New("akismet: unavailable")

// Config is how to reach Akismet.
type Config struct {
	// Key is the Akismet API key: a secret, never logged.
	Key string
	// Site is the site the key is registered for (Akismet's "blog"), such
	// as https://example.com.
	Site string
	// URL is the API's base address; empty is DefaultURL.
	URL string
	// Timeout bounds each request, connection included; zero is
	// DefaultTimeout.
	Timeout time.Duration
}

// Classifier implements application.SpamClassifier against Akismet.
type Classifier struct {
	check, submitSpam, submitHam string
	key, site                    string
	timeout                      time.Duration
	client                       *http.Client
}

var _ application.SpamClassifier = (*Classifier)(nil)

// CheckURL checks an absolute http or https address with a host and no
// credentials, query or fragment. Its errors do not repeat the address (the
// caller decides whether it may be shown).
func CheckURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https"):
		return errors.New("it must be an http:// or https:// address, such as https://example.com")
	case u.Host == "" || u.Hostname() == "":
		return errors.New("it has no host")
	case u.User != nil:
		return errors.New("it must not hold credentials")
	case u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(raw, "?") || strings.HasSuffix(raw, "#"):
		return errors.New("it must not have a query or fragment")
	}
	return nil
}

// CheckKey checks an API key's form: printable ASCII without spaces, at
// most 100 characters. Its errors never repeat the key.
func CheckKey(key string) error {
	if key == "" || len(key) > 100 {
		return errors.New("it must be an Akismet API key (1 to 100 characters)")
	}
	for i := 0; i < len(key); i++ {
		if key[i] <= ' ' || key[i] >= 0x7f {
			return errors.New("it must be an Akismet API key: printable characters without spaces")
		}
	}
	return nil
}

// New builds a classifier; it does not connect (nor verify the key: a
// rejected key shows on the first check, which fails open).
func New(c Config) (*Classifier, error) {
	if err := CheckKey(c.Key); err != nil {
		return nil, fmt.Errorf("akismet key: %w", err)
	}
	if err := CheckURL(c.Site); err != nil {
		return nil, fmt.Errorf("akismet site: %w", err)
	}
	if c.URL == "" {
		c.URL = DefaultURL
	}
	if err := CheckURL(c.URL); err != nil {
		return nil, fmt.Errorf("akismet URL: %w", err)
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.Timeout < 0 || c.Timeout > MaxTimeout {
		return nil, fmt.Errorf("akismet timeout: it must be above 0 and at most %s", MaxTimeout)
	}
	base := strings.TrimRight(c.URL, "/") + "/1.1/"
	return &Classifier{
		check: base + "comment-check", submitSpam: base + "submit-spam", submitHam: base + "submit-ham",
		key: c.Key, site: c.Site, timeout: c.Timeout,
		client: &http.Client{
			Timeout: c.Timeout,
			// A redirect is not Akismet's API: following it would post the
			// key elsewhere.
			Transport: &http.Transport{Proxy: http.ProxyFromEnvironment, TLSHandshakeTimeout: c.Timeout,
				MaxIdleConnsPerHost: 16, IdleConnTimeout: 90 * time.Second},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
	}, nil
}

// Classify implements application.SpamClassifier. "false" is ham; "true"
// is spam, added a header, or rejected when Akismet adds its discard pro
// tip. Anything else — no connection, a timeout, an error status, "invalid"
// (a rejected key or request), an answer with Akismet's debug help, any
// other body — is an error wrapping ErrUnavailable.
func (c *Classifier) Classify(ctx context.Context, m application.SpamMessage) (application.SpamVerdict, error) {
	r, err := c.post(ctx, c.check, m)
	if err != nil {
		return application.SpamVerdict{}, fmt.Errorf("%w: checking: %v", ErrUnavailable, err)
	}
	if problem := r.problem(); problem != "" {
		return application.SpamVerdict{}, fmt.Errorf("%w: checking: %s", ErrUnavailable, problem)
	}
	v := application.SpamVerdict{RequiredScore: spamScore, Action: application.SpamActionNone}
	switch r.body {
	case "false":
		return v, nil
	case "true":
		v.Score, v.Spam, v.Action = spamScore, true, application.SpamActionAddHeader
		symbol := SymbolSpam
		if strings.EqualFold(r.header.Get("X-akismet-pro-tip"), "discard") {
			v.Action, symbol = application.SpamActionReject, SymbolDiscard
		}
		v.Symbols = []application.SpamSymbol{{Name: symbol, Score: spamScore}}
		return v, nil
	}
	return application.SpamVerdict{}, fmt.Errorf("%w: checking: %s", ErrUnavailable, r.unexpected())
}

// Learn implements application.SpamClassifier: it tells Akismet that m is
// spam (submit-spam) or not (submit-ham). Anything but Akismet's thanks is
// an error wrapping ErrUnavailable.
func (c *Classifier) Learn(ctx context.Context, m application.SpamMessage, spam bool) error {
	address, class := c.submitHam, "ham"
	if spam {
		address, class = c.submitSpam, "spam"
	}
	r, err := c.post(ctx, address, m)
	if err != nil {
		return fmt.Errorf("%w: submitting %s: %v", ErrUnavailable, class, err)
	}
	if problem := r.problem(); problem != "" {
		return fmt.Errorf("%w: submitting %s: %s", ErrUnavailable, class, problem)
	}
	if r.body != thanks {
		return fmt.Errorf("%w: submitting %s: %s", ErrUnavailable, class, r.unexpected())
	}
	return nil
}

// reply is an answer's status, headers and body (trimmed), read within
// maxAnswer.
type reply struct {
	status int
	header http.Header
	body   string
}

// problem says why an answer is no answer at all: an error status, or
// Akismet's debug help, which it sends when it did not understand the
// request (a rejected key, a missing parameter). Empty when there is none.
func (r reply) problem() string {
	if help := r.header.Get("X-akismet-debug-help"); help != "" {
		return fmt.Sprintf("Akismet says %q", printable(help, 200))
	}
	if r.status != http.StatusOK {
		return fmt.Sprintf("HTTP %d", r.status)
	}
	return ""
}

// unexpected describes a body that is none of the expected words.
func (r reply) unexpected() string {
	if r.body == "invalid" {
		return "Akismet answered invalid (check FORMD_AKISMET_KEY and FORMD_AKISMET_SITE)"
	}
	return fmt.Sprintf("unexpected answer %q", printable(r.body, 60))
}

// printable is s cut to n bytes with control characters as spaces, so a
// stray answer stays one readable log line.
func printable(s string, n int) string {
	if len(s) > n {
		s = s[:n] + "…"
	}
	return strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}

// form is the request Akismet reads for m: the key and site, the
// submitter's IP and address, and the fields as the notification mail
// shows them (application.FieldLines), as a contact-form comment.
func (c *Classifier) form(m application.SpamMessage) url.Values {
	f := url.Values{
		"api_key":         {c.key},
		"blog":            {c.site},
		"user_agent":      {"formd"},
		"comment_type":    {"contact-form"},
		"comment_content": {application.FieldLines(m.Fields)},
		"blog_charset":    {"UTF-8"},
	}
	if ip, err := netip.ParseAddr(m.IP); err == nil {
		f.Set("user_ip", ip.Unmap().String())
	}
	if from := strings.TrimSpace(m.From); from != "" {
		f.Set("comment_author_email", from)
	}
	return f
}

// post sends m's form to address and reads the answer within the timeout
// and maxAnswer.
func (c *Classifier) post(ctx context.Context, address string, m application.SpamMessage) (reply, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, address, strings.NewReader(c.form(m).Encode()))
	if err != nil {
		return reply{}, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
	req.Header.Set("User-Agent", "formd")
	resp, err := c.client.Do(req)
	if err != nil {
		return reply{}, c.explain(ctx, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return reply{}, c.explain(ctx, err)
	}
	if len(body) > maxAnswer {
		return reply{}, fmt.Errorf("the answer is longer than %d bytes", maxAnswer)
	}
	return reply{status: resp.StatusCode, header: resp.Header, body: strings.TrimSpace(string(body))}, nil
}

// explain names a timeout as one; other transport errors say what failed
// without the request's content (the key is in the body, not the address).
func (c *Classifier) explain(ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("no answer within %s", c.timeout)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		if ue.Timeout() {
			return fmt.Errorf("no answer within %s", c.timeout)
		}
		return fmt.Errorf("%s %s: %v", ue.Op, ue.URL, ue.Err)
	}
	return err
}

// Package rspamd classifies submissions with rspamd over its HTTP API: a
// submission, rendered as the notification mail would be, is posted to the
// scanner's /checkv2, which answers with a score, a recommended action and
// the symbols (rules) that matched; the owner's judgement is posted to the
// controller's /learnspam or /learnham with the controller's password. The
// addresses are operator configuration (FORMD_RSPAMD_URL and
// FORMD_RSPAMD_CONTROLLER_URL): rspamd is local or on a private network, so
// plain http is expected.
package rspamd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/formd/formd/application"
)

// Timeout bounds.
const (
	// DefaultTimeout bounds one request when Config.Timeout is zero: a
	// submitter waits for the check, and a local rspamd answers within
	// milliseconds, so a slower one counts as down.
	DefaultTimeout = 2 * time.Second
	// MaxTimeout is the longest timeout New accepts: longer would hold a
	// submitter's request (and an intake slot) on a classifier that is down.
	MaxTimeout = 30 * time.Second
)

// maxAnswer bounds an answer read: a verdict with every symbol rspamd has is
// a few kilobytes.
const maxAnswer = 256 << 10

// ErrUnavailable wraps every failure to get a verdict or to teach rspamd,
// so callers can tell "no verdict" apart from a verdict. Its messages never
// hold the submission's values or the password.
var ErrUnavailable = errors.New("rspamd: unavailable")

// Config is how to reach rspamd.
type Config struct {
	// URL is the scanner (normal worker), such as http://127.0.0.1:11333.
	URL string
	// ControllerURL is the controller worker, such as
	// http://127.0.0.1:11334; empty, Learn fails.
	ControllerURL string
	// Password is the controller's password: a secret, never logged.
	Password string
	// Timeout bounds each request, connection included; zero is
	// DefaultTimeout.
	Timeout time.Duration
}

// Classifier implements application.SpamClassifier against one rspamd.
type Classifier struct {
	check, learnSpam, learnHam string
	password                   string
	timeout                    time.Duration
	client                     *http.Client
}

var _ application.SpamClassifier = (*Classifier)(nil)

// CheckURL checks an rspamd worker's base address: http or https, a host,
// no credentials, query or fragment. Its errors do not repeat the address
// (the caller decides whether it may be shown).
func CheckURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https"):
		return errors.New("it must be an http:// or https:// address, such as http://127.0.0.1:11333")
	case u.Host == "" || u.Hostname() == "":
		return errors.New("it has no host")
	case u.User != nil:
		return errors.New("it must not hold credentials (the controller's password has a variable of its own)")
	case u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(raw, "?") || strings.HasSuffix(raw, "#"):
		return errors.New("it must not have a query or fragment")
	}
	return nil
}

// CheckTimeout checks a request timeout: above zero, at most MaxTimeout.
func CheckTimeout(d time.Duration) error {
	if d <= 0 || d > MaxTimeout {
		return fmt.Errorf("it must be a duration above 0 and at most %s, such as 2s", MaxTimeout)
	}
	return nil
}

// New builds a classifier; it does not connect. A zero Timeout is
// DefaultTimeout.
func New(c Config) (*Classifier, error) {
	if err := CheckURL(c.URL); err != nil {
		return nil, fmt.Errorf("rspamd URL: %w", err)
	}
	if c.ControllerURL != "" {
		if err := CheckURL(c.ControllerURL); err != nil {
			return nil, fmt.Errorf("rspamd controller URL: %w", err)
		}
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if err := CheckTimeout(c.Timeout); err != nil {
		return nil, fmt.Errorf("rspamd timeout: %w", err)
	}
	cl := &Classifier{
		check:    endpoint(c.URL, "checkv2"),
		password: c.Password,
		timeout:  c.Timeout,
		client: &http.Client{
			Timeout: c.Timeout,
			// rspamd is a local service: no proxy, and a redirect is a
			// misconfiguration (following it would post the password
			// elsewhere).
			Transport:     &http.Transport{TLSHandshakeTimeout: c.Timeout, MaxIdleConnsPerHost: 16, IdleConnTimeout: 90 * time.Second},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
	}
	if c.ControllerURL != "" {
		cl.learnSpam, cl.learnHam = endpoint(c.ControllerURL, "learnspam"), endpoint(c.ControllerURL, "learnham")
	}
	return cl, nil
}

func endpoint(base, path string) string {
	return strings.TrimRight(base, "/") + "/" + path
}

// answer is /checkv2's JSON; the pointers tell a missing field from zero.
type answer struct {
	Score         *float64          `json:"score"`
	RequiredScore *float64          `json:"required_score"`
	Action        *string           `json:"action"`
	Symbols       map[string]symbol `json:"symbols"`
}

type symbol struct {
	Score float64 `json:"score"`
}

var actions = []string{application.SpamActionNone, application.SpamActionGreylist, application.SpamActionAddHeader,
	application.SpamActionRewriteSubject, application.SpamActionSoftReject, application.SpamActionReject}

// Classify implements application.SpamClassifier. Anything but rspamd's
// verdict — no connection, a timeout, an error status, an answer that is
// not /checkv2's JSON or names an unknown action — is an error wrapping
// ErrUnavailable.
func (c *Classifier) Classify(ctx context.Context, m application.SpamMessage) (application.SpamVerdict, error) {
	raw, err := c.post(ctx, c.check, m, "")
	if err != nil {
		return application.SpamVerdict{}, fmt.Errorf("%w: checking: %v", ErrUnavailable, err)
	}
	if raw.status != http.StatusOK {
		return application.SpamVerdict{}, fmt.Errorf("%w: checking: %s", ErrUnavailable, raw.describe())
	}
	var a answer
	dec := json.NewDecoder(bytes.NewReader(raw.body))
	if err := dec.Decode(&a); err != nil || dec.More() {
		return application.SpamVerdict{}, fmt.Errorf("%w: checking: the answer is not rspamd's JSON", ErrUnavailable)
	}
	if a.Score == nil || a.RequiredScore == nil || a.Action == nil {
		return application.SpamVerdict{}, fmt.Errorf("%w: checking: the answer has no score, required score or action", ErrUnavailable)
	}
	if !slices.Contains(actions, *a.Action) {
		return application.SpamVerdict{}, fmt.Errorf("%w: checking: unknown action %q", ErrUnavailable, *a.Action)
	}
	v := application.SpamVerdict{Score: *a.Score, RequiredScore: *a.RequiredScore, Action: *a.Action}
	v.Spam = application.IsSpamAction(v.Action) || v.Score >= v.RequiredScore
	for name, s := range a.Symbols {
		v.Symbols = append(v.Symbols, application.SpamSymbol{Name: name, Score: s.Score})
	}
	// The strongest reasons first; equal scores by name, so the order is
	// the same on every call.
	slices.SortFunc(v.Symbols, func(x, y application.SpamSymbol) int {
		if x.Score != y.Score {
			if x.Score > y.Score {
				return -1
			}
			return 1
		}
		return strings.Compare(x.Name, y.Name)
	})
	return v, nil
}

// Learn implements application.SpamClassifier: it teaches the controller
// that m is spam (or not). rspamd's answers that it knew already (208: the
// message was learned before; 204: it is certain of the class already) are
// success. Any other failure is an error wrapping ErrUnavailable.
func (c *Classifier) Learn(ctx context.Context, m application.SpamMessage, spam bool) error {
	address, class := c.learnHam, "ham"
	if spam {
		address, class = c.learnSpam, "spam"
	}
	if address == "" {
		return fmt.Errorf("%w: learning %s: no controller address is configured", ErrUnavailable, class)
	}
	raw, err := c.post(ctx, address, m, c.password)
	if err != nil {
		return fmt.Errorf("%w: learning %s: %v", ErrUnavailable, class, err)
	}
	switch raw.status {
	case http.StatusAlreadyReported, http.StatusNoContent:
		// 208: this message was learned before; 204: rspamd already
		// classifies it in that class with certainty and skips it.
		return nil
	case http.StatusOK:
		var a struct {
			Success *bool `json:"success"`
		}
		if json.Unmarshal(raw.body, &a) != nil || a.Success == nil || !*a.Success {
			return fmt.Errorf("%w: learning %s: the answer does not say it succeeded", ErrUnavailable, class)
		}
		return nil
	case http.StatusUnauthorized, http.StatusForbidden:
		return fmt.Errorf("%w: learning %s: the controller refused the password (FORMD_RSPAMD_PASSWORD)", ErrUnavailable, class)
	}
	return fmt.Errorf("%w: learning %s: %s", ErrUnavailable, class, raw.describe())
}

// reply is an answer's status and body, read within maxAnswer.
type reply struct {
	status int
	body   []byte
}

// describe says what an unexpected answer was: its status and rspamd's
// error text when it sent one.
func (r reply) describe() string {
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(r.body, &e) == nil && e.Error != "" {
		return fmt.Sprintf("HTTP %d: %s", r.status, truncate(e.Error, 200))
	}
	return fmt.Sprintf("HTTP %d", r.status)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// post sends m, rendered, to address with rspamd's protocol headers, and
// reads the answer within the timeout and maxAnswer.
func (c *Classifier) post(ctx context.Context, address string, m application.SpamMessage, password string) (reply, error) {
	msg, err := render(m, time.Now())
	if err != nil {
		return reply{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, address, bytes.NewReader(msg))
	if err != nil {
		return reply{}, err
	}
	req.Header.Set("Content-Type", "message/rfc822")
	if ip, err := netip.ParseAddr(m.IP); err == nil {
		req.Header.Set("IP", ip.Unmap().String())
	}
	if from := envelopeFrom(m.From); from != "" {
		req.Header.Set("From", from)
	}
	if m.RequestID != "" && isToken(m.RequestID) {
		req.Header.Set("Queue-Id", m.RequestID)
	}
	if password != "" {
		req.Header.Set("Password", password)
	}
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
	return reply{status: resp.StatusCode, body: body}, nil
}

// explain names a timeout as one; other transport errors say what failed
// without the request's content.
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

// isToken reports whether s can go in a header as it is: printable ASCII
// without spaces.
func isToken(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

package mail

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"sync"
	"time"

	gomail "github.com/wneessen/go-mail"
	"github.com/wneessen/go-mail/smtp"

	"github.com/formd/formd/application"
)

// DefaultPoolSize is how many idle connections the SMTP mailer keeps: one per
// delivery attempt formd makes at once by default (FORMD_DELIVERY_WORKERS,
// which cmd/formd passes as WithPoolSize), so each sender reuses a
// connection instead of dialling (and greeting, STARTTLS, AUTH) per message.
const DefaultPoolSize = 16

// DefaultIdleTimeout is how long an unused connection stays open: long enough
// to carry a worker from one batch to the next, short enough not to hold a
// server's connection slot (many close idle clients within a minute anyway).
const DefaultIdleTimeout = 5 * time.Second

// sendTimeout bounds a dial and each mail's exchange with the server.
const sendTimeout = 15 * time.Second

// SMTP sends through one SMTP server, reusing connections. It is safe for
// concurrent use: each send holds a connection of its own.
type SMTP struct {
	// client holds the settings (host, TLS, auth) and dials; each connection
	// is a separate *smtp.Client, so concurrent sends never share one.
	client      *gomail.Client
	poolSize    int
	idleTimeout time.Duration
	dial        func(ctx context.Context, network, address string) (net.Conn, error)

	mu     sync.Mutex
	idle   []idleConn // most recently used last
	timer  *time.Timer
	closed bool
}

type idleConn struct {
	c     *smtp.Client
	since time.Time
}

// Option tunes the SMTP mailer's connection pool.
type Option func(*SMTP)

// WithPoolSize keeps at most n idle connections (n < 1 means 1). Sends beyond
// n at once dial connections of their own, closed after use.
func WithPoolSize(n int) Option { return func(s *SMTP) { s.poolSize = max(n, 1) } }

// WithIdleTimeout closes connections unused for d.
func WithIdleTimeout(d time.Duration) Option { return func(s *SMTP) { s.idleTimeout = d } }

// WithDialer makes connections with dial instead of a plain TCP dial
// (through a proxy, say, or counting what crosses them).
func WithDialer(dial func(ctx context.Context, network, address string) (net.Conn, error)) Option {
	return func(s *SMTP) { s.dial = dial }
}

// NewSMTP parses smtp://user:pass@host:port?tls=none|starttls|tls. It does
// not connect: the first Send does.
func NewSMTP(raw string, opts ...Option) (*SMTP, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "smtp" || u.Hostname() == "" {
		return nil, fmt.Errorf("FORMD_SMTP_URL must look like smtp://user:pass@host:port?tls=none|starttls|tls")
	}
	// No NOOP before each message: it would cost a round trip per mail on a
	// connection that is almost always alive; a dead one is found by the send
	// itself, which is then made again on a fresh connection.
	gopts := []gomail.Option{gomail.WithTimeout(sendTimeout), gomail.WithoutNoop()}
	port := 587
	switch u.Query().Get("tls") {
	case "none":
		gopts = append(gopts, gomail.WithTLSPolicy(gomail.NoTLS))
		port = 25
	case "tls":
		gopts = append(gopts, gomail.WithSSL())
		port = 465
	case "", "starttls":
		gopts = append(gopts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	default:
		return nil, fmt.Errorf("FORMD_SMTP_URL: tls must be none, starttls or tls")
	}
	if p := u.Port(); p != "" {
		if port, err = strconv.Atoi(p); err != nil {
			return nil, fmt.Errorf("FORMD_SMTP_URL: bad port")
		}
	}
	gopts = append(gopts, gomail.WithPort(port))
	if u.User != nil {
		pw, _ := u.User.Password()
		gopts = append(gopts, gomail.WithSMTPAuth(gomail.SMTPAuthPlain), gomail.WithUsername(u.User.Username()), gomail.WithPassword(pw))
	}
	s := &SMTP{poolSize: DefaultPoolSize, idleTimeout: DefaultIdleTimeout}
	for _, o := range opts {
		o(s)
	}
	if s.dial != nil {
		gopts = append(gopts, gomail.WithDialContextFunc(s.dial))
	}
	client, err := gomail.NewClient(u.Hostname(), gopts...)
	if err != nil {
		return nil, fmt.Errorf("FORMD_SMTP_URL: %w", err)
	}
	s.client = client
	return s, nil
}

// Send implements application.Mailer. A message that fails on a reused
// connection without an SMTP reply (the server closed it while it was idle,
// say) is sent once more on a fresh connection; a 4xx or 5xx reply is the
// server's answer and is reported as it is.
func (s *SMTP) Send(ctx context.Context, m application.Mail) error {
	msg, err := build(m)
	if err != nil {
		return fmt.Errorf("%w: %v", application.ErrPermanent, err)
	}
	for attempt := 0; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		conn, reused, err := s.get(ctx, attempt > 0)
		if err != nil {
			return err
		}
		usable, err := transact(conn, msg, sendTimeout)
		replied := replyCode(err) != 0
		if usable {
			s.put(conn)
		} else {
			_ = conn.Close()
		}
		if err == nil || replied || usable || !reused || attempt > 0 {
			return classify(err)
		}
	}
}

// get takes the most recently used idle connection (unless fresh is asked
// for), or dials one; reused says which.
func (s *SMTP) get(ctx context.Context, fresh bool) (conn *smtp.Client, reused bool, err error) {
	if !fresh {
		s.mu.Lock()
		for len(s.idle) > 0 {
			ic := s.idle[len(s.idle)-1]
			s.idle = s.idle[:len(s.idle)-1]
			if time.Since(ic.since) < s.idleTimeout {
				s.mu.Unlock()
				return ic.c, true, nil
			}
			go func() { _ = ic.c.Close() }() // expired, and the timer has not run yet
		}
		s.mu.Unlock()
	}
	conn, err = s.client.DialToSMTPClientWithContext(ctx)
	return conn, false, err
}

// put returns a connection to the pool, or closes it when the pool is full
// or closed, and makes sure a timer will close it once idle too long.
func (s *SMTP) put(conn *smtp.Client) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || len(s.idle) >= s.poolSize {
		go func() { _ = conn.Quit() }()
		return
	}
	s.idle = append(s.idle, idleConn{c: conn, since: time.Now()})
	if s.timer == nil {
		s.timer = time.AfterFunc(s.idleTimeout, s.closeIdle)
	}
}

// closeIdle closes connections idle for the idle timeout, and runs again for
// those that remain.
func (s *SMTP) closeIdle() {
	s.mu.Lock()
	var expired []*smtp.Client
	keep := s.idle[:0]
	for _, ic := range s.idle {
		if time.Since(ic.since) >= s.idleTimeout {
			expired = append(expired, ic.c)
		} else {
			keep = append(keep, ic)
		}
	}
	clear(s.idle[len(keep):])
	s.idle = keep
	s.timer = nil
	if len(s.idle) > 0 && !s.closed {
		s.timer = time.AfterFunc(s.idleTimeout-time.Since(s.idle[0].since), s.closeIdle)
	}
	s.mu.Unlock()
	for _, c := range expired {
		_ = c.Quit()
	}
}

// Close says goodbye (QUIT) on every idle connection; sends still running
// close theirs when they finish.
func (s *SMTP) Close() {
	s.mu.Lock()
	idle := s.idle
	s.idle, s.closed = nil, true
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
	s.mu.Unlock()
	for _, ic := range idle {
		_ = ic.c.Quit()
	}
}

// replyCode is the SMTP reply code in err (451, 550…), or 0 when the server
// gave none: a broken connection, a timeout, a failed dial.
func replyCode(err error) int {
	var refused *refusal
	if errors.As(err, &refused) {
		return refused.Code
	}
	var sendErr *gomail.SendError // dialling: the greeting, EHLO, STARTTLS, AUTH
	if errors.As(err, &sendErr) {
		return sendErr.ErrorCode()
	}
	return 0
}

// classify marks a refusal with a 5xx reply (550 no such user, 554
// rejected) as permanent: the server will answer the same mail the same way,
// so the delivery fails at once instead of being retried. A 4xx reply (451
// try again later, 452 mailbox full), a failure to connect and anything
// without a reply code stay transient and are retried on the schedule.
func classify(err error) error {
	if code := replyCode(err); code >= 500 && code < 600 {
		return fmt.Errorf("%w: %v", application.ErrPermanent, err)
	}
	return err
}

package main

import (
	"bufio"
	"io"
	"net"
	"net/mail"
	"strings"
	"sync"
	"time"

	"github.com/emersion/go-smtp"
)

// smtpSink is the real SMTP server the delivery phase's formd sends to: it
// accepts every message on 127.0.0.1 and records, per Message-ID, when the
// message first arrived. formd's Message-ID is "<deliveryId>@formd", so a
// redelivered mail (same id) counts once, at its first arrival.
type smtpSink struct {
	// Addr is host:port to send to.
	Addr string

	srv   *smtp.Server
	mu    sync.Mutex
	first map[string]time.Time // delivery id → first arrival
	dups  int
	other int // messages without a formd Message-ID
}

// startSMTPSink listens on a free loopback port; Close stops it.
func startSMTPSink() (*smtpSink, error) {
	s := &smtpSink{first: map[string]time.Time{}}
	s.srv = smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &sinkSession{s: s}, nil }))
	s.srv.Domain = "localhost"
	// A stuck client must not keep the bench from stopping.
	s.srv.ReadTimeout, s.srv.WriteTimeout = 10*time.Second, 10*time.Second
	s.srv.MaxMessageBytes = 4 << 20
	s.srv.MaxRecipients = 100
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s.Addr = l.Addr().String()
	go func() { _ = s.srv.Serve(l) }()
	return s, nil
}

// formdEnv is the setting that has formd send its mail here.
func (s *smtpSink) formdEnv() string { return "FORMD_SMTP_URL=smtp://" + s.Addr + "?tls=none" }

// Close stops the server and ends its connections.
func (s *smtpSink) Close() error { return s.srv.Close() }

// record notes the arrival of a message with that Message-ID at t.
func (s *smtpSink) record(messageID string, t time.Time) {
	id, ok := strings.CutSuffix(strings.Trim(strings.TrimSpace(messageID), "<>"), "@formd")
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case !ok || id == "":
		s.other++
	case !s.first[id].IsZero():
		s.dups++
	default:
		s.first[id] = t
	}
}

// arrivals returns a copy of the first arrival per delivery id, and the
// duplicate and foreign message counts.
func (s *smtpSink) arrivals() (first map[string]time.Time, dups, other int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	first = make(map[string]time.Time, len(s.first))
	for k, v := range s.first {
		first[k] = v
	}
	return first, s.dups, s.other
}

// counts is how many distinct formd mails (by delivery id) and how many
// other mails have arrived so far.
func (s *smtpSink) counts() (formd, other int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.first), s.other
}

// missing is how many of the accepted delivery ids have no arrival yet.
func (s *smtpSink) missing(accepted map[string]time.Time) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for id := range accepted {
		if s.first[id].IsZero() {
			n++
		}
	}
	return n
}

// sinkSession accepts any envelope; only the message's header matters.
type sinkSession struct{ s *smtpSink }

func (x *sinkSession) Reset()                                    {}
func (x *sinkSession) Logout() error                             { return nil }
func (x *sinkSession) Mail(string, *smtp.MailOptions) error      { return nil }
func (x *sinkSession) Rcpt(to string, _ *smtp.RcptOptions) error { return nil }

// Data reads the whole message and stamps it when the last byte is in: that
// is when the mail has reached the server, just before the 250 goes back.
func (x *sinkSession) Data(r io.Reader) error {
	br := bufio.NewReader(r)
	m, err := mail.ReadMessage(br)
	var id string
	if err == nil {
		id = m.Header.Get("Message-ID")
		_, err = io.Copy(io.Discard, m.Body)
	} else {
		_, _ = io.Copy(io.Discard, br)
	}
	if err != nil {
		return &smtp.SMTPError{Code: 554, Message: "unreadable message: " + err.Error()}
	}
	x.s.record(id, time.Now())
	return nil
}

package mail_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/formd/formd/adapters/mail"
	"github.com/formd/formd/adapters/mail/mailtest"
	"github.com/formd/formd/application"
)

// mailTo is sample() to another recipient under its own delivery id.
func mailTo(i int) application.Mail {
	m := sample()
	m.DeliveryID = fmt.Sprintf("d-%d", i)
	m.MessageID = m.DeliveryID + "@formd.test"
	m.Cc = nil
	return m
}

func pooled(t *testing.T, s *mailtest.Server, opts ...mail.Option) *mail.SMTP {
	t.Helper()
	m, err := mail.NewSMTP("smtp://"+s.Addr+"?tls=none", opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	return m
}

// Issue 9, item 5: a dial (and greeting, STARTTLS, AUTH) per message was the
// mailer's largest cost; consecutive sends share one connection.
func TestSMTPSendsConsecutiveMailsOverOneConnection(t *testing.T) {
	s := server(t)
	m := pooled(t, s)
	for i := range 5 {
		if err := send(t, m, mailTo(i)); err != nil {
			t.Fatalf("send %d: %v", i, err)
		}
	}
	expectReceived(t, s, 5, 1)
}

// The server closed the idle connection (a restart, its own idle timeout):
// the next send notices, reconnects and goes through.
func TestSMTPReconnectsWhenTheServerDroppedTheConnection(t *testing.T) {
	s := server(t)
	m := pooled(t, s)
	if err := send(t, m, mailTo(1)); err != nil {
		t.Fatal(err)
	}
	s.DropConnections()
	waitFor(t, func() bool { return s.Open() == 0 }, "the server closed its connections")
	if err := send(t, m, mailTo(2)); err != nil {
		t.Fatalf("send after the server dropped the connection = %v, want it sent on a new one", err)
	}
	expectReceived(t, s, 2, 2) // the dropped connection and its replacement
}

// A 4xx is reported as transient at once (the delivery schedule retries
// it), not resent on another connection.
func TestSMTPReportsADeferralWithoutResending(t *testing.T) {
	s := server(t)
	m := pooled(t, s)
	if err := send(t, m, mailTo(1)); err != nil {
		t.Fatal(err)
	}
	s.Defer("owner@example.com", 1)
	if err := send(t, m, mailTo(2)); err == nil || errors.Is(err, application.ErrPermanent) {
		t.Fatalf("deferred send = %v, want a transient failure", err)
	}
	if n := s.RcptAttempts("owner@example.com"); n != 2 {
		t.Fatalf("owner@example.com got %d RCPT TO, want 2 (the sent mail and the deferred one, once)", n)
	}
}

// Connections unused for the idle timeout are closed by the client, so a
// quiet formd holds none of the server's connection slots.
func TestSMTPClosesIdleConnections(t *testing.T) {
	s := server(t)
	m := pooled(t, s, mail.WithIdleTimeout(200*time.Millisecond))
	if err := send(t, m, mailTo(1)); err != nil {
		t.Fatal(err)
	}
	if n := s.Open(); n != 1 {
		t.Fatalf("%d connections open after a send, want 1 kept for the next", n)
	}
	waitFor(t, func() bool { return s.Open() == 0 }, "the idle connection is closed")
	if err := send(t, m, mailTo(2)); err != nil {
		t.Fatal(err)
	}
	if n := s.Sessions(); n != 2 {
		t.Fatalf("%d connections, want 2", n)
	}
}

// Run with -race: workers sending at once each get a connection of their own,
// and the pool keeps at most its size of them.
func TestSMTPSendsConcurrentlyOverAPool(t *testing.T) {
	s := server(t)
	m := pooled(t, s, mail.WithPoolSize(3))
	const workers, each = 6, 5
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				errs <- send(t, m, mailTo(w*each+i))
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := len(s.Received()); n != workers*each {
		t.Fatalf("server received %d mails, want %d", n, workers*each)
	}
	if n := s.Sessions(); n >= workers*each {
		t.Fatalf("%d connections for %d mails: connections are not reused", n, workers*each)
	}
	waitFor(t, func() bool { return s.Open() <= 3 }, "at most the pool size of connections stays open")
	m.Close()
	waitFor(t, func() bool { return s.Open() == 0 }, "Close says goodbye on the idle connections")
}

// expectReceived fails unless the server received mails messages over
// sessions connections.
func expectReceived(t *testing.T, s *mailtest.Server, mails, sessions int) {
	t.Helper()
	if n := len(s.Received()); n != mails {
		t.Fatalf("server received %d mails, want %d", n, mails)
	}
	if n := s.Sessions(); n != sessions {
		t.Fatalf("%d connections, want %d", n, sessions)
	}
}

func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

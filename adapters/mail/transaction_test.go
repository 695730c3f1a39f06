package mail_test

import (
	"bufio"
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/formd/formd/adapters/mail"
	"github.com/formd/formd/application"
)

// countingConn counts the writes a client makes on its connection: with
// each one waiting for the server's reply, writes are round trips.
type countingConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c countingConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

// Change 19: a mail is one write of its commands (MAIL, RCPT, DATA, with
// PIPELINING) and one of its content, where go-mail's send took a round
// trip per command and an RSET after each mail.
func TestSMTPSendsAMailInTwoWrites(t *testing.T) {
	s := server(t)
	var writes atomic.Int64
	m := pooled(t, s, mail.WithDialer(func(ctx context.Context, network, address string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, address)
		return countingConn{Conn: c, writes: &writes}, err
	}))
	if err := send(t, m, sample()); err != nil { // the greeting and EHLO, then the mail
		t.Fatal(err)
	}
	before := writes.Load()
	for i := range 4 {
		if err := send(t, m, mailTo(i)); err != nil {
			t.Fatalf("send %d: %v", i, err)
		}
	}
	if got := writes.Load() - before; got != 8 {
		t.Fatalf("4 mails on an open connection took %d writes, want 8 (two a mail)", got)
	}
	expectReceived(t, s, 5, 1)
}

// With the commands pipelined, the server may accept DATA although it
// refused one of two recipients. The mail must then reach nobody (it is
// retried or failed as a whole), so the connection is dropped rather than
// the content sent; the next mail goes out on a new one.
func TestSMTPDeliversNothingWhenOneOfTheRecipientsIsRefused(t *testing.T) {
	s := server(t, "team@example.com")
	m := pooled(t, s)
	err := send(t, m, sample()) // to owner@example.com, cc team@example.com
	if !errors.Is(err, application.ErrPermanent) || !strings.Contains(err.Error(), "550") {
		t.Fatalf("send with a refused cc = %v, want a permanent failure naming the 550", err)
	}
	if got := s.Received(); len(got) != 0 {
		t.Fatalf("server received %d mails, want none: the owner must not get a mail its cc did not", len(got))
	}
	if err := send(t, m, mailTo(2)); err != nil {
		t.Fatal(err)
	}
	expectReceived(t, s, 1, 2) // the connection waiting for content dropped, and a new one
}

// A server that does not offer PIPELINING gets each command after the
// reply to the one before.
func TestSMTPWaitsForEachReplyWhenTheServerDoesNotPipeline(t *testing.T) {
	addr, delivered := startPlainServer(t)
	m, err := mail.NewSMTP("smtp://" + addr + "?tls=none")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	for i := range 3 {
		if err := send(t, m, mailTo(i)); err != nil {
			t.Fatalf("send %d: %v", i, err)
		}
	}
	if n := delivered.Load(); n != 3 {
		t.Fatalf("server took %d mails, want 3", n)
	}
}

// startPlainServer is a minimal SMTP server on loopback that offers no
// PIPELINING and answers 503 to a command that arrives before the reply
// to the one before it. It counts the mails whose content it took.
func startPlainServer(t *testing.T) (string, *atomic.Int64) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var delivered atomic.Int64
	var wg sync.WaitGroup
	t.Cleanup(func() { _ = l.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				servePlain(c, &delivered)
			}()
		}
	}()
	return l.Addr().String(), &delivered
}

func servePlain(c net.Conn, delivered *atomic.Int64) {
	r, w := bufio.NewReader(c), bufio.NewWriter(c)
	reply := func(s string) { _, _ = w.WriteString(s + "\r\n"); _ = w.Flush() }
	reply("220 plain ESMTP")
	inData := false
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		if inData {
			if line == ".\r\n" {
				inData = false
				delivered.Add(1)
				reply("250 2.0.0 queued")
			}
			continue
		}
		if r.Buffered() > 0 {
			reply("503 5.5.1 a command before the last one's reply, without PIPELINING")
			continue
		}
		verb, _, _ := strings.Cut(strings.ToUpper(strings.TrimSpace(line)), " ")
		switch {
		case verb == "EHLO":
			reply("250-plain\r\n250 8BITMIME")
		case strings.HasPrefix(verb, "MAIL"), strings.HasPrefix(verb, "RCPT"), verb == "RSET", verb == "NOOP":
			reply("250 2.0.0 ok")
		case verb == "DATA":
			inData = true
			reply("354 go ahead")
		case verb == "QUIT":
			reply("221 bye")
			return
		default:
			reply("500 5.5.2 what?")
		}
	}
}

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

// A mail to one recipient is one write (MAIL, RCPT and BDAT with the
// content, where the server offers CHUNKING and PIPELINING); a mail with a cc
// is one write of its commands (MAIL, each RCPT, DATA) and one of its content.
// go-mail's own send takes a round trip per command and an RSET after each mail.
func TestSMTPSendsAMailInOneWriteAndOneWithACcInTwo(t *testing.T) {
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
	if got := writes.Load() - before; got != 4 {
		t.Fatalf("4 mails to one recipient on an open connection took %d writes, want 4 (one a mail)", got)
	}
	before = writes.Load()
	if err := send(t, m, sample()); err != nil {
		t.Fatal(err)
	}
	if got := writes.Load() - before; got != 2 {
		t.Fatalf("a mail with a cc took %d writes, want 2", got)
	}
	expectReceived(t, s, 6, 1)
}

// Sent as one chunk, the content is not dot-stuffed and has no dot-writer
// to end its lines in CRLF: it must still arrive exactly, lines that begin
// with a dot and lines that end in a bare line feed included.
func TestSMTPChunkedMailArrivesIntact(t *testing.T) {
	s := server(t)
	m := pooled(t, s)
	want := mailTo(1)
	want.Text = ".a line that begins with a dot\n..two dots\n.\nthe line above is a lone dot\nno final line break"
	if err := send(t, m, want); err != nil {
		t.Fatal(err)
	}
	got := s.Received()
	if len(got) != 1 {
		t.Fatalf("server received %d mails, want 1", len(got))
	}
	text := strings.ReplaceAll(got[0].Text, "\r\n", "\n")
	if strings.TrimSuffix(text, "\n") != want.Text {
		t.Fatalf("text arrived as %q, want %q", text, want.Text)
	}
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

// After a refusal, a mail sent as one chunk leaves its connection: the
// content went with the commands, and formd does not count on the server
// having discarded it. The refusal is final (not resent), and the next
// mail goes out on a new connection.
func TestSMTPDropsTheConnectionAfterARefusedChunk(t *testing.T) {
	s := server(t, "refused@example.com")
	m := pooled(t, s)
	sendARefusedMailBetweenTwo(t, m)
	if n := s.RcptAttempts("refused@example.com"); n != 1 {
		t.Fatalf("the refused recipient was tried %d times, want once", n)
	}
	expectReceived(t, s, 2, 2)
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

// plainServer is a minimal SMTP server on loopback that offers no CHUNKING.
// Without pipelining it offers no PIPELINING either and answers 503 to a
// command that arrives before the reply to the one before it. It refuses
// RCPT TO:<refused@example.com> with a 550, and DATA without a recipient.
type plainServer struct {
	addr       string
	pipelining bool
	// delivered counts the mails whose content it took; sessions the connections.
	delivered, sessions atomic.Int64
}

func startPlainServer(t *testing.T) (string, *atomic.Int64) {
	s := startPlain(t, false)
	return s.addr, &s.delivered
}

func startPlain(t *testing.T, pipelining bool) *plainServer {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &plainServer{addr: l.Addr().String(), pipelining: pipelining}
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
			s.sessions.Add(1)
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				s.serve(c)
			}()
		}
	}()
	return s
}

func (s *plainServer) serve(c net.Conn) {
	r, w := bufio.NewReader(c), bufio.NewWriter(c)
	reply := func(s string) { _, _ = w.WriteString(s + "\r\n"); _ = w.Flush() }
	reply("220 plain ESMTP")
	inData := false
	recipients := 0
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		if inData {
			if line == ".\r\n" {
				inData = false
				s.delivered.Add(1)
				reply("250 2.0.0 queued")
			}
			continue
		}
		if r.Buffered() > 0 && !s.pipelining {
			reply("503 5.5.1 a command before the last one's reply, without PIPELINING")
			continue
		}
		verb, _, _ := strings.Cut(strings.ToUpper(strings.TrimSpace(line)), " ")
		switch {
		case verb == "EHLO" && s.pipelining:
			reply("250-plain\r\n250-PIPELINING\r\n250 8BITMIME")
		case verb == "EHLO":
			reply("250-plain\r\n250 8BITMIME")
		case strings.HasPrefix(verb, "RCPT") && strings.Contains(line, "refused@example.com"):
			reply("550 5.1.1 no such user")
		case strings.HasPrefix(verb, "RCPT"):
			recipients++
			reply("250 2.0.0 ok")
		case strings.HasPrefix(verb, "MAIL"), verb == "NOOP":
			reply("250 2.0.0 ok")
		case verb == "RSET":
			recipients = 0
			reply("250 2.0.0 ok")
		case verb == "DATA" && recipients == 0:
			reply("554 5.5.1 no valid recipients")
		case verb == "DATA":
			inData, recipients = true, 0
			reply("354 go ahead")
		case verb == "QUIT":
			reply("221 bye")
			return
		default:
			reply("500 5.5.2 what?")
		}
	}
}

// Where the content would follow DATA, a refusal before it leaves nothing
// sent that the server could misread: the session is reset and the
// connection carries the next mail. The refusal is not resent.
func TestSMTPKeepsTheConnectionAfterARefusalBeforeTheContent(t *testing.T) {
	s := startPlain(t, true)
	m, err := mail.NewSMTP("smtp://" + s.addr + "?tls=none")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	sendARefusedMailBetweenTwo(t, m)
	if d, n := s.delivered.Load(), s.sessions.Load(); d != 2 || n != 1 {
		t.Fatalf("%d mails over %d connections, want 2 over the one that survived the refusal", d, n)
	}
}

// sendARefusedMailBetweenTwo sends a mail, one to refused@example.com (a
// permanent failure) and another mail, each of the two delivered.
func sendARefusedMailBetweenTwo(t *testing.T, m *mail.SMTP) {
	t.Helper()
	if err := send(t, m, mailTo(1)); err != nil {
		t.Fatal(err)
	}
	bad := mailTo(2)
	bad.To = "refused@example.com"
	if err := send(t, m, bad); !errors.Is(err, application.ErrPermanent) {
		t.Fatalf("send to a refused recipient = %v, want a permanent failure", err)
	}
	if err := send(t, m, mailTo(3)); err != nil {
		t.Fatal(err)
	}
}

package features_test

import (
	"fmt"
	"io"
	"net"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/emersion/go-smtp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/formd/formd/adapters/mail/mailtest"
)

// The harness's mail side: an in-process SMTP server and the inbox it fills.

// Mail is one email received by the test SMTP server: its envelope, and the
// message as adapters/mail/mailtest parses it (Raw, Header, Subject, Text,
// HTML, Attachments).
type Mail struct {
	// From is the envelope sender (MAIL FROM).
	From string
	// To are the envelope recipients (RCPT TO).
	To []string
	mailtest.Message
}

// Attachment is a non-body part of a received email.
type Attachment = mailtest.Attachment

// Inbox records every email the SMTP server receives. Refuse and Defer make
// the server turn a recipient away, as real servers do.
type Inbox struct {
	mu       sync.Mutex
	messages []Mail
	taken    map[int]bool
	refused  map[string]bool
	deferred map[string]int
	// server and addr are the SMTP server filling the inbox (see Stop, Start).
	server *smtp.Server
	addr   string
}

// Refuse has the SMTP server refuse every mail to the envelope recipient to
// at RCPT TO with a permanent 550 5.1.1 (no such user).
func (in *Inbox) Refuse(to string) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.refused[strings.ToLower(to)] = true
}

// Defer has the SMTP server answer the next n RCPT TO commands for to with a
// transient 451 4.7.1 (greylisting), and accept those after them.
func (in *Inbox) Defer(to string, n int) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.deferred[strings.ToLower(to)] = n
}

// rcpt answers a RCPT TO command: nil to accept it.
func (in *Inbox) rcpt(to string) error {
	in.mu.Lock()
	defer in.mu.Unlock()
	to = strings.ToLower(to)
	if in.refused[to] {
		return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "no such user"}
	}
	if in.deferred[to] > 0 {
		in.deferred[to]--
		return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 7, 1}, Message: "greylisted, try again later"}
	}
	return nil
}

// All returns every email received so far, in order.
func (in *Inbox) All() []Mail {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]Mail(nil), in.messages...)
}

// To returns every email received so far for the envelope recipient to, in
// order, whether or not WaitForMail returned it already.
func (in *Inbox) To(to string) []Mail {
	in.mu.Lock()
	defer in.mu.Unlock()
	var out []Mail
	for _, m := range in.messages {
		if m.isFor(to) {
			out = append(out, m)
		}
	}
	return out
}

// WaitForMail waits up to MailTimeout for an email to the envelope recipient
// to that no earlier WaitForMail call returned, and returns the oldest such
// email. Successive calls so return successive emails to one address.
func (in *Inbox) WaitForMail(to string) Mail {
	GinkgoHelper()
	var found Mail
	Eventually(func() bool {
		in.mu.Lock()
		defer in.mu.Unlock()
		for i, m := range in.messages {
			if !in.taken[i] && m.isFor(to) {
				in.taken[i] = true
				found = m
				return true
			}
		}
		return false
	}).WithTimeout(MailTimeout).WithPolling(20*time.Millisecond).Should(BeTrue(), "an email to %s", to)
	return found
}

func (m Mail) isFor(to string) bool {
	for _, r := range m.To {
		if strings.EqualFold(r, to) {
			return true
		}
	}
	return false
}

// A token is "<key id>.<MAC>" (the key id since key rotation, README: Key
// rotation), so the dot belongs to it.
var verifyLink = regexp.MustCompile(`http://[^\s"'<>]+/verify/[A-Za-z0-9_.-]+`)

// Link returns the first http://…/verify/<token> URL in the email's text,
// failing the spec when there is none.
func Link(m Mail) string {
	GinkgoHelper()
	link := verifyLink.FindString(m.Text)
	Expect(link).NotTo(BeEmpty(), "a verification link in %q", m.Text)
	return link
}

func (in *Inbox) add(m Mail) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.messages = append(in.messages, m)
}

// startSMTP starts an SMTP server on 127.0.0.1:0 without authentication or
// TLS, and stops it at the end of the calling node.
func startSMTP() (*Inbox, string) {
	GinkgoHelper()
	inbox := &Inbox{taken: map[int]bool{}, refused: map[string]bool{}, deferred: map[string]int{}}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	inbox.serve(l)
	return inbox, l.Addr().String()
}

// serve runs an SMTP server filling the inbox on l until the node ends or
// Stop is called.
func (in *Inbox) serve(l net.Listener) {
	server := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) {
		return &smtpSession{inbox: in}, nil
	}))
	server.Domain = "localhost"
	server.ReadTimeout = 30 * time.Second
	server.WriteTimeout = 30 * time.Second
	server.MaxMessageBytes = 50 << 20
	server.ErrorLog = ginkgoLogger{}
	in.mu.Lock()
	in.server, in.addr = server, l.Addr().String()
	in.mu.Unlock()
	go func() { _ = server.Serve(l) }()
	DeferCleanup(func() { _ = server.Close() })
}

// Stop takes the SMTP server down: connections to its address are refused
// until Start. The inbox keeps what it received.
func (in *Inbox) Stop() {
	GinkgoHelper()
	in.mu.Lock()
	server := in.server
	in.mu.Unlock()
	Expect(server.Close()).To(Succeed())
}

// Start brings the SMTP server back on the address it had.
func (in *Inbox) Start() {
	GinkgoHelper()
	in.mu.Lock()
	addr := in.addr
	in.mu.Unlock()
	l, err := net.Listen("tcp", addr)
	Expect(err).NotTo(HaveOccurred(), "listen on %s again", addr)
	in.serve(l)
}

// ginkgoLogger sends the SMTP server's log to GinkgoWriter.
type ginkgoLogger struct{}

// Printf implements smtp.Logger.
func (ginkgoLogger) Printf(format string, v ...any) {
	fmt.Fprintf(GinkgoWriter, "smtp: "+format+"\n", v...)
}

// Println implements smtp.Logger.
func (ginkgoLogger) Println(v ...any) {
	fmt.Fprintln(GinkgoWriter, append([]any{"smtp:"}, v...)...)
}

type smtpSession struct {
	inbox *Inbox
	from  string
	to    []string
}

// Reset implements smtp.Session: it forgets the message being received.
func (s *smtpSession) Reset() { s.from, s.to = "", nil }

// Logout implements smtp.Session.
func (s *smtpSession) Logout() error { return nil }

// Mail implements smtp.Session: it records the envelope sender.
func (s *smtpSession) Mail(from string, _ *smtp.MailOptions) error {
	s.from = from
	return nil
}

// Rcpt implements smtp.Session: it records an envelope recipient, unless
// the inbox has it refused or deferred.
func (s *smtpSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	if err := s.inbox.rcpt(to); err != nil {
		return err
	}
	s.to = append(s.to, to)
	return nil
}

// Data implements smtp.Session: it parses the message into the inbox.
func (s *smtpSession) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	m, err := parseMail(s.from, append([]string(nil), s.to...), raw)
	if err != nil {
		fmt.Fprintf(GinkgoWriter, "smtp: unparsable message (%v):\n%s\n", err, raw)
		m = Mail{From: s.from, To: append([]string(nil), s.to...), Message: mailtest.Message{Raw: raw}}
	}
	s.inbox.add(m)
	return nil
}

func parseMail(from string, to []string, raw []byte) (Mail, error) {
	msg, err := mailtest.Parse(raw)
	return Mail{From: from, To: to, Message: msg}, err
}

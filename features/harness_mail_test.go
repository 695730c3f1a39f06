package features_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/emersion/go-smtp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The harness's mail side: an in-process SMTP server and the inbox it fills.

// Mail is one email received by the test SMTP server.
type Mail struct {
	// From is the envelope sender (MAIL FROM).
	From string
	// To are the envelope recipients (RCPT TO).
	To []string
	// Raw is the message as received.
	Raw []byte
	// Header holds the message's headers, undecoded.
	Header mail.Header
	// Subject is the decoded Subject header.
	Subject string
	// Text is the first text/plain part, transfer-decoded.
	Text string
	// HTML is the first text/html part, transfer-decoded.
	HTML string
	// Attachments are the other parts.
	Attachments []Attachment
}

// Attachment is a non-body part of a received email.
type Attachment struct {
	// Filename is the part's file name, if any.
	Filename string
	// ContentType is the part's media type, e.g. image/png.
	ContentType string
	// Data is the transfer-decoded content.
	Data []byte
}

// Inbox records every email the SMTP server receives.
type Inbox struct {
	mu       sync.Mutex
	messages []Mail
	taken    map[int]bool
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

var verifyLink = regexp.MustCompile(`http://[^\s"'<>]+/verify/[A-Za-z0-9_-]+`)

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
	inbox := &Inbox{taken: map[int]bool{}}
	server := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) {
		return &smtpSession{inbox: inbox}, nil
	}))
	server.Domain = "localhost"
	server.ReadTimeout = 30 * time.Second
	server.WriteTimeout = 30 * time.Second
	server.MaxMessageBytes = 50 << 20
	server.ErrorLog = ginkgoLogger{}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	go func() { _ = server.Serve(l) }()
	DeferCleanup(func() { _ = server.Close() })
	return inbox, l.Addr().String()
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

// Rcpt implements smtp.Session: it records an envelope recipient.
func (s *smtpSession) Rcpt(to string, _ *smtp.RcptOptions) error {
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
		m = Mail{From: s.from, To: append([]string(nil), s.to...), Raw: raw}
	}
	s.inbox.add(m)
	return nil
}

func parseMail(from string, to []string, raw []byte) (Mail, error) {
	m := Mail{From: from, To: to, Raw: raw}
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return m, err
	}
	m.Header = msg.Header
	dec := new(mime.WordDecoder)
	if m.Subject, err = dec.DecodeHeader(msg.Header.Get("Subject")); err != nil {
		m.Subject = msg.Header.Get("Subject")
	}
	err = m.readPart(msg.Header.Get("Content-Type"), msg.Header.Get("Content-Transfer-Encoding"),
		msg.Header.Get("Content-Disposition"), msg.Body)
	return m, err
}

// readPart decodes one MIME entity, descending into multipart ones.
func (m *Mail) readPart(contentType, encoding, disposition string, body io.Reader) error {
	if contentType == "" {
		contentType = "text/plain"
	}
	mediaType, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return err
	}
	if strings.HasPrefix(mediaType, "multipart/") {
		mr := multipart.NewReader(body, params["boundary"])
		for {
			p, err := mr.NextPart()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			// multipart.Reader already undoes quoted-printable (and drops the header).
			if err := m.readPart(p.Header.Get("Content-Type"), p.Header.Get("Content-Transfer-Encoding"),
				p.Header.Get("Content-Disposition"), p); err != nil {
				return err
			}
		}
	}
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "quoted-printable":
		body = quotedprintable.NewReader(body)
	case "base64":
		body = base64.NewDecoder(base64.StdEncoding, body) // ignores line breaks
	}
	data, err := io.ReadAll(body)
	if err != nil {
		return err
	}
	_, dparams, _ := mime.ParseMediaType(disposition)
	filename := dparams["filename"]
	if filename == "" {
		filename = params["name"]
	}
	switch {
	case mediaType == "text/plain" && filename == "" && m.Text == "":
		m.Text = string(data)
	case mediaType == "text/html" && filename == "" && m.HTML == "":
		m.HTML = string(data)
	default:
		m.Attachments = append(m.Attachments, Attachment{Filename: filename, ContentType: mediaType, Data: data})
	}
	return nil
}

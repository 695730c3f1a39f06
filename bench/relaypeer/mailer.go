package main

import (
	"net"
	"time"

	"github.com/emersion/go-smtp"
)

// maxIdle bounds the SMTP connections kept open between requests: as many
// as the bench's highest concurrency sends at once, so steady load never
// dials.
const maxIdle = 128

// smtpTimeout bounds a dial and each SMTP command, so a stuck server turns
// into a 502 rather than a request that never ends.
const smtpTimeout = 30 * time.Second

// mailer sends mails to one SMTP server over connections it keeps open.
type mailer struct {
	addr, from, to string
	// idle are open connections between transactions, ready for the next MAIL.
	idle chan *smtp.Client
}

func newMailer(addr, from, to string) *mailer {
	return &mailer{addr: addr, from: from, to: to, idle: make(chan *smtp.Client, maxIdle)}
}

// send hands msg to the server and returns once the server has answered 250
// to it. A connection that fails is closed and the message is tried once
// more on a fresh one: an idle connection the server has closed in the
// meantime fails at its first command, and must not fail the request.
func (m *mailer) send(msg []byte) error {
	c, err := m.take()
	if err == nil {
		if err = m.transact(c, msg); err == nil {
			m.give(c)
			return nil
		}
		_ = c.Close()
	}
	if c, err = m.dial(); err != nil {
		return err
	}
	if err := m.transact(c, msg); err != nil {
		_ = c.Close()
		return err
	}
	m.give(c)
	return nil
}

// transact runs one mail transaction. After DATA's 250 the session is
// ready for the next MAIL, so the connection can be reused as it is.
func (m *mailer) transact(c *smtp.Client, msg []byte) error {
	if err := c.Mail(m.from, nil); err != nil {
		return err
	}
	if err := c.Rcpt(m.to, nil); err != nil {
		return err
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(msg); err != nil {
		_ = w.Close()
		return err
	}
	return w.Close()
}

// take is an idle connection, or a new one when there is none.
func (m *mailer) take() (*smtp.Client, error) {
	select {
	case c := <-m.idle:
		return c, nil
	default:
		return m.dial()
	}
}

// give keeps c for the next transaction, or closes it when enough are idle.
func (m *mailer) give(c *smtp.Client) {
	select {
	case m.idle <- c:
	default:
		_ = c.Quit()
	}
}

func (m *mailer) dial() (*smtp.Client, error) {
	conn, err := net.DialTimeout("tcp", m.addr, smtpTimeout)
	if err != nil {
		return nil, err
	}
	c := smtp.NewClient(conn)
	c.CommandTimeout, c.SubmissionTimeout = smtpTimeout, smtpTimeout
	if err := c.Hello("localhost"); err != nil {
		_ = c.Close()
		return nil, err
	}
	return c, nil
}

// Close ends the idle connections with QUIT.
func (m *mailer) Close() {
	for {
		select {
		case c := <-m.idle:
			if err := c.Quit(); err != nil {
				_ = c.Close()
			}
		default:
			return
		}
	}
}

package mail

import (
	"errors"
	"fmt"
	"net/textproto"
	"strings"
	"time"

	gomail "github.com/wneessen/go-mail"
	"github.com/wneessen/go-mail/smtp"
)

// refusal is an SMTP server's negative reply to a command of a mail
// transaction: 550 at RCPT TO, 451 at MAIL FROM, 554 after the content…
type refusal struct {
	// Command is the verb the server refused (MAIL, RCPT, DATA) or "content"
	// for its reply to the message itself.
	Command string
	Code    int
	Text    string
}

func (r *refusal) Error() string {
	return fmt.Sprintf("SMTP server refused %s: %d %s", r.Command, r.Code, r.Text)
}

// transact sends msg on conn as one mail transaction (RFC 5321 §3.3) in as
// few round trips as the server allows, since each is a write and a read
// (and, on loopback, the server's work on this process's CPU):
//
//   - one, to a single recipient where the server offers CHUNKING (RFC 3030)
//     and PIPELINING: MAIL FROM, RCPT TO and BDAT with the whole content in
//     one write (transactChunked);
//   - two where it offers PIPELINING (RFC 2920): MAIL FROM, each RCPT TO and
//     DATA in one write, then the content;
//   - a round trip per command otherwise.
//
// The reply to the content ends the transaction, so no RSET follows a
// delivered mail.
//
// usable says whether conn can carry the next mail: after a refusal
// before the content the session is reset (RSET), but when the server
// accepted DATA although it refused the sender or a recipient, the only way
// not to deliver an incomplete mail is to drop the connection.
func transact(conn *smtp.Client, msg *gomail.Msg, timeout time.Duration) (usable bool, err error) {
	from, err := msg.GetSender(false)
	if err != nil {
		return true, err
	}
	rcpts, err := msg.GetRecipients()
	if err != nil {
		return true, err
	}
	mailFrom := "MAIL FROM:" + from
	if ok, _ := conn.Extension("8BITMIME"); ok {
		mailFrom += " BODY=8BITMIME"
	}
	if ok, _ := conn.Extension("SMTPUTF8"); ok {
		mailFrom += " SMTPUTF8"
	}
	commands := []string{mailFrom}
	for _, r := range rcpts {
		commands = append(commands, "RCPT TO:"+r)
	}
	for _, c := range commands {
		if strings.ContainsAny(c, "\r\n") {
			return true, errors.New("smtp: a line break in an address")
		}
	}
	if err := conn.UpdateDeadline(timeout); err != nil {
		return false, err
	}
	if len(rcpts) == 1 && offers(conn, "CHUNKING") && offers(conn, "PIPELINING") {
		return transactChunked(conn, commands, msg)
	}
	commands = append(commands, "DATA")
	dataAccepted, err := sendCommands(conn, commands)
	if err != nil {
		var refused *refusal
		if !errors.As(err, &refused) || dataAccepted {
			return false, err
		}
		if resetErr := exchange(conn, "RSET", 250); resetErr != nil {
			return false, err
		}
		return true, err
	}
	dot := conn.Text.DotWriter()
	if _, err := msg.WriteTo(dot); err != nil {
		return false, err
	}
	if err := dot.Close(); err != nil {
		return false, err
	}
	if _, _, err := conn.Text.ReadResponse(250); err != nil {
		broken, err := refusalOf("content", err)
		return !broken, err
	}
	return true, nil
}

// sendCommands sends the transaction's commands, all in one write when the
// server offers PIPELINING, and reads every reply. The first refusal is the
// error; dataAccepted says the server went on to wait for content.
func sendCommands(conn *smtp.Client, commands []string) (dataAccepted bool, err error) {
	if !offers(conn, "PIPELINING") {
		for _, c := range commands {
			if err := exchange(conn, c, expectedReply(c)); err != nil {
				return false, err
			}
		}
		return true, nil
	}
	w := conn.Text.W
	for _, c := range commands {
		_, _ = w.WriteString(c)
		_, _ = w.WriteString("\r\n")
	}
	if err := w.Flush(); err != nil {
		return false, err
	}
	var first error
	for _, c := range commands {
		_, _, err := conn.Text.ReadResponse(expectedReply(c))
		if err == nil {
			dataAccepted = c == "DATA"
			continue
		}
		broken, err := refusalOf(verb(c), err)
		if broken {
			return false, err
		}
		if first == nil {
			first = err
		}
	}
	return dataAccepted, first
}

// exchange sends one command and reads its reply: a reply other than
// expect is a refusal.
func exchange(conn *smtp.Client, command string, expect int) error {
	if err := conn.Text.PrintfLine("%s", command); err != nil {
		return err
	}
	if _, _, err := conn.Text.ReadResponse(expect); err != nil {
		_, err = refusalOf(verb(command), err)
		return err
	}
	return nil
}

// refusalOf turns a reply other than the expected one into a refusal;
// broken says there was no reply at all (the connection failed).
func refusalOf(command string, err error) (broken bool, _ error) {
	var reply *textproto.Error
	if errors.As(err, &reply) {
		return false, &refusal{Command: command, Code: reply.Code, Text: reply.Msg}
	}
	return true, err
}

// expectedReply is the reply class a command succeeds with (textproto's
// prefix match: 25 is 250 or 251).
func expectedReply(command string) int {
	switch verb(command) {
	case "DATA":
		return 354
	case "RCPT":
		return 25
	}
	return 250
}

// verb is a command's first word: MAIL, RCPT, DATA, RSET.
func verb(command string) string {
	v, _, _ := strings.Cut(command, " ")
	return v
}

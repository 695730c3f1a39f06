package rspamd

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	netmail "net/mail"
	"strings"
	"time"

	gomail "github.com/wneessen/go-mail"

	"github.com/formd/formd/application"
)

// The addresses a rendered message uses where the submission has none of
// its own, under the reserved .invalid domain: rspamd scores a missing From,
// To or Message-ID as spam signs, which a form submission without an email
// field is not.
const (
	anonymousSender = "submitter@formd.invalid"
	recipientDomain = "forms.formd.invalid"
	messageIDDomain = "formd.invalid"
)

// render builds the RFC 5322 message rspamd reads: the notification mail
// as the recipient would get it, From the submitter's address, Subject, a
// Date and a Message-ID, and a text body with every field "name: value"
// (application.FieldLines, as the notification shows them).
func render(m application.SpamMessage, now time.Time) ([]byte, error) {
	msg := gomail.NewMsg(gomail.WithNoDefaultUserAgent())
	if err := msg.From(senderAddress(m.From)); err != nil {
		return nil, fmt.Errorf("rendering the message: from: %w", err)
	}
	if err := msg.To(localPart(m.FormID, "form") + "@" + recipientDomain); err != nil {
		return nil, fmt.Errorf("rendering the message: to: %w", err)
	}
	msg.Subject(strings.Map(noControl, m.Subject))
	msg.SetDateWithValue(now)
	msg.SetMessageIDWithValue(localPart(m.RequestID, randomID()) + "@" + messageIDDomain)
	msg.SetBodyString(gomail.TypeTextPlain, application.FieldLines(m.Fields))
	var b bytes.Buffer
	if _, err := msg.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("rendering the message: %w", err)
	}
	return b.Bytes(), nil
}

// senderAddress is the submitter's address when it is one, bare; else the
// anonymous sender.
func senderAddress(from string) string {
	if a := envelopeFrom(from); a != "" {
		return a
	}
	return anonymousSender
}

// envelopeFrom is the bare address of a submitter's email field, or ""
// when it is not one address.
func envelopeFrom(from string) string {
	from = strings.TrimSpace(from)
	if from == "" || strings.ContainsFunc(from, func(r rune) bool { return noControl(r) != r }) {
		return ""
	}
	a, err := netmail.ParseAddress(from)
	if err != nil || !strings.Contains(a.Address, "@") {
		return ""
	}
	return a.Address
}

// localPart is id when it is safe as an address's local part (letters,
// digits, dot, dash, underscore), else fallback.
func localPart(id, fallback string) string {
	if id == "" || len(id) > 64 || strings.HasPrefix(id, ".") || strings.HasSuffix(id, ".") || strings.Contains(id, "..") {
		return fallback
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_') {
			return fallback
		}
	}
	return id
}

// noControl turns control characters into spaces, so a subject stays one
// header line.
func noControl(r rune) rune {
	if r < ' ' || r == 0x7f {
		return ' '
	}
	return r
}

func randomID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Package mail sends email: over SMTP with go-mail, or, when no SMTP server is
// configured, into a spool folder as .eml files for development.
package mail

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	netmail "net/mail"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	gomail "github.com/wneessen/go-mail"

	"github.com/formd/formd/application"
)

// build turns an application mail into a go-mail message: its text, with
// its HTML body as an alternative when it has one, and its attachments
// around them (multipart/mixed). The Message-ID is
// the delivery id, so a retried send is recognisable as the same mail.
func build(m application.Mail) (*gomail.Msg, error) {
	msg := gomail.NewMsg()
	from, err := sender(m.FromName, m.From)
	if err != nil {
		return nil, fmt.Errorf("from: %w", err)
	}
	msg.FromMailAddress(from)
	if err := msg.To(m.To); err != nil {
		return nil, fmt.Errorf("to: %w", err)
	}
	if len(m.Cc) > 0 {
		if err := msg.Cc(m.Cc...); err != nil {
			return nil, fmt.Errorf("cc: %w", err)
		}
	}
	if m.ReplyTo != "" {
		if err := msg.ReplyTo(m.ReplyTo); err != nil {
			return nil, fmt.Errorf("reply-to: %w", err)
		}
	}
	msg.Subject(m.Subject)
	msg.SetMessageIDWithValue(m.MessageID)
	msg.SetDate()
	msg.SetBodyString(gomail.TypeTextPlain, m.Text)
	if m.HTML != "" {
		// multipart/alternative, the text part first: a reader shows the
		// last part it can, and the text stays for those without HTML.
		msg.AddAlternativeString(gomail.TypeTextHTML, m.HTML)
	}
	for _, a := range m.Attachments {
		err := msg.AttachReader(attachmentName(a.Name), bytes.NewReader(a.Content),
			gomail.WithFileContentType(gomail.ContentType(cmp.Or(a.Type, "application/octet-stream"))))
		if err != nil {
			return nil, fmt.Errorf("attachment: %w", err)
		}
	}
	return msg, nil
}

// attachmentName is a submitter's file name made safe for a MIME header:
// no control characters and no path, so a mail client saves it where the
// reader chooses.
func attachmentName(name string) string {
	name = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '/' || r == '\\' || r == '"' {
			return '_'
		}
		return r
	}, name)
	if name = strings.TrimSpace(name); name == "" || name == "." || name == ".." {
		return "attachment"
	}
	return name
}

// sender is the From address: the configured sender (a bare address or
// "Name <address>") under the display name name, or under its own name when
// name is empty. The name is never pasted into the header: net/mail quotes it
// and encodes it (RFC 2047) as needed, so any text a submitter or a form sets
// stays a display name and cannot become another address.
func sender(name, from string) (*netmail.Address, error) {
	addr, err := netmail.ParseAddress(from)
	if err != nil {
		return nil, err
	}
	name = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, name)
	if name = strings.TrimSpace(name); name != "" {
		addr.Name = name
	}
	// net/mail encodes a non-ASCII name as an RFC 2047 word, choosing base64
	// when the name holds specials, but it misses the backslash, which it
	// leaves bare in a Q-encoded word that strict readers (net/mail itself
	// among them) refuse. Such a name gets the full-width reverse solidus.
	if !isASCII(addr.Name) {
		addr.Name = strings.ReplaceAll(addr.Name, `\`, "\uFF3C")
	}
	return addr, nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// Spool writes each mail as <delivery id>.eml into a folder.
type Spool struct{ dir string }

// NewSpool makes the folder if needed.
func NewSpool(dir string) (*Spool, error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, err
	}
	return &Spool{dir: dir}, nil
}

// Send implements application.Mailer; writing the same delivery twice overwrites it.
func (s *Spool) Send(_ context.Context, m application.Mail) error {
	msg, err := build(m)
	if err != nil {
		return fmt.Errorf("%w: %v", application.ErrPermanent, err)
	}
	tmp, err := os.CreateTemp(s.dir, ".mail-*")
	if err != nil {
		return err
	}
	if _, err := msg.WriteTo(tmp); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(s.dir, filepath.Base(m.DeliveryID)+".eml"))
}

// Package eml decodes a raw email: the development spool reads its mails
// back with it, tests and the benchmark through mailtest. It needs nothing
// but the standard library, so mailtest pulls in no sending code.
package eml

import (
	"bytes"
	"encoding/base64"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"strings"
)

// Message is a parsed email.
type Message struct {
	// Raw is the message as written or received.
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

// Attachment is a non-body part of an email.
type Attachment struct {
	Filename    string
	ContentType string
	Data        []byte
}

// To is the addresses of the To header.
func (m Message) To() []string {
	list, err := m.Header.AddressList("To")
	if err != nil {
		return nil
	}
	out := make([]string, len(list))
	for i, a := range list {
		out[i] = a.Address
	}
	return out
}

// Parse decodes a raw message: headers, subject, text and HTML bodies and
// attachments, undoing quoted-printable and base64.
func Parse(raw []byte) (Message, error) {
	m := Message{Raw: raw}
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return m, err
	}
	m.Header = msg.Header
	if m.Subject, err = new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject")); err != nil {
		m.Subject = msg.Header.Get("Subject")
	}
	err = m.readPart(msg.Header.Get("Content-Type"), msg.Header.Get("Content-Transfer-Encoding"),
		msg.Header.Get("Content-Disposition"), msg.Body)
	return m, err
}

// readPart decodes one MIME entity, descending into multipart ones.
func (m *Message) readPart(contentType, encoding, disposition string, body io.Reader) error {
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

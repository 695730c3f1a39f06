// Package mailtest reads what formd's mail adapter wrote, for tests and the
// benchmark: Parse decodes a raw message, Server is an in-process SMTP server
// on loopback that keeps what it receives. (The acceptance suite keeps its own
// harness, which also waits for mail with Gomega.)
package mailtest

import "github.com/formd/formd/adapters/mail/eml"

// Message is a parsed email (eml.Message).
type Message = eml.Message

// Attachment is a non-body part of an email (eml.Attachment).
type Attachment = eml.Attachment

// Parse decodes a raw message: headers, subject, text and HTML bodies and
// attachments, undoing quoted-printable and base64.
func Parse(raw []byte) (Message, error) { return eml.Parse(raw) }

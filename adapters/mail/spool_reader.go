package mail

import (
	"context"
	"encoding/base64"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/formd/formd/application"
)

// Messages implements application.SpooledMail: the newest limit .eml files
// of the spool, each with its recipients, subject, date and plain text.
func (s *Spool) Messages(_ context.Context, limit int) ([]application.SpooledMessage, error) {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, err
	}
	type file struct {
		name string
		mod  int64
	}
	var files []file
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".eml") {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		files = append(files, file{e.Name(), info.ModTime().UnixNano()})
	}
	sort.Slice(files, func(i, j int) bool { return files[i].mod > files[j].mod })
	var out []application.SpooledMessage
	for _, f := range files {
		if len(out) == limit {
			break
		}
		m, err := readSpooled(filepath.Join(s.dir, f.name))
		if err != nil {
			continue // a file being replaced, or not a mail: skip it
		}
		m.Name = f.name
		out = append(out, m)
	}
	return out, nil
}

// readSpooled parses one .eml file.
func readSpooled(path string) (application.SpooledMessage, error) {
	f, err := os.Open(path)
	if err != nil {
		return application.SpooledMessage{}, err
	}
	defer f.Close()
	msg, err := mail.ReadMessage(f)
	if err != nil {
		return application.SpooledMessage{}, err
	}
	var dec mime.WordDecoder
	subject, err := dec.DecodeHeader(msg.Header.Get("Subject"))
	if err != nil {
		subject = msg.Header.Get("Subject")
	}
	out := application.SpooledMessage{To: msg.Header.Get("To"), Subject: subject}
	if to, err := msg.Header.AddressList("To"); err == nil {
		addresses := make([]string, len(to))
		for i, a := range to {
			addresses[i] = a.Address
		}
		out.To = strings.Join(addresses, ", ")
	}
	if date, err := msg.Header.Date(); err == nil {
		out.Date = date
	}
	out.Text, err = plainText(msg.Header.Get("Content-Type"), msg.Header.Get("Content-Transfer-Encoding"), msg.Body)
	return out, err
}

// plainText is the first text/plain part of a body, decoded.
func plainText(contentType, encoding string, body io.Reader) (string, error) {
	mediaType, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		mediaType = "text/plain"
	}
	if strings.HasPrefix(mediaType, "multipart/") {
		parts := multipart.NewReader(body, params["boundary"])
		for {
			p, err := parts.NextRawPart()
			if err != nil {
				return "", nil // no text part
			}
			if text, err := plainText(p.Header.Get("Content-Type"), p.Header.Get("Content-Transfer-Encoding"), p); err != nil || text != "" {
				return text, err
			}
		}
	}
	if mediaType != "text/plain" {
		return "", nil
	}
	switch strings.ToLower(encoding) {
	case "quoted-printable":
		body = quotedprintable.NewReader(body)
	case "base64":
		body = base64.NewDecoder(base64.StdEncoding, body)
	}
	raw, err := io.ReadAll(body)
	return strings.ReplaceAll(string(raw), "\r\n", "\n"), err
}

package mail

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/formd/formd/adapters/mail/eml"
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
	raw, err := os.ReadFile(path)
	if err != nil {
		return application.SpooledMessage{}, err
	}
	msg, err := eml.Parse(raw)
	if err != nil {
		return application.SpooledMessage{}, err
	}
	out := application.SpooledMessage{To: msg.Header.Get("To"), Subject: msg.Subject,
		Text: strings.ReplaceAll(msg.Text, "\r\n", "\n")}
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
	return out, nil
}

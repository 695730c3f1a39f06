package application

import (
	_ "embed"
	"strconv"
	"strings"
	"unicode"

	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/form"
)

// defaultNotificationHTML is the HTML part of a notification whose form
// has no HTML template of its own: the form's name, a table of the fields
// and files, the request id, the spam verdict of a tagged submission and
// the link that marks it as spam.
//
//go:embed notification.html
var defaultNotificationHTML string

// maxSubjectRunes bounds a rendered subject, which is one header line.
const maxSubjectRunes = 500

// templateData is what a mail template sees (docs/templates.md): each
// field's first value by name, the fields in submitted order, the files
// uploaded in advance, and the submission's own names, which win over a
// field of the same name (the loop still shows that field). Only strings,
// lists, maps and booleans: nothing a template could call.
func templateData(q delivery.Queued, p Payload, links map[string]string, spamLink string) map[string]any {
	data := make(map[string]any, len(p.Fields)+8)
	fields := make([]any, 0, len(p.Fields))
	for _, f := range p.Fields {
		if _, seen := data[f.Name]; !seen {
			data[f.Name] = f.Value
		}
		fields = append(fields, map[string]any{"name": f.Name, "value": f.Value})
	}
	files := []any{}
	for _, a := range p.Attachments {
		if url, ok := links[a.Key]; ok {
			files = append(files, map[string]any{"field": a.Field, "name": safeObjectName(a.Name), "type": a.Type,
				"size": strconv.FormatInt(a.Size, 10), "url": url, "expires": a.LinksExpire.UTC().Format("2 January 2006 15:04 MST")})
		}
	}
	var spam any = false
	if p.Spam != nil {
		spam = map[string]any{"score": strconv.FormatFloat(p.Spam.Score, 'f', -1, 64), "reasons": strings.Join(p.Spam.Reasons, ", ")}
	}
	data["fields"], data["files"], data["spam"], data["spamLink"] = fields, files, spam, spamLink
	data["formName"], data["requestId"], data["submissionId"] = p.FormName, p.RequestID, q.SubmissionID
	return data
}

// renderPart renders one part of a mail from its template, or returns
// fallback when the part has none or the template fails (past its bounds):
// the mail goes out with formd's default for that part rather than not
// at all.
func (r *Renderer) renderPart(source string, html bool, data map[string]any, fallback string) string {
	if source == "" {
		return fallback
	}
	out, err := r.templates.Render(source, html, data)
	if err != nil {
		return fallback
	}
	return out
}

// renderSubject renders a subject template into one header line: every
// run of white space becomes one space and control characters go, so no
// value can start another header.
func (r *Renderer) renderSubject(source string, data map[string]any, fallback string) string {
	s := r.renderPart(source, false, data, fallback)
	s = strings.Join(strings.Fields(strings.Map(func(c rune) rune {
		if unicode.IsControl(c) {
			return ' '
		}
		return c
	}, s)), " ")
	if rs := []rune(s); len(rs) > maxSubjectRunes {
		s = string(rs[:maxSubjectRunes])
	}
	if s == "" {
		return fallback
	}
	return s
}

// templatedMail fills a mail's subject and bodies from t; a blank part
// keeps the default given (defaultHTML may be empty: no HTML part).
func (r *Renderer) templatedMail(m *Mail, t form.MessageTemplate, data map[string]any, subject, text, defaultHTML string) {
	m.Subject = r.renderSubject(t.Subject, data, subject)
	m.Text = r.renderPart(t.Text, false, data, text)
	m.HTML = r.renderPart(t.HTML, true, data, "")
	if m.HTML == "" && defaultHTML != "" {
		m.HTML = r.renderPart(defaultHTML, true, data, "")
	}
}

package form

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/formd/formd/domain"
)

// Limits on message templates: they are read with every submission and
// rendered at every delivery attempt.
const (
	maxTemplateBytes   = 20000
	maxSubjectTemplate = maxTextLength
	maxTemplateNesting = 16
)

// Templates are a form's own message templates (Mustache): the notification
// to the owner and the autoresponder to the submitter. A blank part keeps
// formd's default for it.
type Templates struct {
	Notification  MessageTemplate `json:"notification,omitzero"`
	Autoresponder MessageTemplate `json:"autoresponder,omitzero"`
}

// MessageTemplate is one mail's templates: its subject, its text body and
// its optional HTML body.
type MessageTemplate struct {
	Subject string `json:"subject,omitempty"`
	Text    string `json:"text,omitempty"`
	HTML    string `json:"html,omitempty"`
}

// IsZero reports whether no part is set, so the mail keeps every default.
func (t MessageTemplate) IsZero() bool { return t == MessageTemplate{} }

// IsZero reports whether the form has no template at all.
func (t Templates) IsZero() bool { return t.Notification.IsZero() && t.Autoresponder.IsZero() }

func (t Templates) normalize() Templates {
	return Templates{Notification: t.Notification.normalize(), Autoresponder: t.Autoresponder.normalize()}
}

// normalize blanks a part of only whitespace (it means "the default") and
// trims the subject, which becomes one header line.
func (t MessageTemplate) normalize() MessageTemplate {
	t.Subject = strings.TrimSpace(t.Subject)
	if strings.TrimSpace(t.Text) == "" {
		t.Text = ""
	}
	if strings.TrimSpace(t.HTML) == "" {
		t.HTML = ""
	}
	return t
}

// Validate checks every part's size and syntax; the error names the part.
func (t Templates) Validate() error {
	if err := t.Notification.validate("templates.notification"); err != nil {
		return err
	}
	return t.Autoresponder.validate("templates.autoresponder")
}

func (t MessageTemplate) validate(prefix string) error {
	if len(t.Subject) > maxSubjectTemplate {
		return domain.Invalid(prefix+".subject", "%s.subject must be at most %d characters", prefix, maxSubjectTemplate)
	}
	if strings.ContainsFunc(t.Subject, unicode.IsControl) {
		return domain.Invalid(prefix+".subject", "%s.subject must be a single line without control characters", prefix)
	}
	for _, part := range []struct {
		name, source string
		html         bool
	}{{"subject", t.Subject, false}, {"text", t.Text, false}, {"html", t.HTML, true}} {
		field := prefix + "." + part.name
		if len(part.source) > maxTemplateBytes {
			return domain.Invalid(field, "%s must be at most %d bytes", field, maxTemplateBytes)
		}
		if err := CheckTemplate(part.source, part.html); err != nil {
			return domain.Invalid(field, "%s: %s", field, err.Error())
		}
	}
	return nil
}

// TemplateError is a template refused, at the line and column (both from 1,
// the column in characters) of the tag at fault.
type TemplateError struct {
	Line, Column int
	Reason       string
}

func (e *TemplateError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Reason)
}

// CheckTemplate checks a Mustache template's syntax as formd renders it:
// variables, sections and inverted sections, comments. Partials and new
// delimiters are refused (a template is one self-contained text), and so is
// unescaped output in an HTML body ({{{x}}}, {{&x}}): there every value is
// escaped, without exception. The tags are read exactly as the renderer
// reads them, so a template that passes renders.
func CheckTemplate(source string, html bool) error {
	type open struct {
		name string
		at   int
	}
	var sections []open
	fail := func(at int, format string, args ...any) error {
		line, column := position(source, at)
		return &TemplateError{Line: line, Column: column, Reason: fmt.Sprintf(format, args...)}
	}
	for p := 0; ; {
		i := strings.Index(source[p:], "{{")
		if i < 0 {
			break
		}
		at := i + p
		closing := "}}"
		if strings.HasPrefix(source[at+2:], "{") {
			closing = "}}}"
		}
		end := strings.Index(source[at+2:], closing)
		if end < 0 {
			return fail(at, "tag is not closed with %s", closing)
		}
		raw := source[at+2 : at+2+end]
		p = at + 2 + end + len(closing)
		if closing == "}}}" {
			raw += "}"
		}
		tag := strings.TrimSpace(raw)
		if tag == "" {
			return fail(at, "empty tag")
		}
		name := strings.TrimSpace(tag[1:])
		switch tag[0] {
		case '!':
		case '#', '^':
			if name == "" {
				return fail(at, "section without a name")
			}
			if len(sections) == maxTemplateNesting {
				return fail(at, "sections may nest at most %d deep", maxTemplateNesting)
			}
			sections = append(sections, open{name, at})
		case '/':
			if len(sections) == 0 {
				return fail(at, "closing tag %q without an open section", name)
			}
			if last := sections[len(sections)-1]; last.name != name {
				return fail(at, "closing tag %q does not close section %q", name, last.name)
			}
			sections = sections[:len(sections)-1]
		case '>':
			return fail(at, "partials are not available")
		case '=':
			return fail(at, "changing the delimiters is not available")
		case '{', '&':
			if html {
				return fail(at, "unescaped output is not allowed in an HTML body; write {{%s}}", strings.TrimSuffix(name, "}"))
			}
		}
	}
	if n := len(sections); n > 0 {
		return fail(sections[n-1].at, "unclosed section %q", sections[n-1].name)
	}
	return nil
}

// position is the line and column (in characters), both from 1, of the
// byte offset at in s.
func position(s string, at int) (line, column int) {
	before := s[:at]
	line = strings.Count(before, "\n") + 1
	column = utf8.RuneCountInString(before[strings.LastIndex(before, "\n")+1:]) + 1
	return line, column
}

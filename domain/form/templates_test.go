package form

import (
	"errors"
	"strings"
	"testing"

	"github.com/formd/formd/domain"
)

func TestCheckTemplateRefusesWithLineAndColumn(t *testing.T) {
	for _, c := range []struct {
		name, source string
		html         bool
		want         string
	}{
		{"unclosed section", "<p>Hello</p>\n<table>\n  <tbody>    {{#fields}}<tr><td>{{name}}</td></tr>\n</table>", true, `line 3, column 14: unclosed section "fields"`},
		{"unclosed tag", "Hi {{name", false, "line 1, column 4: tag is not closed with }}"},
		{"stray closing tag", "a\nb {{/fields}}", false, `line 2, column 3: closing tag "fields" without an open section`},
		{"interleaved", "{{#a}}{{#b}}{{/a}}{{/b}}", false, `line 1, column 13: closing tag "a" does not close section "b"`},
		{"partial", "x {{> footer}}", false, "line 1, column 3: partials are not available"},
		{"delimiters", "{{=<% %>=}}", false, "line 1, column 1: changing the delimiters is not available"},
		{"empty", "é{{ }}", false, "line 1, column 2: empty tag"},
		{"triple in html", "<b>{{{message}}}</b>", true, "line 1, column 4: unescaped output is not allowed in an HTML body; write {{message}}"},
		{"ampersand in html", "\n  {{& message}}", true, "line 2, column 3: unescaped output is not allowed in an HTML body; write {{message}}"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := CheckTemplate(c.source, c.html)
			if err == nil || err.Error() != c.want {
				t.Fatalf("CheckTemplate = %v, want %q", err, c.want)
			}
		})
	}
}

func TestCheckTemplateAccepts(t *testing.T) {
	for _, source := range []string{
		"", "plain", "{{name}} {{{message}}} {{&message}}",
		"{{#fields}}{{name}}: {{value}}\n{{/fields}}{{^company}}none{{/company}}{{! a comment }}",
	} {
		if err := CheckTemplate(source, false); err != nil {
			t.Errorf("CheckTemplate(%q) = %v", source, err)
		}
	}
	deep := strings.Repeat("{{#a}}", maxTemplateNesting) + strings.Repeat("{{/a}}", maxTemplateNesting)
	if err := CheckTemplate(deep, true); err != nil {
		t.Errorf("nesting %d deep: %v", maxTemplateNesting, err)
	}
	if err := CheckTemplate("{{#a}}"+deep+"{{/a}}", true); err == nil {
		t.Error("nesting one deeper passed")
	}
}

func TestTemplatesSettingNamesThePart(t *testing.T) {
	s := Settings{Name: "Contact", RecipientEmail: "owner@example.com",
		Templates: Templates{Autoresponder: MessageTemplate{HTML: "ok\n{{#x}}"}}}.Normalize()
	var invalid *domain.InvalidInputError
	if err := s.Validate(Policy{}); !errors.As(err, &invalid) || invalid.Field != "templates.autoresponder.html" ||
		invalid.Message != `templates.autoresponder.html: line 2, column 1: unclosed section "x"` {
		t.Fatalf("Validate = %#v", err)
	}
	s.Templates.Autoresponder = MessageTemplate{Subject: "Thanks\r\nBcc: x@example.com"}
	if err := s.Validate(Policy{}); !errors.As(err, &invalid) || invalid.Field != "templates.autoresponder.subject" {
		t.Fatalf("a subject of two lines: %v", err)
	}
	s.Templates = Templates{Notification: MessageTemplate{Text: " \n "}}
	if s.Normalize().Templates.IsZero() != true {
		t.Fatal("a blank part is kept")
	}
}

package mailtemplate

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/formd/formd/domain/form"
)

func data() map[string]any {
	return map[string]any{
		"name": "Ada <Lovelace>", "message": "Hi & bye",
		"fields": []any{
			map[string]any{"name": "name", "value": "Ada <Lovelace>"},
			map[string]any{"name": "message", "value": "Hi & bye"},
		},
	}
}

func TestRenderPlaceholdersLoopsAndPresence(t *testing.T) {
	got, err := New().Render("Hello {{name}}\n{{#fields}}{{name}}={{value}};{{/fields}}\n{{#company}}at {{company}}{{/company}}{{^company}}no company{{/company}}", false, data())
	if err != nil {
		t.Fatal(err)
	}
	if want := "Hello Ada <Lovelace>\nname=Ada <Lovelace>;message=Hi & bye;\nno company"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestRenderEscapesHTML(t *testing.T) {
	got, err := New().Render("<p>{{name}}</p>{{#fields}}<i>{{value}}</i>{{/fields}}", true, data())
	if err != nil {
		t.Fatal(err)
	}
	if want := "<p>Ada &lt;Lovelace&gt;</p><i>Ada &lt;Lovelace&gt;</i><i>Hi &amp; bye</i>"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestRenderRefusesPartials(t *testing.T) {
	if _, err := New().Render("{{> /etc/passwd}}", false, data()); err == nil {
		t.Fatal("a partial rendered")
	}
}

func TestRenderIsBounded(t *testing.T) {
	many := make([]any, 60)
	for i := range many {
		many[i] = map[string]any{"name": "f", "value": strings.Repeat("x", 10)}
	}
	loop := strings.Repeat("{{#fields}}", 6) + "{{value}}" + strings.Repeat("{{/fields}}", 6)
	if err := form.CheckTemplate(loop, true); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := New().Render(loop, true, map[string]any{"fields": many})
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
	// Loops without output are bounded by their work, not their bytes.
	empty := strings.Repeat("{{#fields}}", 6) + strings.Repeat("{{/fields}}", 6)
	if _, err := New().Render(empty, false, map[string]any{"fields": many}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("empty loops: err = %v, want ErrTooLarge", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("bounded renderings took %s", d)
	}
	big := strings.Repeat("y", MaxOutputBytes+1)
	if _, err := New().Render("{{v}}", false, map[string]any{"v": big}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("one big value: err = %v", err)
	}
}

// Every template the form's syntax check accepts parses in the engine.
func TestCheckedTemplatesParse(t *testing.T) {
	for _, source := range []string{
		"{{a}}{{{b}}}{{&c}}{{! note }}{{#d}}{{.}}{{/d}}{{^e}}x{{/e}}",
		"  {{#fields}}\n  {{name}}\n  {{/fields}}\n",
		"{{ spaced }} {{#  s  }}{{/s}}",
	} {
		if err := form.CheckTemplate(source, false); err != nil {
			t.Fatalf("check %q: %v", source, err)
		}
		if _, err := New().Render(source, false, data()); err != nil {
			t.Errorf("render %q: %v", source, err)
		}
	}
}

func TestParsedTemplatesAreKeptUpToTheirBound(t *testing.T) {
	e := New()
	for i := range maxParsed + 10 {
		got, err := e.Render("{{name}} "+strings.Repeat("x", i), false, data())
		if err != nil {
			t.Fatal(err)
		}
		if want := "Ada <Lovelace> " + strings.Repeat("x", i); got != want {
			t.Fatalf("got %q, want %q", got, want)
		}
	}
	if n := e.count.Load(); n != maxParsed {
		t.Fatalf("kept %d parsed templates, want the bound %d", n, maxParsed)
	}
	// The same source kept for text is not the one for HTML: escaping is
	// decided at parse time.
	text, _ := e.Render("{{name}}", false, data())
	html, _ := e.Render("{{name}}", true, data())
	if text == html {
		t.Fatalf("text and HTML renderings of one source agree: %q", text)
	}
}

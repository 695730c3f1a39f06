// Package mailtemplate renders a form's mail templates with Mustache
// (github.com/cbroglie/mustache): logic-less and sandboxed. Templates have
// no partials and no function calls (the data holds only strings, lists,
// maps and booleans, so no lambda), and what one renders is bounded in size
// and in work.
package mailtemplate

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/cbroglie/mustache"
)

// Bounds on one rendering.
const (
	// MaxOutputBytes is the most one template may write.
	MaxOutputBytes = 256 << 10
	// maxWrites bounds the work of one rendering: every section's pass and
	// every tag writes at least once, so a loop nested in loops stops here
	// long before it could take noticeable time.
	maxWrites = 200_000
	// maxParsed bounds the parsed templates kept: every form's templates
	// fit many times over, and a flood of distinct ones costs a parse each,
	// never memory.
	maxParsed = 1024
)

// ErrTooLarge is a rendering that wrote past MaxOutputBytes or took more
// than its share of work.
var ErrTooLarge = errors.New("template output exceeds its limit")

// Engine renders templates; it is safe for concurrent use. It keeps what it
// parsed, so a template used by every delivery (the default HTML
// notification, a busy form's own) is parsed once, not once a mail.
type Engine struct {
	parsed sync.Map // parseKey -> *mustache.Template
	count  atomic.Int64
}

type parseKey struct {
	source string
	html   bool
}

// New returns the engine.
func New() *Engine { return &Engine{} }

// Render renders source with data. html escapes every value for HTML (the
// template's own syntax check refuses unescaped tags there); otherwise
// values are written as they are, for a subject or a text body.
func (e *Engine) Render(source string, html bool, data map[string]any) (string, error) {
	tmpl, err := e.parse(source, html)
	if err != nil {
		return "", err
	}
	out := &boundedWriter{}
	err = tmpl.FRender(out, data)
	if out.over {
		return "", ErrTooLarge
	}
	if err != nil {
		return "", fmt.Errorf("render template: %w", err)
	}
	return string(out.buf), nil
}

// noPartials refuses every partial: a template is one self-contained text
// and never reads a file.
type noPartials struct{}

func (noPartials) Get(name string) (string, error) {
	return "", fmt.Errorf("partial %q: partials are not available", name)
}

// boundedWriter keeps what a rendering writes until it passes a bound, then
// fails every write (the engine ignores some write errors, so over is
// checked after rendering too).
type boundedWriter struct {
	buf    []byte
	writes int
	over   bool
}

func (w *boundedWriter) Write(p []byte) (int, error) {
	w.writes++
	if w.over || w.writes > maxWrites || len(w.buf)+len(p) > MaxOutputBytes {
		w.over = true
		return 0, ErrTooLarge
	}
	w.buf = append(w.buf, p...)
	return len(p), nil
}

// parse is source parsed, from what the engine keeps when it can.
func (e *Engine) parse(source string, html bool) (*mustache.Template, error) {
	key := parseKey{source, html}
	if t, ok := e.parsed.Load(key); ok {
		return t.(*mustache.Template), nil
	}
	tmpl, err := mustache.ParseStringPartialsRaw(source, noPartials{}, !html)
	if err != nil {
		return nil, fmt.Errorf("parse template: %w", err)
	}
	if e.count.Load() < maxParsed {
		if _, loaded := e.parsed.LoadOrStore(key, tmpl); !loaded {
			e.count.Add(1)
		}
	}
	return tmpl, nil
}

package web

import (
	"bytes"
	"embed"
	"html/template"
	"io/fs"
	"net/http"
	"strings"
	"time"
)

// assets are the templates and the static files, built into the binary.
//
//go:embed templates static
var assets embed.FS

// pages are the parsed templates: each page's file with the layout.
type pages struct {
	byName map[string]*template.Template
}

// view is what the layout and every page template get.
type view struct {
	// Title names the page (in <title> and its heading); Section is the nav
	// entry to mark current (forms, tokens, account).
	Title   string
	Section string
	// Visitor is the signed-in person; nil on the sign-in pages.
	Visitor *visitor
	// CSRF is the token of the page's forms.
	CSRF string
	// Notice is good news; Alert a problem with the whole request.
	Notice    string
	Alert     string
	RequestID string
	// Data is the page's own.
	Data any
	// DevMail links the development mail page (development mode only).
	DevMail bool
}

var templateFuncs = template.FuncMap{
	"humanTime": humanTime,
	"isoTime":   func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	"humanDate": func(t time.Time) string { return t.UTC().Format("2 Jan 2006") },
	"inc":       func(i int) int { return i + 1 },
	// dict passes several values to a partial: dict "name" value "name" value….
	"dict": func(pairs ...any) map[string]any {
		m := make(map[string]any, len(pairs)/2)
		for i := 0; i+1 < len(pairs); i += 2 {
			m[pairs[i].(string)] = pairs[i+1]
		}
		return m
	},
	// list makes a list to range over in a template: list a b c.
	"list": func(items ...any) []any { return items },
}

// humanTime writes a time for people, in UTC.
func humanTime(t time.Time) string { return t.UTC().Format("2 Jan 2006, 15:04 UTC") }

// mustParsePages parses every page template with the layout and the
// partials (files named partial_*.html); a broken
// template stops formd at start, never at a request.
func mustParsePages() *pages {
	names, err := fs.Glob(assets, "templates/*.html")
	if err != nil {
		panic(err)
	}
	p := &pages{byName: map[string]*template.Template{}}
	for _, file := range names {
		name := strings.TrimSuffix(strings.TrimPrefix(file, "templates/"), ".html")
		if name == "layout" || strings.HasPrefix(name, "partial_") {
			continue
		}
		p.byName[name] = template.Must(template.New(name).Funcs(templateFuncs).ParseFS(assets, "templates/layout.html", "templates/partial_*.html", file))
	}
	return p
}

// render draws the page named name inside the layout. It renders into a
// buffer first, so a template error is a clean 500 page, never half a page.
func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, name string, v view) {
	t, ok := s.pages.byName[name]
	if !ok {
		panic("web: no template " + name)
	}
	v.RequestID = requestIDOf(r)
	v.DevMail = s.app.Queries.DevelopmentMail.Available()
	if v.Visitor != nil && v.CSRF == "" {
		v.CSRF = v.Visitor.CSRF
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", v); err != nil {
		s.log.Error("template failed", "requestId", v.RequestID, "template", name, "err", err)
		if name != "error" {
			s.errorPage(w, r, http.StatusInternalServerError, "")
			return
		}
		http.Error(w, "Something went wrong on our side.", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// errorTitles name the error pages.
var errorTitles = map[int]string{
	http.StatusBadRequest:          "That request could not be read",
	http.StatusForbidden:           "Request refused",
	http.StatusNotFound:            "Page not found",
	http.StatusTooManyRequests:     "Too many requests",
	http.StatusInternalServerError: "Something went wrong",
	http.StatusServiceUnavailable:  "Not ready yet",
}

// errorMessages are what each error page says unless told otherwise.
var errorMessages = map[int]string{
	http.StatusBadRequest:          "The form could not be read. Go back and try again.",
	http.StatusForbidden:           "You may not do that.",
	http.StatusNotFound:            "There is nothing here, or it belongs to another account.",
	http.StatusTooManyRequests:     "Wait a moment and try again.",
	http.StatusInternalServerError: "Something went wrong on our side. Quote the request id when reporting it.",
}

// errorPage answers with a page for status, saying message (or the usual words).
func (s *Server) errorPage(w http.ResponseWriter, r *http.Request, status int, message string) {
	if message == "" {
		message = errorMessages[status]
	}
	title := errorTitles[status]
	if title == "" {
		title = http.StatusText(status)
	}
	v, _ := s.visitorOf(r)
	s.render(w, r, status, "error", view{Title: title, Visitor: v, Alert: message, Data: status})
}

// staticFiles serves the embedded assets, without directory listings.
func staticFiles(files fs.FS) http.Handler {
	server := http.FileServerFS(files)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "" || strings.HasSuffix(r.URL.Path, "/") {
			http.NotFound(w, r)
			return
		}
		server.ServeHTTP(w, r)
	})
}

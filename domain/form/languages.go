package form

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/formd/formd/domain"
)

// Languages are the languages formd speaks to visitors, English first: the
// tags of its message catalogs (adapters/i18n checks that its catalogs are
// exactly these), which a form's language and its own pages may name.
var Languages = []string{"en", "de", "fr", "es", "pt", "it", "nl", "ja"}

// IsLanguage reports whether tag is one of Languages.
func IsLanguage(tag string) bool { return slices.Contains(Languages, tag) }

// Limits on a form's own hosted pages.
const (
	maxPageHeadingLength = 200
	maxPageTextLength    = 2000
)

// Pages are a form's own words on the hosted success and error pages of
// plain HTML posts, per language; a page without any keeps formd's.
type Pages struct {
	Success PageTexts `json:"success,omitempty"`
	Error   PageTexts `json:"error,omitempty"`
}

// PageTexts are one hosted page's words, by language tag (one of Languages).
type PageTexts map[string]PageText

// PageText is a heading and a text, shown as plain text.
type PageText struct {
	Heading string `json:"heading"`
	Text    string `json:"text,omitempty"`
}

// In is the page's words for the first of languages it has, else its
// English, else its first in the order of Languages; false when it has
// none. It says which language the words are in.
func (p PageTexts) In(languages ...string) (string, PageText, bool) {
	for _, l := range append(slices.Clip(languages), Languages...) {
		if t, ok := p[l]; ok {
			return l, t, true
		}
	}
	return "", PageText{}, false
}

// Tags are the languages the page has words in, in the order of Languages.
func (p PageTexts) Tags() []string {
	var out []string
	for _, l := range Languages {
		if _, ok := p[l]; ok {
			out = append(out, l)
		}
	}
	return out
}

func (p Pages) normalize() Pages {
	return Pages{Success: p.Success.normalize(), Error: p.Error.normalize()}
}

func (p PageTexts) normalize() PageTexts {
	if len(p) == 0 {
		return nil
	}
	out := make(PageTexts, len(p))
	for l, t := range p {
		t = PageText{Heading: strings.TrimSpace(t.Heading), Text: strings.TrimSpace(t.Text)}
		if t != (PageText{}) { // an empty row of an editor is no language's words
			out[strings.ToLower(strings.TrimSpace(l))] = t
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func (p Pages) validate() error {
	if err := p.Success.validate("pages.success"); err != nil {
		return err
	}
	return p.Error.validate("pages.error")
}

func (p PageTexts) validate(field string) error {
	for l, t := range p {
		at := field + "." + l
		if !IsLanguage(l) {
			return domain.Invalid(field, "%s may only name the languages %s", field, strings.Join(Languages, ", "))
		}
		if t.Heading == "" {
			return domain.Invalid(at+".heading", "%s.heading is required", at)
		}
		if utf8.RuneCountInString(t.Heading) > maxPageHeadingLength || strings.ContainsFunc(t.Heading, unicode.IsControl) {
			return domain.Invalid(at+".heading", "%s.heading must be one line of at most %d characters", at, maxPageHeadingLength)
		}
		if utf8.RuneCountInString(t.Text) > maxPageTextLength {
			return domain.Invalid(at+".text", "%s.text must be at most %d characters", at, maxPageTextLength)
		}
	}
	return nil
}

// validateLanguage checks a form's language: blank (follow the visitor's
// browser) or one of Languages.
func validateLanguage(tag string) error {
	if tag != "" && !IsLanguage(tag) {
		return domain.Invalid("language", "language must be blank or one of %s", strings.Join(Languages, ", "))
	}
	return nil
}

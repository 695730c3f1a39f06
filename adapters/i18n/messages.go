// Package i18n is formd's message catalogs (docs/languages.md): one TOML file
// per language under catalogs/, read with go-i18n, and the visitor's
// language matched with golang.org/x/text/language.
package i18n

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/nicksnyder/go-i18n/v2/i18n"
	"github.com/pelletier/go-toml/v2"
	"golang.org/x/text/language"
)

//go:embed catalogs/*.toml
var catalogs embed.FS

// Catalogs implements application.Messages over the embedded catalogs.
type Catalogs struct {
	bundle     *i18n.Bundle
	matcher    language.Matcher
	tags       []language.Tag
	localizers map[string]*i18n.Localizer
}

// Load reads every catalog; English, the first, is the fallback.
func Load() (*Catalogs, error) {
	bundle := i18n.NewBundle(language.English)
	bundle.RegisterUnmarshalFunc("toml", toml.Unmarshal)
	files, err := fs.Glob(catalogs, "catalogs/*.toml")
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		raw, err := catalogs.ReadFile(f)
		if err != nil {
			return nil, err
		}
		if _, err := bundle.ParseMessageFileBytes(raw, path.Base(f)); err != nil {
			return nil, fmt.Errorf("i18n: catalog %s: %w", f, err)
		}
	}
	c := &Catalogs{bundle: bundle, localizers: map[string]*i18n.Localizer{}}
	// English first: the matcher falls back to its first tag.
	c.tags = []language.Tag{language.English}
	for _, t := range bundle.LanguageTags() {
		if t != language.English {
			c.tags = append(c.tags, t)
		}
	}
	c.matcher = language.NewMatcher(c.tags)
	for _, t := range c.tags {
		c.localizers[t.String()] = i18n.NewLocalizer(bundle, t.String())
	}
	return c, nil
}

// Languages are the catalogs' languages, English first.
func (c *Catalogs) Languages() []string {
	out := make([]string, len(c.tags))
	for i, t := range c.tags {
		out[i] = t.String()
	}
	return out
}

// Language implements application.Messages.
func (c *Catalogs) Language(preferences ...string) string {
	for _, p := range preferences {
		if strings.TrimSpace(p) == "" {
			continue
		}
		wanted, _, err := language.ParseAcceptLanguage(p)
		if err != nil || len(wanted) == 0 {
			continue
		}
		if _, index, confidence := c.matcher.Match(wanted...); confidence > language.No {
			return c.tags[index].String()
		}
	}
	return language.English.String()
}

// Text implements application.Messages.
func (c *Catalogs) Text(lang, id string, data map[string]any) string {
	l, ok := c.localizers[lang]
	if !ok {
		l = c.localizers[language.English.String()]
	}
	text, err := l.Localize(&i18n.LocalizeConfig{MessageID: id, TemplateData: data})
	if err != nil {
		return id
	}
	return text
}

// Among implements application.Messages.
func (c *Catalogs) Among(offered []string, preferences ...string) (string, bool) {
	tags := make([]language.Tag, 0, len(offered))
	for _, o := range offered {
		if t, err := language.Parse(o); err == nil {
			tags = append(tags, t)
		}
	}
	if len(tags) == 0 {
		return "", false
	}
	matcher := language.NewMatcher(tags)
	for _, p := range preferences {
		wanted, _, err := language.ParseAcceptLanguage(p)
		if err != nil || len(wanted) == 0 {
			continue
		}
		if _, index, confidence := matcher.Match(wanted...); confidence > language.No {
			return tags[index].String(), true
		}
	}
	return "", false
}

package form_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/form"
)

func TestALanguageAndPagesAreValidatedNamingTheField(t *testing.T) {
	long := strings.Repeat("x", 201)
	for _, tc := range []struct {
		name  string
		s     func(*form.Settings)
		field string
	}{
		{"unknown language", func(s *form.Settings) { s.Language = "klingon" }, "language"},
		{"a language formd has no catalog of", func(s *form.Settings) { s.Language = "zh" }, "language"},
		{"page in an unknown language", func(s *form.Settings) {
			s.Pages.Success = form.PageTexts{"xx": {Heading: "Hi"}}
		}, "pages.success"},
		{"page without a heading", func(s *form.Settings) {
			s.Pages.Error = form.PageTexts{"de": {Text: "Nur Text"}}
		}, "pages.error.de.heading"},
		{"heading too long", func(s *form.Settings) { s.Pages.Success = form.PageTexts{"en": {Heading: long}} }, "pages.success.en.heading"},
		{"heading on two lines", func(s *form.Settings) { s.Pages.Success = form.PageTexts{"en": {Heading: "a\nb"}} }, "pages.success.en.heading"},
		{"text too long", func(s *form.Settings) {
			s.Pages.Success = form.PageTexts{"fr": {Heading: "Merci", Text: strings.Repeat("é", 2001)}}
		}, "pages.success.fr.text"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := settingsBase()
			tc.s(&s)
			err := s.Normalize().Validate(form.Policy{})
			var invalid *domain.InvalidInputError
			if !errors.As(err, &invalid) || invalid.Field != tc.field {
				t.Fatalf("got %v, want a refusal naming %s", err, tc.field)
			}
		})
	}
	s := settingsBase()
	s.Language, s.Pages.Success = " DE ", form.PageTexts{"de": {Heading: " Danke ", Text: strings.Repeat("é", 2000)}, "ja": {}}
	s = s.Normalize()
	if err := s.Validate(form.Policy{}); err != nil || s.Language != "de" || len(s.Pages.Success) != 1 || s.Pages.Success["de"].Heading != "Danke" {
		t.Fatalf("a valid language and page: %v %+v", err, s)
	}
}

func TestAPagesWordsAreInTheVisitorsLanguageElseEnglishElseTheFirst(t *testing.T) {
	p := form.PageTexts{"de": {Heading: "Danke"}, "fr": {Heading: "Merci"}}
	for _, tc := range []struct {
		langs []string
		want  string
	}{{[]string{"fr"}, "Merci"}, {[]string{"ja", "de"}, "Danke"}, {[]string{"it"}, "Danke"}, {nil, "Danke"}} {
		if _, got, ok := p.In(tc.langs...); !ok || got.Heading != tc.want {
			t.Errorf("In(%v) = %q, want %q", tc.langs, got.Heading, tc.want)
		}
	}
	p["en"] = form.PageText{Heading: "Thanks"}
	if lang, got, _ := p.In("it"); lang != "en" || got.Heading != "Thanks" {
		t.Errorf("English before the others: %q", got.Heading)
	}
	if _, _, ok := (form.PageTexts{}).In("en"); ok {
		t.Error("a page without words has none")
	}
}

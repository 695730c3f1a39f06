package application_test

import (
	"context"
	"testing"

	"github.com/formd/formd/adapters/i18n"
	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/form"
)

// oneForm is a forms read model of one form.
type oneForm struct{ rec application.FormRecord }

func (f oneForm) FormByID(_ context.Context, id string) (application.FormRecord, error) {
	if id != f.rec.ID {
		return application.FormRecord{}, domain.ErrNotFound
	}
	return f.rec, nil
}

func TestAHostedPageIsInTheFormsLanguageAndWords(t *testing.T) {
	catalogs, err := i18n.Load()
	if err != nil {
		t.Fatal(err)
	}
	st := form.Settings{Pages: form.Pages{
		Success: form.PageTexts{"de": {Heading: "Danke!", Text: "Bis bald."}, "fr": {Heading: "Merci !"}},
		Error:   form.PageTexts{"en": {Heading: "Oops"}},
	}}
	rec := application.FormRecord{ID: "f1", Settings: st}
	h := application.NewHostedPageHandler(oneForm{rec}, catalogs)
	for _, tc := range []struct {
		name     string
		language string
		q        application.HostedPage
		want     application.HostedPageView
	}{
		{"no form: the browser's language, formd's words", "", application.HostedPage{AcceptLanguage: "nl"}, application.HostedPageView{Language: "nl"}},
		{"a form that is gone", "", application.HostedPage{FormID: "gone", AcceptLanguage: "ja"}, application.HostedPageView{Language: "ja"}},
		{"the browser's language among the form's", "", application.HostedPage{FormID: "f1", AcceptLanguage: "fr-CH, de;q=0.5"},
			application.HostedPageView{Language: "fr", Heading: "Merci !"}},
		{"the browser's second choice the form has", "", application.HostedPage{FormID: "f1", AcceptLanguage: "ja, de;q=0.5"},
			application.HostedPageView{Language: "de", Heading: "Danke!", Text: "Bis bald."}},
		{"none the browser wants: English, else the first", "", application.HostedPage{FormID: "f1", AcceptLanguage: "ja"},
			application.HostedPageView{Language: "de", Heading: "Danke!", Text: "Bis bald."}},
		{"the form's language wins over the browser's", "fr", application.HostedPage{FormID: "f1", AcceptLanguage: "de"},
			application.HostedPageView{Language: "fr", Heading: "Merci !"}},
		{"the error page's words", "", application.HostedPage{FormID: "f1", Error: true, AcceptLanguage: "it"},
			application.HostedPageView{Language: "en", Heading: "Oops"}},
		{"a form language without own words", "it", application.HostedPage{FormID: "f1", Error: true, AcceptLanguage: "de"},
			application.HostedPageView{Language: "en", Heading: "Oops"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec.Settings.Language = tc.language
			h := application.NewHostedPageHandler(oneForm{rec}, catalogs)
			got, err := h.Handle(context.Background(), tc.q)
			if err != nil || got != tc.want {
				t.Errorf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
	if got, _ := h.Handle(context.Background(), application.HostedPage{FormID: "f1", Error: true}); got.Language != "en" {
		t.Errorf("no preference at all: %+v", got)
	}
	rec.Settings = form.Settings{Language: "ja"}
	got, _ := application.NewHostedPageHandler(oneForm{rec}, catalogs).Handle(context.Background(), application.HostedPage{FormID: "f1", AcceptLanguage: "de"})
	if got != (application.HostedPageView{Language: "ja"}) {
		t.Errorf("a form's language without own words: %+v", got)
	}
}

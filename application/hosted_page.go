package application

import (
	"context"
	"errors"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/form"
)

// HostedPage asks for the language and the form's own words of a hosted
// success or error page of a plain HTML post (docs/languages.md).
type HostedPage struct {
	// FormID is the form the post went to; blank (or a form that is gone)
	// gives formd's page in the visitor's language.
	FormID string
	// Error asks for the error page, else the success page.
	Error bool
	// AcceptLanguage is the browser's Accept-Language.
	AcceptLanguage string
}

// HostedPageView is what the page shows: its language, and the form's own
// heading and text when it has them (blank keeps the catalog's words).
type HostedPageView struct {
	Language string
	Heading  string
	Text     string
}

// HostedPageHandler words the hosted pages: the form's language when it
// sets one, else the browser's; the form's own words in that language, else
// in the one of its languages the browser prefers, else its English or
// first ones.
type HostedPageHandler struct {
	forms    FormReader
	messages Messages
}

// NewHostedPageHandler builds the query.
func NewHostedPageHandler(forms FormReader, messages Messages) *HostedPageHandler {
	if forms == nil || messages == nil {
		panic("application: nil dependency of HostedPageHandler")
	}
	return &HostedPageHandler{forms: forms, messages: messages}
}

// Handle reads the form, if any, and words its page.
func (h *HostedPageHandler) Handle(ctx context.Context, q HostedPage) (HostedPageView, error) {
	var st form.Settings
	if q.FormID != "" {
		rec, err := h.forms.FormByID(ctx, q.FormID)
		if err != nil && !errors.Is(err, domain.ErrNotFound) {
			return HostedPageView{}, err
		}
		st = rec.Settings
	}
	view := HostedPageView{Language: h.messages.Language(st.Language, q.AcceptLanguage)}
	page := st.Pages.Success
	if q.Error {
		page = st.Pages.Error
	}
	if len(page) == 0 {
		return view, nil
	}
	preferred := st.Language
	if preferred == "" {
		preferred, _ = h.messages.Among(page.Tags(), q.AcceptLanguage)
	}
	lang, words, _ := page.In(preferred)
	// The whole page in the language of the form's words.
	view.Language, view.Heading, view.Text = lang, words.Heading, words.Text
	return view, nil
}

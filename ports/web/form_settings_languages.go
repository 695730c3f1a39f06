package web

import (
	"net/http"
	"strings"

	"github.com/formd/formd/domain/form"
)

// languageNames name the languages a form may speak, in the page's
// language (English) and their own.
var languageNames = map[string]string{
	"en": "English", "de": "German (Deutsch)", "fr": "French (français)", "es": "Spanish (español)",
	"pt": "Portuguese (português)", "it": "Italian (italiano)", "nl": "Dutch (Nederlands)", "ja": "Japanese (日本語)",
}

// languageFields are the Settings tab's language and its hosted pages'
// words: one row per language formd speaks.
type languageFields struct {
	// Language is the form's language; empty follows each visitor.
	Language string
	Rows     []pageRow
}

// pageRow is one language's words on the success and error pages.
type pageRow struct {
	Tag, Name                                            string
	SuccessHeading, SuccessText, ErrorHeading, ErrorText string
}

// languageFieldsOf shows a form's language and pages.
func languageFieldsOf(s form.Settings) languageFields {
	out := languageFields{Language: s.Language}
	for _, tag := range form.Languages {
		success, errorPage := s.Pages.Success[tag], s.Pages.Error[tag]
		out.Rows = append(out.Rows, pageRow{Tag: tag, Name: languageNames[tag], SuccessHeading: success.Heading, SuccessText: success.Text,
			ErrorHeading: errorPage.Heading, ErrorText: errorPage.Text})
	}
	return out
}

// languageFieldsPosted reads what was typed.
func languageFieldsPosted(r *http.Request) languageFields {
	out := languageFields{Language: r.PostFormValue("language")}
	for _, tag := range form.Languages {
		out.Rows = append(out.Rows, pageRow{Tag: tag, Name: languageNames[tag],
			SuccessHeading: r.PostFormValue("pages-success-" + tag + "-heading"), SuccessText: r.PostFormValue("pages-success-" + tag + "-text"),
			ErrorHeading: r.PostFormValue("pages-error-" + tag + "-heading"), ErrorText: r.PostFormValue("pages-error-" + tag + "-text")})
	}
	return out
}

// languagePatch is the language and pages PATCH would get; a row left
// empty is no words in its language (the domain drops it).
func languagePatch(in languageFields, patch *form.Patch) {
	language := strings.TrimSpace(in.Language)
	pages := form.Pages{Success: form.PageTexts{}, Error: form.PageTexts{}}
	for _, row := range in.Rows {
		pages.Success[row.Tag] = form.PageText{Heading: row.SuccessHeading, Text: row.SuccessText}
		pages.Error[row.Tag] = form.PageText{Heading: row.ErrorHeading, Text: row.ErrorText}
	}
	patch.Language, patch.Pages = &language, &pages
}

// languageProblemField is the page's field of an error about pages
// (pages.success.de.heading: pages-success-de-heading).
func languageProblemField(apiField string) (string, bool) {
	if apiField == "language" {
		return "language", true
	}
	if strings.HasPrefix(apiField, "pages.") {
		return strings.ReplaceAll(apiField, ".", "-"), true
	}
	return "", false
}

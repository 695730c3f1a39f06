package application

// Messages are formd's words on the pages visitors see, in their language
// (docs/languages.md): catalogs translators edit as plain files, one per
// language. API error messages stay English, with their stable rule codes.
type Messages interface {
	// Language is the catalog language that best serves a visitor: the
	// first of preferences (a form's language, an Accept-Language header…)
	// a catalog matches, else English.
	Language(preferences ...string) string
	// Among is the one of offered languages (catalog languages) that best
	// serves a visitor with preferences; false when none matches.
	Among(offered []string, preferences ...string) (string, bool)
	// Text is message id in the catalog of language, a value Language
	// returned, with data filled in; an id no catalog has is itself.
	Text(language, id string, data map[string]any) string
}

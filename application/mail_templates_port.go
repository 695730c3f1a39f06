package application

// TemplateEngine renders a form's mail templates (Mustache). The settings
// check each template's syntax when they are saved (form.CheckTemplate);
// the engine renders them at delivery, HTML escaping every value when html
// is set, and fails a rendering past its bounds of size and work.
type TemplateEngine interface {
	Render(source string, html bool, data map[string]any) (string, error)
}

package portkit

import "github.com/formd/formd/domain/form"

// Validation is the spec's FieldValidationSettings, as forms show them and
// as PATCH /v1/forms/{formId} and update_form take them.
type Validation struct {
	Fields []FieldRule `json:"fields" jsonschema:"one rule per field name; an empty list removes every rule"`
}

// FieldRule is the spec's FieldValidationRule.
type FieldRule struct {
	Field     string    `json:"field" jsonschema:"the submitted field's name"`
	Required  bool      `json:"required,omitempty"`
	Type      string    `json:"type,omitempty" jsonschema:"empty for any text, or email, url, number"`
	MinLength *int      `json:"minLength,omitempty"`
	MaxLength *int      `json:"maxLength,omitempty"`
	Regex     string    `json:"regex,omitempty" jsonschema:"a regular expression (RE2) the whole value must match"`
	File      *FileRule `json:"file,omitempty" jsonschema:"rules for a file uploaded under this field name"`
}

// FileRule is a FieldValidationRule's file: the rules of a file uploaded
// under the field's name.
type FileRule struct {
	Required         bool     `json:"required,omitempty"`
	AllowedMimeTypes []string `json:"allowedMimeTypes,omitempty"`
}

// PresentValidation shows a form's rules; no rules is an empty list, as the
// spec's schema has it (an array, never null).
func PresentValidation(v form.ValidationSettings) Validation {
	out := Validation{Fields: make([]FieldRule, len(v.Fields))}
	for i, r := range v.Fields {
		out.Fields[i] = FieldRule{Field: r.Field, Required: r.Required, Type: r.Type,
			MinLength: r.MinLength, MaxLength: r.MaxLength, Regex: r.Regex}
		if r.File != nil {
			out.Fields[i].File = &FileRule{Required: r.File.Required, AllowedMimeTypes: r.File.AllowedMimeTypes}
		}
	}
	return out
}

// Settings are the rules as the domain takes them; a missing list stays
// missing, for the domain to judge.
func (v Validation) Settings() form.ValidationSettings {
	var out form.ValidationSettings
	if v.Fields != nil {
		out.Fields = make([]form.FieldRule, len(v.Fields))
	}
	for i, r := range v.Fields {
		out.Fields[i] = form.FieldRule{Field: r.Field, Required: r.Required, Type: r.Type,
			MinLength: r.MinLength, MaxLength: r.MaxLength, Regex: r.Regex}
		if r.File != nil {
			out.Fields[i].File = &form.FileRule{Required: r.File.Required, AllowedMimeTypes: r.File.AllowedMimeTypes}
		}
	}
	return out
}

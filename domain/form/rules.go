package form

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/form/saferegex"
)

// Limits on a form's validation settings.
const (
	rulesMaxFieldRules     = 100
	rulesMaxFieldNameRunes = 200
	rulesMaxMimeTypeBytes  = 255
)

// FieldRule is one FieldValidationRule of a form's validation settings.
type FieldRule struct {
	Field     string    `json:"field"`
	Required  bool      `json:"required,omitempty"`
	Type      string    `json:"type,omitempty"` // "", "email", "url", "number"
	MinLength *int      `json:"minLength,omitempty"`
	MaxLength *int      `json:"maxLength,omitempty"`
	Regex     string    `json:"regex,omitempty"`
	File      *FileRule `json:"file,omitempty"`
}

// FileRule constrains attachments submitted under the rule's field name.
type FileRule struct {
	Required         bool     `json:"required,omitempty"`
	AllowedMimeTypes []string `json:"allowedMimeTypes,omitempty"`
}

// ValidationSettings is FieldValidationSettings: {"fields": [...]}.
type ValidationSettings struct {
	Fields []FieldRule `json:"fields"`
}

// Validate checks the settings are well formed. On the first broken rule it
// returns domain.Invalid(path, msg) where path names the field, e.g.
// "validation.fields[2].regex".
func (v ValidationSettings) Validate() error {
	if len(v.Fields) > rulesMaxFieldRules {
		return domain.Invalid("validation.fields", "at most %d field rules are allowed, got %d", rulesMaxFieldRules, len(v.Fields))
	}
	regexSteps := 0
	for i, r := range v.Fields {
		if err := rulesValidateOne(i, r); err != nil {
			return err
		}
		if r.Regex != "" {
			_, size, _ := saferegex.CompileSized(r.Regex) // rulesValidateOne compiled it already
			regexSteps += size
			// Every regex rule may meet a value of the longest length on one
			// submission: together they must fit the matching budget.
			if regexSteps*domain.MaxFieldValueBytes > domain.RegexBudget {
				return domain.Invalid(rulesPath(i, "regex"),
					"the regex rules together are too costly to check: at most %d compiled steps in all (simplify or remove some patterns)",
					domain.RegexBudget/domain.MaxFieldValueBytes)
			}
		}
		// At most 100 rules, so the quadratic scan is cheap and allocates nothing.
		for j := 0; j < i; j++ {
			if v.Fields[j].Field == r.Field {
				return domain.Invalid(rulesPath(i, "field"), "field %q already has a rule (validation.fields[%d])", r.Field, j)
			}
		}
	}
	return nil
}

// rulesPath names a property of the i-th rule, e.g. "validation.fields[2].regex".
func rulesPath(i int, sub string) string {
	return "validation.fields[" + strconv.Itoa(i) + "]." + sub
}

func rulesValidateOne(i int, r FieldRule) error {
	if strings.TrimSpace(r.Field) == "" {
		return domain.Invalid(rulesPath(i, "field"), "field name is required")
	}
	if n := utf8.RuneCountInString(r.Field); n > rulesMaxFieldNameRunes {
		return domain.Invalid(rulesPath(i, "field"), "field name must be at most %d characters, got %d", rulesMaxFieldNameRunes, n)
	}
	switch r.Type {
	case "", "email", "url", "number":
	default:
		return domain.Invalid(rulesPath(i, "type"), "type must be one of \"email\", \"url\" or \"number\", got %q", r.Type)
	}
	if r.MinLength != nil && *r.MinLength < 0 {
		return domain.Invalid(rulesPath(i, "minLength"), "minLength must not be negative, got %d", *r.MinLength)
	}
	if r.MaxLength != nil && *r.MaxLength < 0 {
		return domain.Invalid(rulesPath(i, "maxLength"), "maxLength must not be negative, got %d", *r.MaxLength)
	}
	if r.MinLength != nil && r.MaxLength != nil && *r.MinLength > *r.MaxLength {
		return domain.Invalid(rulesPath(i, "minLength"), "minLength (%d) must not be greater than maxLength (%d)", *r.MinLength, *r.MaxLength)
	}
	if r.Regex != "" {
		if _, err := saferegex.Compile(r.Regex); err != nil {
			return domain.Invalid(rulesPath(i, "regex"), "%s", err.Error())
		}
	}
	if r.File != nil {
		for j, m := range r.File.AllowedMimeTypes {
			if !rulesIsMimePattern(m) {
				return domain.Invalid(rulesPath(i, "file.allowedMimeTypes["+strconv.Itoa(j)+"]"),
					"%q is not a MIME type pattern like \"image/png\" or \"image/*\" (lowercase letters, digits and .+- only)", m)
			}
		}
	}
	return nil
}

// rulesIsMimePattern reports whether s looks like "type/subtype" or "type/*",
// each part made of lowercase letters, digits and ".+-".
func rulesIsMimePattern(s string) bool {
	if len(s) > rulesMaxMimeTypeBytes {
		return false
	}
	typ, sub, ok := strings.Cut(s, "/")
	if !ok || !rulesIsMimeToken(typ) {
		return false
	}
	return sub == "*" || rulesIsMimeToken(sub)
}

func rulesIsMimeToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '.', c == '+', c == '-':
		default:
			return false
		}
	}
	return true
}

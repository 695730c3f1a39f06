package submission

import (
	"math"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/form/saferegex"
)

// FieldError is a SubmissionValidationError: one broken rule about one field.
type FieldError struct {
	Field   string `json:"field"`
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

// Rule names of a FieldError, exactly as the spec lists them.
const (
	RuleEmail        = "email"
	RuleFileRequired = "file_required"
	RuleFileType     = "file_type"
	RuleMaxLength    = "max_length"
	RuleMinLength    = "min_length"
	RuleNumber       = "number"
	RuleRegex        = "regex"
	RuleRequired     = "required"
	RuleURL          = "url"
)

// CheckFields runs the text rules of settings against the submitted fields
// (field name -> value, repeated names already joined with commas). It returns
// one FieldError per broken rule, in rule order, at most one per field: the
// first broken check wins, checked in the order required, min_length,
// max_length, type (email/url/number), regex. An absent or blank
// (whitespace-only) non-required field skips the other checks. Lengths count
// Unicode code points, not bytes. Type checks look at the trimmed value,
// length and regex checks at the value as submitted; a regex matches anywhere
// in the value unless it is anchored with ^ and $. Rules whose regex does not
// compile are skipped (Validate keeps them out of stored settings). It returns
// nil, without allocating, when nothing is broken.
func CheckFields(settings form.ValidationSettings, fields map[string]string) []FieldError {
	var errs []FieldError
	var compiled map[string]sizedRegexp // per call; allocated on the first regex check
	budget := domain.RegexBudget
	for i := range settings.Fields {
		rule := &settings.Fields[i]
		if rule.File != nil {
			continue // a file rule: CheckFiles judges its attachments
		}
		if rulesHasError(errs, rule.Field) {
			continue // duplicate rule for a field that already failed
		}
		value := fields[rule.Field]
		if strings.TrimSpace(value) == "" {
			if rule.Required {
				errs = append(errs, FieldError{rule.Field, RuleRequired, rule.Field + " is required"})
			}
			continue
		}
		if rule.MinLength != nil || rule.MaxLength != nil {
			n := utf8.RuneCountInString(value)
			if rule.MinLength != nil && n < *rule.MinLength {
				errs = append(errs, FieldError{rule.Field, RuleMinLength,
					rule.Field + " must be at least " + rulesCharacters(*rule.MinLength)})
				continue
			}
			if rule.MaxLength != nil && n > *rule.MaxLength {
				errs = append(errs, FieldError{rule.Field, RuleMaxLength,
					rule.Field + " must be at most " + rulesCharacters(*rule.MaxLength)})
				continue
			}
		}
		switch rule.Type {
		case "email":
			if !domain.IsEmailAddress(strings.TrimSpace(value)) {
				errs = append(errs, FieldError{rule.Field, RuleEmail, rule.Field + " must be a valid email address"})
				continue
			}
		case "url":
			if !IsValidURL(value) {
				errs = append(errs, FieldError{rule.Field, RuleURL, rule.Field + " must be a valid http or https URL"})
				continue
			}
		case "number":
			if !IsNumber(value) {
				errs = append(errs, FieldError{rule.Field, RuleNumber, rule.Field + " must be a number"})
				continue
			}
		}
		if rule.Regex != "" {
			re, ok := compiled[rule.Regex]
			if !ok {
				re.re, re.size, _ = saferegex.CompileSized(rule.Regex) // nil when broken: the rule is skipped
				if compiled == nil {
					compiled = make(map[string]sizedRegexp, 4)
				}
				compiled[rule.Regex] = re
			}
			if re.re == nil {
				continue
			}
			// The submission's matching budget: rules saved before it existed
			// may exceed it on long values, which are then refused unmatched.
			if cost := len(value) * re.size; cost > budget {
				errs = append(errs, FieldError{rule.Field, RuleRegex, rule.Field + " is too long to check against its required format"})
				continue
			} else {
				budget -= cost
			}
			if !re.re.MatchString(value) {
				errs = append(errs, FieldError{rule.Field, RuleRegex, rule.Field + " does not match the required format"})
			}
		}
	}
	return errs
}

// sizedRegexp is a compiled regex rule with its program size in steps.
type sizedRegexp struct {
	re   *regexp.Regexp
	size int
}

// CheckFiles runs the file rules of settings against attachments: files maps
// a field name to the MIME types of the files submitted under it. A rule with
// file.required and no file gives RuleFileRequired; a MIME type matching none
// of allowedMimeTypes (exactly, or by a "type/*" wildcard; case-insensitive,
// parameters after ';' ignored) gives RuleFileType. At most one FieldError per
// field, in rule order; nil when nothing is broken.
func CheckFiles(settings form.ValidationSettings, files map[string][]string) []FieldError {
	var errs []FieldError
	for i := range settings.Fields {
		rule := &settings.Fields[i]
		if rule.File == nil || rulesHasError(errs, rule.Field) {
			continue
		}
		types := files[rule.Field]
		if len(types) == 0 {
			if rule.File.Required {
				errs = append(errs, FieldError{rule.Field, RuleFileRequired, rule.Field + " requires a file"})
			}
			continue
		}
		if len(rule.File.AllowedMimeTypes) == 0 {
			continue
		}
		for _, t := range types {
			if !rulesMimeAllowed(t, rule.File.AllowedMimeTypes) {
				errs = append(errs, FieldError{rule.Field, RuleFileType,
					rule.Field + " must be a file of type " + strings.Join(rule.File.AllowedMimeTypes, ", ")})
				break
			}
		}
	}
	return errs
}

// IsValidURL reports whether s (trimmed) is an absolute http or https URL
// with a host and no whitespace.
func IsValidURL(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" || strings.IndexFunc(s, unicode.IsSpace) >= 0 {
		return false
	}
	u, err := url.Parse(s)
	if err != nil || u.Opaque != "" {
		return false
	}
	return (u.Scheme == "http" || u.Scheme == "https") && u.Hostname() != ""
}

// IsNumber reports whether s (trimmed) parses with strconv.ParseFloat to a
// finite number; "NaN" and "Inf" are rejected.
func IsNumber(s string) bool {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return err == nil && !math.IsNaN(f) && !math.IsInf(f, 0)
}

// rulesHasError reports whether errs already holds an error for field. The
// list is short, so a scan beats allocating a set.
func rulesHasError(errs []FieldError, field string) bool {
	for i := range errs {
		if errs[i].Field == field {
			return true
		}
	}
	return false
}

// rulesCharacters renders "1 character" or "n characters".
func rulesCharacters(n int) string {
	if n == 1 {
		return "1 character"
	}
	return strconv.Itoa(n) + " characters"
}

// rulesMimeAllowed reports whether the MIME type t matches one of the allowed
// patterns, ignoring case and parameters after ';'. It does not allocate.
func rulesMimeAllowed(t string, allowed []string) bool {
	if i := strings.IndexByte(t, ';'); i >= 0 {
		t = t[:i]
	}
	t = strings.TrimSpace(t)
	slash := strings.IndexByte(t, '/')
	if slash <= 0 || slash == len(t)-1 {
		return false // not type/subtype: matches nothing
	}
	for _, a := range allowed {
		a = strings.TrimSpace(a)
		if strings.EqualFold(a, t) {
			return true
		}
		if prefix, ok := strings.CutSuffix(a, "/*"); ok && prefix != "" &&
			len(prefix) == slash && strings.EqualFold(prefix, t[:slash]) {
			return true
		}
	}
	return false
}

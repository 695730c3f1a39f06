package submission

import (
	"strings"
	"testing"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/form"
)

// FuzzCheckFields builds rules from fuzz inputs (not necessarily valid ones)
// and checks that CheckFields and CheckFiles never panic, only report the nine
// rule names, report at most one error per field, and leave blank optional
// fields alone.
func FuzzCheckFields(f *testing.F) {
	f.Add("email", true, uint8(1), int16(3), int16(254), "", "ada@example.com", false, "image/*", "image/png")
	f.Add("code", false, uint8(0), int16(-1), int16(-1), `^[A-Z]{2}\d{4}$`, "AB12", true, "", "")
	f.Add("age", false, uint8(3), int16(0), int16(3), `^\d+$`, "NaN", false, "application/pdf", "text/plain; charset=utf-8")
	f.Add("name", true, uint8(0), int16(5), int16(2), `(a|b)`, " \t ", true, "image/*", "")
	f.Add("site", false, uint8(2), int16(-1), int16(10), `[a-z]+`, "https://example.com", false, "", "IMAGE/PNG")
	valid := map[string]bool{
		RuleEmail: true, RuleFileRequired: true, RuleFileType: true, RuleMaxLength: true, RuleMinLength: true,
		RuleNumber: true, RuleRegex: true, RuleRequired: true, RuleURL: true,
	}
	f.Fuzz(func(t *testing.T, field string, required bool, typ uint8, minLen, maxLen int16,
		regex, value string, fileRequired bool, allowed, mime string) {
		types := [...]string{"", "email", "url", "number", "bogus"}
		rule := form.FieldRule{
			Field:    field,
			Required: required,
			Type:     types[int(typ)%len(types)],
			Regex:    regex,
			File:     &form.FileRule{Required: fileRequired, AllowedMimeTypes: strings.Split(allowed, ",")},
		}
		if minLen >= 0 {
			n := int(minLen)
			rule.MinLength = &n
		}
		if maxLen >= 0 {
			n := int(maxLen)
			rule.MaxLength = &n
		}
		settings := form.ValidationSettings{Fields: []form.FieldRule{
			rule,
			{Field: field, Regex: regex, Type: "number"}, // duplicate: still one error per field
			{Field: "other", Required: true, Regex: regex},
		}}
		fields := map[string]string{field: value, "other": value}
		var files map[string][]string
		if mime != "" {
			files = map[string][]string{field: strings.Split(mime, ",")}
		}

		checkErrs := func(kind string, errs []FieldError) {
			seen := map[string]bool{}
			for _, e := range errs {
				if !valid[e.Rule] {
					t.Fatalf("%s returned unknown rule %q", kind, e.Rule)
				}
				if seen[e.Field] {
					t.Fatalf("%s returned two errors for field %q: %+v", kind, e.Field, errs)
				}
				seen[e.Field] = true
				if e.Message == "" {
					t.Fatalf("%s returned an empty message: %+v", kind, e)
				}
			}
		}
		fieldErrs := CheckFields(settings, fields)
		checkErrs("CheckFields", fieldErrs)
		if strings.TrimSpace(value) == "" && !required && field != "other" {
			for _, e := range fieldErrs {
				if e.Field == field {
					t.Fatalf("blank optional field %q got %+v", field, e)
				}
			}
		}
		checkErrs("CheckFiles", CheckFiles(settings, files))
		domain.IsEmailAddress(value)
		IsValidURL(value)
		IsNumber(value)
	})
}

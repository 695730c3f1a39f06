package form

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/formd/formd/domain"
)

func rulesIntPtr(n int) *int { return &n }

func TestValidationSettingsValidate(t *testing.T) {
	many := make([]FieldRule, 101)
	for i := range many {
		many[i] = FieldRule{Field: "f" + strings.Repeat("x", i)}
	}
	tests := []struct {
		name      string
		fields    []FieldRule
		wantField string // "" means valid
		wantMsg   string
	}{
		{name: "empty", fields: nil},
		{name: "full valid rule", fields: []FieldRule{
			{Field: "email", Required: true, Type: "email", MinLength: rulesIntPtr(3), MaxLength: rulesIntPtr(254)},
			{Field: "code", Regex: `^[A-Z]{2}\d{4}$`},
			{Field: "site", Type: "url"},
			{Field: "age", Type: "number", MinLength: rulesIntPtr(0), MaxLength: rulesIntPtr(0)},
			{Field: "cv", File: &FileRule{Required: true, AllowedMimeTypes: []string{"application/pdf", "image/*", "application/vnd.ms-excel", "image/svg+xml"}}},
		}},
		{name: "100 rules", fields: many[:100]},
		{name: "101 rules", fields: many, wantField: "validation.fields", wantMsg: "at most 100"},
		{name: "empty field", fields: []FieldRule{{Field: ""}}, wantField: "validation.fields[0].field", wantMsg: "required"},
		{name: "blank field", fields: []FieldRule{{Field: "a"}, {Field: "  "}}, wantField: "validation.fields[1].field", wantMsg: "required"},
		{name: "200 char field", fields: []FieldRule{{Field: strings.Repeat("é", 200)}}},
		{name: "201 char field", fields: []FieldRule{{Field: strings.Repeat("a", 201)}}, wantField: "validation.fields[0].field", wantMsg: "at most 200"},
		{name: "duplicate field", fields: []FieldRule{{Field: "a"}, {Field: "b"}, {Field: "a"}}, wantField: "validation.fields[2].field", wantMsg: "already has a rule"},
		{name: "bad type", fields: []FieldRule{{Field: "a", Type: "phone"}}, wantField: "validation.fields[0].type", wantMsg: "must be one of"},
		{name: "uppercase type", fields: []FieldRule{{Field: "a", Type: "Email"}}, wantField: "validation.fields[0].type"},
		{name: "negative min", fields: []FieldRule{{Field: "a", MinLength: rulesIntPtr(-1)}}, wantField: "validation.fields[0].minLength", wantMsg: "negative"},
		{name: "negative max", fields: []FieldRule{{Field: "a", MaxLength: rulesIntPtr(-5)}}, wantField: "validation.fields[0].maxLength", wantMsg: "negative"},
		{name: "min above max", fields: []FieldRule{{Field: "a", MinLength: rulesIntPtr(5), MaxLength: rulesIntPtr(4)}}, wantField: "validation.fields[0].minLength", wantMsg: "greater than maxLength"},
		{name: "min equals max", fields: []FieldRule{{Field: "a", MinLength: rulesIntPtr(4), MaxLength: rulesIntPtr(4)}}},
		{name: "bad regex", fields: []FieldRule{{Field: "a"}, {Field: "b"}, {Field: "c", Regex: "(a|b)"}}, wantField: "validation.fields[2].regex", wantMsg: "groups are not allowed"},
		{name: "bad mime no slash", fields: []FieldRule{{Field: "a", File: &FileRule{AllowedMimeTypes: []string{"image/png", "pdf"}}}}, wantField: "validation.fields[0].file.allowedMimeTypes[1]", wantMsg: "not a MIME type pattern"},
		{name: "bad mime uppercase", fields: []FieldRule{{Field: "a", File: &FileRule{AllowedMimeTypes: []string{"Image/PNG"}}}}, wantField: "validation.fields[0].file.allowedMimeTypes[0]"},
		{name: "bad mime star type", fields: []FieldRule{{Field: "a", File: &FileRule{AllowedMimeTypes: []string{"*/*"}}}}, wantField: "validation.fields[0].file.allowedMimeTypes[0]"},
		{name: "bad mime empty subtype", fields: []FieldRule{{Field: "a", File: &FileRule{AllowedMimeTypes: []string{"image/"}}}}, wantField: "validation.fields[0].file.allowedMimeTypes[0]"},
		{name: "bad mime params", fields: []FieldRule{{Field: "a", File: &FileRule{AllowedMimeTypes: []string{"text/plain; charset=utf-8"}}}}, wantField: "validation.fields[0].file.allowedMimeTypes[0]"},
		{name: "bad mime two slashes", fields: []FieldRule{{Field: "a", File: &FileRule{AllowedMimeTypes: []string{"a/b/c"}}}}, wantField: "validation.fields[0].file.allowedMimeTypes[0]"},
		{name: "bad mime partial wildcard", fields: []FieldRule{{Field: "a", File: &FileRule{AllowedMimeTypes: []string{"image/p*"}}}}, wantField: "validation.fields[0].file.allowedMimeTypes[0]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidationSettings{Fields: tt.fields}.Validate()
			if tt.wantField == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			var inv *domain.InvalidInputError
			if !errors.As(err, &inv) {
				t.Fatalf("Validate() = %v (%T), want *domain.InvalidInputError", err, err)
			}
			if inv.Field != tt.wantField {
				t.Errorf("field = %q, want %q (message %q)", inv.Field, tt.wantField, inv.Message)
			}
			if !strings.Contains(inv.Message, tt.wantMsg) {
				t.Errorf("message = %q, want it to contain %q", inv.Message, tt.wantMsg)
			}
		})
	}
}

func TestValidationSettingsJSON(t *testing.T) {
	in := `{"fields":[{"field":"a","required":true,"type":"email","minLength":0,"maxLength":10,"regex":"^x$","file":{"required":true,"allowedMimeTypes":["image/*"]}},{"field":"b"}]}`
	var v ValidationSettings
	if err := json.Unmarshal([]byte(in), &v); err != nil {
		t.Fatal(err)
	}
	if v.Fields[0].MinLength == nil || *v.Fields[0].MinLength != 0 {
		t.Fatalf("minLength 0 must survive decoding as a non-nil pointer, got %v", v.Fields[0].MinLength)
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != in {
		t.Fatalf("round trip:\n got %s\nwant %s", out, in)
	}
}

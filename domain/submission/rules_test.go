package submission

import (
	"reflect"
	"testing"

	"github.com/formd/formd/domain/form"
)

func rulesTestInt(n int) *int { return &n }

func TestCheckFields(t *testing.T) {
	tests := []struct {
		name   string
		rules  []form.FieldRule
		fields map[string]string
		want   []FieldError // nil means no errors
	}{
		{name: "no rules", fields: map[string]string{"a": "b"}},
		{name: "required missing",
			rules: []form.FieldRule{{Field: "name", Required: true}},
			want:  []FieldError{{"name", RuleRequired, "name is required"}}},
		{name: "required whitespace only",
			rules:  []form.FieldRule{{Field: "name", Required: true, MinLength: rulesTestInt(1)}},
			fields: map[string]string{"name": " \t\n\u00a0"},
			want:   []FieldError{{"name", RuleRequired, "name is required"}}},
		{name: "required present",
			rules:  []form.FieldRule{{Field: "name", Required: true}},
			fields: map[string]string{"name": "Ada"}},
		{name: "optional absent skips everything",
			rules: []form.FieldRule{{Field: "email", Type: "email", MinLength: rulesTestInt(5), Regex: `^x$`}}},
		{name: "optional blank skips everything",
			rules:  []form.FieldRule{{Field: "email", Type: "email", MinLength: rulesTestInt(5), Regex: `^x$`}},
			fields: map[string]string{"email": "   "}},
		{name: "min length",
			rules:  []form.FieldRule{{Field: "message", MinLength: rulesTestInt(10)}},
			fields: map[string]string{"message": "too short"},
			want:   []FieldError{{"message", RuleMinLength, "message must be at least 10 characters"}}},
		{name: "min length singular",
			rules:  []form.FieldRule{{Field: "x", MinLength: rulesTestInt(1), Required: false}},
			fields: map[string]string{"x": "a"}},
		{name: "min length counts code points",
			rules:  []form.FieldRule{{Field: "name", MinLength: rulesTestInt(4)}},
			fields: map[string]string{"name": "ééé"}, // 6 bytes, 3 code points
			want:   []FieldError{{"name", RuleMinLength, "name must be at least 4 characters"}}},
		{name: "max length counts code points",
			rules:  []form.FieldRule{{Field: "name", MaxLength: rulesTestInt(3)}},
			fields: map[string]string{"name": "日本語"}}, // 9 bytes, 3 code points
		{name: "max length exceeded",
			rules:  []form.FieldRule{{Field: "name", MaxLength: rulesTestInt(1)}},
			fields: map[string]string{"name": "😀😀"},
			want:   []FieldError{{"name", RuleMaxLength, "name must be at most 1 character"}}},
		{name: "email invalid",
			rules:  []form.FieldRule{{Field: "email", Type: "email"}},
			fields: map[string]string{"email": "not-an-email"},
			want:   []FieldError{{"email", RuleEmail, "email must be a valid email address"}}},
		{name: "email valid with surrounding space",
			rules:  []form.FieldRule{{Field: "email", Type: "email"}},
			fields: map[string]string{"email": " ada@example.com "}},
		{name: "url invalid",
			rules:  []form.FieldRule{{Field: "site", Type: "url"}},
			fields: map[string]string{"site": "ftp://example.com"},
			want:   []FieldError{{"site", RuleURL, "site must be a valid http or https URL"}}},
		{name: "url valid",
			rules:  []form.FieldRule{{Field: "site", Type: "url"}},
			fields: map[string]string{"site": "https://example.com/a?b=c"}},
		{name: "number NaN",
			rules:  []form.FieldRule{{Field: "age", Type: "number"}},
			fields: map[string]string{"age": "NaN"},
			want:   []FieldError{{"age", RuleNumber, "age must be a number"}}},
		{name: "number valid",
			rules:  []form.FieldRule{{Field: "age", Type: "number"}},
			fields: map[string]string{"age": " -4.5e2 "}},
		{name: "regex mismatch",
			rules:  []form.FieldRule{{Field: "code", Regex: `^[A-Z]{2}\d{4}$`}},
			fields: map[string]string{"code": "AB12"},
			want:   []FieldError{{"code", RuleRegex, "code does not match the required format"}}},
		{name: "regex match unanchored",
			rules:  []form.FieldRule{{Field: "mail", Regex: `[a-z]+@example\.com`}},
			fields: map[string]string{"mail": "Contact: bob@example.com"}},
		{name: "broken regex skipped",
			rules:  []form.FieldRule{{Field: "code", Regex: `(a|b)`}},
			fields: map[string]string{"code": "zzz"}},
		{name: "order: min length before type",
			rules:  []form.FieldRule{{Field: "email", Type: "email", MinLength: rulesTestInt(50)}},
			fields: map[string]string{"email": "x"},
			want:   []FieldError{{"email", RuleMinLength, "email must be at least 50 characters"}}},
		{name: "order: max length before type",
			rules:  []form.FieldRule{{Field: "n", Type: "number", MaxLength: rulesTestInt(2)}},
			fields: map[string]string{"n": "abc"},
			want:   []FieldError{{"n", RuleMaxLength, "n must be at most 2 characters"}}},
		{name: "order: type before regex",
			rules:  []form.FieldRule{{Field: "n", Type: "number", Regex: `^\d$`}},
			fields: map[string]string{"n": "x"},
			want:   []FieldError{{"n", RuleNumber, "n must be a number"}}},
		{name: "several fields in rule order, shared regex",
			rules: []form.FieldRule{
				{Field: "b", Required: true},
				{Field: "a", Regex: `^\d+$`},
				{Field: "c", Regex: `^\d+$`},
				{Field: "d", Regex: `^\d+$`},
			},
			fields: map[string]string{"a": "x", "c": "1", "d": "y"},
			want: []FieldError{
				{"b", RuleRequired, "b is required"},
				{"a", RuleRegex, "a does not match the required format"},
				{"d", RuleRegex, "d does not match the required format"},
			}},
		{name: "duplicate rules give one error per field",
			rules:  []form.FieldRule{{Field: "a", Required: true}, {Field: "a", MinLength: rulesTestInt(3)}},
			fields: map[string]string{},
			want:   []FieldError{{"a", RuleRequired, "a is required"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CheckFields(form.ValidationSettings{Fields: tt.rules}, tt.fields)
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("CheckFields() =\n  %+v\nwant\n  %+v", got, tt.want)
			}
		})
	}
}

func TestCheckFiles(t *testing.T) {
	images := &form.FileRule{Required: true, AllowedMimeTypes: []string{"image/*", "application/pdf"}}
	tests := []struct {
		name  string
		rules []form.FieldRule
		files map[string][]string
		want  []FieldError
	}{
		{name: "no rules", files: map[string][]string{"a": {"x/y"}}},
		{name: "text-only rule ignored", rules: []form.FieldRule{{Field: "a", Required: true}}},
		{name: "required missing",
			rules: []form.FieldRule{{Field: "cv", File: &form.FileRule{Required: true}}},
			files: map[string][]string{"cv": {}},
			want:  []FieldError{{"cv", RuleFileRequired, "cv requires a file"}}},
		{name: "optional missing",
			rules: []form.FieldRule{{Field: "cv", File: &form.FileRule{AllowedMimeTypes: []string{"application/pdf"}}}}},
		{name: "any type when list empty",
			rules: []form.FieldRule{{Field: "cv", File: &form.FileRule{Required: true}}},
			files: map[string][]string{"cv": {"application/x-whatever"}}},
		{name: "wildcard and exact",
			rules: []form.FieldRule{{Field: "pics", File: images}},
			files: map[string][]string{"pics": {"image/png", "IMAGE/JPEG", "application/pdf; name=x.pdf", "image/svg+xml"}}},
		{name: "wildcard needs same top-level type",
			rules: []form.FieldRule{{Field: "pics", File: images}},
			files: map[string][]string{"pics": {"image/png", "imagex/png"}},
			want:  []FieldError{{"pics", RuleFileType, "pics must be a file of type image/*, application/pdf"}}},
		{name: "wrong type",
			rules: []form.FieldRule{{Field: "pics", File: images}},
			files: map[string][]string{"pics": {"text/html"}},
			want:  []FieldError{{"pics", RuleFileType, "pics must be a file of type image/*, application/pdf"}}},
		{name: "bare type is no match",
			rules: []form.FieldRule{{Field: "pics", File: images}},
			files: map[string][]string{"pics": {"image"}},
			want:  []FieldError{{"pics", RuleFileType, "pics must be a file of type image/*, application/pdf"}}},
		{name: "empty type is no match",
			rules: []form.FieldRule{{Field: "pics", File: images}},
			files: map[string][]string{"pics": {""}},
			want:  []FieldError{{"pics", RuleFileType, "pics must be a file of type image/*, application/pdf"}}},
		{name: "one error per field, rule order",
			rules: []form.FieldRule{
				{Field: "b", File: &form.FileRule{Required: true}},
				{Field: "a", File: &form.FileRule{AllowedMimeTypes: []string{"text/plain"}}},
			},
			files: map[string][]string{"a": {"image/png", "image/gif"}},
			want: []FieldError{
				{"b", RuleFileRequired, "b requires a file"},
				{"a", RuleFileType, "a must be a file of type text/plain"},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CheckFiles(form.ValidationSettings{Fields: tt.rules}, tt.files)
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("CheckFiles() =\n  %+v\nwant\n  %+v", got, tt.want)
			}
		})
	}
}

func TestIsValidURL(t *testing.T) {
	good := []string{"http://example.com", "https://example.com/a/b?c=d#e", "HTTPS://EXAMPLE.COM", "https://[::1]:8080/", " https://x.io "}
	bad := []string{"", "example.com", "/relative", "ftp://example.com", "mailto:a@b.c", "http://", "http:///x",
		"http://:80", "http:example.com", "https://exa mple.com", "https://example.com/a b", "javascript:alert(1)"}
	for _, s := range good {
		if !IsValidURL(s) {
			t.Errorf("IsValidURL(%q) = false, want true", s)
		}
	}
	for _, s := range bad {
		if IsValidURL(s) {
			t.Errorf("IsValidURL(%q) = true, want false", s)
		}
	}
}

func TestIsNumber(t *testing.T) {
	good := []string{"0", "-1", "3.14", " 42 ", "1e3", "+.5"}
	bad := []string{"", " ", "abc", "1,5", "NaN", "nan", "Inf", "-Infinity", "+inf", "1e400", "12abc"}
	for _, s := range good {
		if !IsNumber(s) {
			t.Errorf("IsNumber(%q) = false, want true", s)
		}
	}
	for _, s := range bad {
		if IsNumber(s) {
			t.Errorf("IsNumber(%q) = true, want false", s)
		}
	}
}

func TestCheckAllocations(t *testing.T) {
	fields := map[string]string{"name": "Ada", "email": "ada@example.com"}
	none := form.ValidationSettings{}
	if n := testing.AllocsPerRun(100, func() { CheckFields(none, fields) }); n != 0 {
		t.Errorf("CheckFields with no rules allocates %v times, want 0", n)
	}
	if n := testing.AllocsPerRun(100, func() { CheckFiles(none, nil) }); n != 0 {
		t.Errorf("CheckFiles with no rules allocates %v times, want 0", n)
	}
	passing := form.ValidationSettings{Fields: []form.FieldRule{{Field: "name", Required: true, MaxLength: rulesTestInt(10)}}}
	if n := testing.AllocsPerRun(100, func() { CheckFields(passing, fields) }); n != 0 {
		t.Errorf("CheckFields with passing regex-free rules allocates %v times, want 0", n)
	}
	files := form.ValidationSettings{Fields: []form.FieldRule{{Field: "f", File: &form.FileRule{AllowedMimeTypes: []string{"image/*"}}}}}
	submitted := map[string][]string{"f": {"IMAGE/PNG; q=1"}}
	if n := testing.AllocsPerRun(100, func() { CheckFiles(files, submitted) }); n != 0 {
		t.Errorf("CheckFiles with a passing file allocates %v times, want 0", n)
	}
}

func TestCheckFieldsLeavesFileRulesToCheckFiles(t *testing.T) {
	settings := form.ValidationSettings{Fields: []form.FieldRule{
		{Field: "cv", Required: true, File: &form.FileRule{Required: true}},
	}}
	if errs := CheckFields(settings, map[string]string{}); len(errs) != 0 {
		t.Fatalf("a file rule must not fail text checks, got %+v", errs)
	}
	if errs := CheckFiles(settings, map[string][]string{}); len(errs) != 1 || errs[0].Rule != RuleFileRequired {
		t.Fatalf("the missing file must be reported by CheckFiles, got %+v", errs)
	}
}

func TestHoneypotFilledJudgesEachPartOfARepeatedField(t *testing.T) {
	for v, want := range map[string]bool{
		"": false, ", ": false, "false, 0": false, "off": false,
		"on": true, ", on": true, "yes, ": true, "1": true,
	} {
		if got := HoneypotFilled(v); got != want {
			t.Errorf("HoneypotFilled(%q) = %v, want %v", v, got, want)
		}
	}
}

package httpapi

import (
	"strings"
	"unicode/utf8"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/submission"
)

// fieldSet collects fields in submitted order, joining repeated names with
// commas as browsers send checkbox groups. Repeats are gathered and joined
// once (result), so many repeats of one name cost linear, not quadratic, work.
type fieldSet struct {
	names  []string
	values [][]string
	sizes  []int // joined length of each field so far
	index  map[string]int
}

func (s *fieldSet) add(name, value string) error {
	if name == "" {
		return badRequest("Field names must not be empty.")
	}
	if len(name) > MaxFieldNameBytes {
		return badRequest("Field name %q is too long: at most %d bytes.", domain.Truncate(name, 20)+"…", MaxFieldNameBytes)
	}
	if err := checkFieldName(name); err != nil {
		return err
	}
	if err := checkText(name, value); err != nil {
		return err
	}
	if i, ok := s.index[name]; ok {
		size := s.sizes[i] + len(", ") + len(value)
		if size > MaxFieldValueBytes {
			return badRequest("Field %s is too long: at most %d bytes.", name, MaxFieldValueBytes)
		}
		s.sizes[i] = size
		s.values[i] = append(s.values[i], value)
		return nil
	}
	if len(value) > MaxFieldValueBytes {
		return badRequest("Field %s is too long: at most %d bytes.", name, MaxFieldValueBytes)
	}
	if len(s.names) >= MaxFields {
		return badRequest("Too many fields: at most %d.", MaxFields)
	}
	if s.index == nil {
		s.index = map[string]int{}
	}
	s.index[name] = len(s.names)
	s.names = append(s.names, name)
	s.values = append(s.values, []string{value})
	s.sizes = append(s.sizes, len(value))
	return nil
}

// result returns the fields, each repeated name joined with ", ".
func (s *fieldSet) result() []submission.Field {
	if len(s.names) == 0 {
		return nil
	}
	fields := make([]submission.Field, len(s.names))
	for i, name := range s.names {
		fields[i] = submission.Field{Name: name, Value: strings.Join(s.values[i], ", ")}
	}
	return fields
}

// checkFieldName refuses names with any control character (tab and line
// breaks included): a name is printed as a line label in notification
// mails, so "a\r\nX-Field: b" must never become a line of its own. The
// error names the field with its control characters escaped.
func checkFieldName(name string) error {
	if !utf8.ValidString(name) {
		return badRequest("Field name %q is not valid UTF-8 text.", name)
	}
	if strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }) {
		return badRequest("Field name %q contains control characters; names must be printable text.", name)
	}
	return nil
}

// checkText refuses text that is not UTF-8 or carries control characters
// other than tab and line breaks: binary data is not a form field.
func checkText(field, s string) error {
	if !utf8.ValidString(s) {
		return badRequest("Field %s is not valid UTF-8 text.", safeName(field))
	}
	for _, r := range s {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0x7f {
			return badRequest("Field %s contains binary data; only text is accepted.", safeName(field))
		}
	}
	return nil
}

func safeName(name string) string {
	if !utf8.ValidString(name) || strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return "(unreadable name)"
	}
	return name
}

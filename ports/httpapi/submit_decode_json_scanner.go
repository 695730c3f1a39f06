package httpapi

import (
	"encoding/json"
	"strings"
)

// flatJSONFields reads a valid JSON object whose values are scalars or
// arrays of scalars, the shape of nearly every JSON submission, passing each
// field's values to add in order as decodeJSONFieldsGeneral does, and
// returns add's first error. It reports flat false, having added nothing or
// something a fresh fieldSet can redo, for any other body: the general path
// then decodes it and words its error. json.Decoder's Token allocates for
// every token, a cost every JSON submission would pay (see
// docs/performance.md).
func flatJSONFields(raw []byte, add func(name, value string) error) (flat bool, err error) {
	if !json.Valid(raw) {
		return false, nil
	}
	r := jsonReader{raw: raw}
	if r.next() != '{' {
		return false, nil
	}
	r.i++
	if r.next() == '}' {
		return true, nil
	}
	var values []string
	for {
		name, ok := r.str()
		if !ok {
			return false, nil
		}
		r.next() // the ':'
		r.i++
		values = values[:0]
		if r.next() == '[' {
			r.i++
			for r.next() != ']' {
				v, ok := r.scalar()
				if !ok {
					return false, nil
				}
				values = append(values, v)
				if r.next() == ',' {
					r.i++
				}
			}
			r.i++ // the ']'
		} else {
			v, ok := r.scalar()
			if !ok {
				return false, nil
			}
			values = append(values, v)
		}
		if len(values) == 0 {
			values = append(values, "")
		}
		for _, v := range values {
			if err := add(name, v); err != nil {
				return true, err
			}
		}
		if r.next() == '}' {
			return true, nil
		}
		r.i++ // the ','
		r.next()
	}
}

// jsonReader walks a document json.Valid accepted.
type jsonReader struct {
	raw []byte
	i   int
}

// next skips white space and returns the byte it stops at.
func (r *jsonReader) next() byte {
	for r.i < len(r.raw) {
		switch r.raw[r.i] {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return r.raw[r.i]
		}
	}
	return 0
}

// str reads the string at r.i.
func (r *jsonReader) str() (string, bool) {
	if r.next() != '"' {
		return "", false
	}
	start, escaped := r.i, false
	for r.i++; r.raw[r.i] != '"'; r.i++ {
		if r.raw[r.i] == '\\' {
			escaped = true
			r.i++
		}
	}
	r.i++
	if !escaped {
		return string(r.raw[start+1 : r.i-1]), true
	}
	var s string
	err := json.Unmarshal(r.raw[start:r.i], &s)
	return s, err == nil
}

// scalar reads the value at r.i as jsonScalar words it; an object or an
// array is not one.
func (r *jsonReader) scalar() (string, bool) {
	switch c := r.next(); {
	case c == '"':
		return r.str()
	case c == 't':
		r.i += len("true")
		return "true", true
	case c == 'f':
		r.i += len("false")
		return "false", true
	case c == 'n':
		r.i += len("null")
		return "", true
	case c == '-' || c >= '0' && c <= '9':
		start := r.i
		for r.i < len(r.raw) && strings.IndexByte("+-0123456789.eE", r.raw[r.i]) >= 0 {
			r.i++
		}
		return string(r.raw[start:r.i]), true
	}
	return "", false
}

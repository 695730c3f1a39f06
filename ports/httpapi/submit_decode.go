package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
)

// Submission limits (docs/submitting.md: Limits).
const (
	MaxSubmissionBytes = 256 << 10
	MaxFields          = 100
	MaxFieldNameBytes  = 100
	MaxFieldValueBytes = domain.MaxFieldValueBytes
	// MaxMultipartBytes bounds a multipart body: the fields' own limit plus
	// the server-wide ceiling of the files together, plus part headers.
	MaxMultipartBytes = MaxSubmissionBytes + form.MaxTotalFileBytes + 64<<10
	// maxFiles bounds the file parts read from one body; each one past the
	// server-wide ceiling is counted, not kept, so the count gate can refuse
	// it with the form's own message.
	maxFiles = 100
)

// decodeError is a client error in a submission body: always a 4xx.
type decodeError struct {
	status  int
	message string
	// retryAfter, when set, is sent as Retry-After (a 429).
	retryAfter time.Duration
}

func (e *decodeError) Error() string { return e.message }

func badRequest(format string, args ...any) error {
	return &decodeError{status: http.StatusBadRequest, message: fmt.Sprintf(format, args...)}
}

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

// decodeSubmission reads a submission body of any accepted content type;
// the files of a multipart body go through in, which a multipart body needs.
func decodeSubmission(r *http.Request, in *fileIntake) ([]submission.Field, []application.UploadedFile, error) {
	mediaType, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		return nil, nil, badRequest("Content-Type must be application/json, application/x-www-form-urlencoded or multipart/form-data.")
	}
	if cs := strings.ToLower(params["charset"]); cs != "" && cs != "utf-8" && cs != "utf8" {
		return nil, nil, badRequest("Only UTF-8 bodies are accepted (charset=%s was sent).", safeName(cs))
	}
	if mediaType == "multipart/form-data" {
		return decodeMultipart(http.MaxBytesReader(nil, r.Body, MaxMultipartBytes), params["boundary"], in)
	}
	body := http.MaxBytesReader(nil, r.Body, MaxSubmissionBytes)
	switch mediaType {
	case "application/json":
		raw, err := readAll(body)
		if err != nil {
			return nil, nil, err
		}
		fields, err := decodeJSONFields(raw)
		return fields, nil, err
	case "application/x-www-form-urlencoded":
		raw, err := readAll(body)
		if err != nil {
			return nil, nil, err
		}
		fields, err := decodeURLEncoded(string(raw))
		return fields, nil, err
	}
	return nil, nil, badRequest("Content-Type must be application/json, application/x-www-form-urlencoded or multipart/form-data.")
}

func readAll(r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, bodyError(err)
	}
	return b, nil
}

func bodyError(err error) error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		if tooBig.Limit == MaxMultipartBytes {
			return &decodeError{status: http.StatusRequestEntityTooLarge, message: fmt.Sprintf(
				"Submission is too large: at most %d KiB of fields and %d MiB of files.", MaxSubmissionBytes>>10, form.MaxTotalFileBytes>>20)}
		}
		return &decodeError{status: http.StatusRequestEntityTooLarge, message: fmt.Sprintf("Submission is too large: at most %d KiB.", MaxSubmissionBytes>>10)}
	}
	if errors.Is(err, errBodyTooSlow) {
		return &decodeError{status: http.StatusRequestTimeout, message: errBodyTooSlow.Error()}
	}
	return badRequest("The request body could not be read.")
}

// decodeJSONFields reads a JSON object in order. Values may be strings,
// numbers (kept as written), booleans, null (empty) or lists of those
// (joined with commas); nested objects are refused.
func decodeJSONFields(raw []byte) ([]submission.Field, error) {
	if !utf8.Valid(raw) {
		return nil, badRequest("Request body is not valid UTF-8.")
	}
	var set fieldSet
	if flat, err := flatJSONFields(raw, set.add); flat {
		if err != nil {
			return nil, err
		}
		return set.result(), nil
	}
	return decodeJSONFieldsGeneral(raw)
}

// decodeJSONFieldsGeneral is decodeJSONFields for any valid UTF-8 body,
// with a json.Decoder: it gives every error its message.
func decodeJSONFieldsGeneral(raw []byte) ([]submission.Field, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	invalid := badRequest("Request body is not valid JSON: a JSON object of fields is required.")
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, invalid
	}
	var set fieldSet
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, invalid
		}
		name, _ := t.(string)
		values, err := jsonValues(dec, name)
		if err != nil {
			return nil, err
		}
		for _, v := range values {
			if err := set.add(name, v); err != nil {
				return nil, err
			}
		}
		if len(values) == 0 {
			if err := set.add(name, ""); err != nil {
				return nil, err
			}
		}
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return nil, invalid
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, badRequest("Request body has data after the JSON object.")
	}
	return set.result(), nil
}

func jsonValues(dec *json.Decoder, name string) ([]string, error) {
	t, err := dec.Token()
	if err != nil {
		return nil, badRequest("Request body is not valid JSON.")
	}
	if t == json.Delim('[') {
		var out []string
		for dec.More() {
			t, err := dec.Token()
			if err != nil {
				return nil, badRequest("Request body is not valid JSON.")
			}
			v, ok := jsonScalar(t)
			if !ok {
				return nil, badRequest("Field %s must be a string, number, boolean or a list of them.", safeName(name))
			}
			out = append(out, v)
		}
		if _, err := dec.Token(); err != nil {
			return nil, badRequest("Request body is not valid JSON.")
		}
		return out, nil
	}
	v, ok := jsonScalar(t)
	if !ok {
		return nil, badRequest("Field %s must be a string, number, boolean or a list of them.", safeName(name))
	}
	return []string{v}, nil
}

func jsonScalar(t json.Token) (string, bool) {
	switch v := t.(type) {
	case string:
		return v, true
	case json.Number:
		return v.String(), true
	case bool:
		if v {
			return "true", true
		}
		return "false", true
	case nil:
		return "", true
	}
	return "", false
}

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

// decodeURLEncoded parses a urlencoded body in order.
func decodeURLEncoded(raw string) ([]submission.Field, error) {
	var set fieldSet
	for _, pair := range strings.Split(raw, "&") {
		if pair == "" {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		name, err1 := url.QueryUnescape(k)
		value, err2 := url.QueryUnescape(v)
		if err1 != nil || err2 != nil {
			return nil, badRequest("Request body is not valid application/x-www-form-urlencoded data.")
		}
		if err := set.add(name, value); err != nil {
			return nil, err
		}
	}
	return set.result(), nil
}

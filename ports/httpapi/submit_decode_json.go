package httpapi

import (
	"bytes"
	"encoding/json"
	"io"
	"unicode/utf8"

	"github.com/formd/formd/domain/submission"
)

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

package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"testing"
	"unicode/utf8"
)

// flatReference reads body with encoding/json as the scanner is meant to:
// the name and value pairs of a flat object (an empty list one empty value),
// or flat false for anything else.
func flatReference(body []byte) (pairs []string, flat bool) {
	if !json.Valid(body) {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if t, _ := dec.Token(); t != json.Delim('{') {
		return nil, false
	}
	for dec.More() {
		t, _ := dec.Token()
		name := t.(string)
		t, _ = dec.Token()
		if t != json.Delim('[') {
			v, ok := jsonScalar(t)
			if !ok {
				return nil, false
			}
			pairs = append(pairs, name, v)
			continue
		}
		n := 0
		for dec.More() {
			t, _ := dec.Token()
			v, ok := jsonScalar(t)
			if !ok {
				return nil, false
			}
			pairs, n = append(pairs, name, v), n+1
		}
		_, _ = dec.Token() // the ']'
		if n == 0 {
			pairs = append(pairs, name, "")
		}
	}
	return pairs, true
}

// The hand-written scanner (flatJSONFields) reads every UTF-8 body as
// encoding/json does: the same pairs of a flat object, in order, and flat
// false for any other body, valid JSON or not. Other bytes never reach it
// (decodeJSONFields refuses them first, where encoding/json would replace
// them), but it must not panic on them either. fieldSet's limits play no
// part here.
func FuzzJSONScannerReadsWhatEncodingJSONReads(f *testing.F) {
	for _, seed := range []string{
		`{"access_key":"k","name":"Ada"}`, `{"n":-1.5e+3,"t":true,"f":false,"z":null,"l":["a",1,null],"e":[]}`,
		` { "a" : "1" , "a" : "2" } `, `{"esc\"aped\\":"t\tab\u00e9\ud83d\ude00"}`, `{"":""}`, `{}`,
		`{"nested":{"x":1}}`, `{"l":[[1]]}`, `{"l":[{}]}`, `[1]`, `"x"`, `1`, `{`, `{"a":"b"} x`, `{"a":"\u00zz"}`, "\xff",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var pairs []string
		flat, err := flatJSONFields(body, func(name, value string) error {
			pairs = append(pairs, name, value)
			return nil
		})
		if !utf8.Valid(body) {
			return
		}
		want, wantFlat := flatReference(body)
		if err != nil || flat != wantFlat || flat && !slices.Equal(pairs, want) {
			t.Fatalf("body %q:\nscanner   flat %v %q (err %v)\nreference flat %v %q", body, flat, pairs, err, wantFlat, want)
		}
	})
}

// The scanner hands add's first refusal back and stops there.
func TestJSONScannerStopsAtTheFirstRefusal(t *testing.T) {
	refused := io.ErrUnexpectedEOF
	var seen []string
	flat, err := flatJSONFields([]byte(`{"a":"1","b":["2","3"],"c":"4"}`), func(name, value string) error {
		seen = append(seen, name+"="+value)
		if value == "2" {
			return refused
		}
		return nil
	})
	if !flat || err != refused || fmt.Sprint(seen) != "[a=1 b=2]" {
		t.Fatalf("flat %v, err %v, added %v; want flat, the refusal, and a=1 b=2 only", flat, err, seen)
	}
}

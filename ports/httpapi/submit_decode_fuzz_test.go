package httpapi

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/formd/formd/domain/submission"
)

// checkDecoded holds for every body the decoder accepts: limits kept, text
// only, no duplicate names; and every refusal is a 4xx decodeError.
func checkDecoded(t *testing.T, contentType string, body []byte) {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/submit", bytes.NewReader(body))
	r.Header.Set("Content-Type", contentType)
	fields, files, err := decodeSubmission(r, decoderAlone(t))
	if err != nil {
		var de *decodeError
		if !errors.As(err, &de) || de.status < 400 || de.status > 499 || de.message == "" {
			t.Fatalf("refusal must be a 4xx decodeError with a message, got %#v", err)
		}
		return
	}
	if len(fields) > MaxFields || len(files) > maxFiles {
		t.Fatalf("limits exceeded: %d fields, %d files", len(fields), len(files))
	}
	seen := map[string]bool{}
	for _, f := range fields {
		if seen[f.Name] {
			t.Fatalf("duplicate field %q was not joined", f.Name)
		}
		seen[f.Name] = true
		if f.Name == "" || len(f.Name) > MaxFieldNameBytes || len(f.Value) > MaxFieldValueBytes {
			t.Fatalf("field out of limits: %q (%d bytes)", f.Name, len(f.Value))
		}
		if !utf8.ValidString(f.Name) || !utf8.ValidString(f.Value) || strings.ContainsRune(f.Value, 0) {
			t.Fatalf("field %q is not clean text", f.Name)
		}
	}
}

func FuzzDecodeJSONSubmission(f *testing.F) {
	for _, seed := range []string{
		`{"access_key":"k","name":"Ada","email":"ada@example.com"}`,
		`{"botcheck":false,"n":1.5e3,"tags":["a","b"],"none":null}`,
		`{"a":"1","a":"2"}`, `{"nested":{"x":1}}`, `[1,2]`, `{"a":"\u0000"}`, `{`, `{"a":"b"} trailing`, "\xff\xfe",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) { checkDecoded(t, "application/json", body) })
}

func FuzzDecodeURLEncodedSubmission(f *testing.F) {
	for _, seed := range []string{"access_key=k&name=Ada", "a=1&a=2&a=3", "%zz=1", "=x", "a=%00", "a=%FF%FE", "&&&", "x=" + strings.Repeat("y", 100)} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) { checkDecoded(t, "application/x-www-form-urlencoded", body) })
}

func FuzzDecodeMultipartSubmission(f *testing.F) {
	const boundary = "XyZ"
	for _, seed := range []string{
		"--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nhello\r\n--XyZ--\r\n",
		"--XyZ\r\nContent-Disposition: form-data; name=\"f\"; filename=\"x.txt\"\r\nContent-Type: text/plain\r\n\r\nbody\r\n--XyZ--\r\n",
		"--XyZ\r\n\r\n\r\n--XyZ--", "garbage", "--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n\x00\x01\r\n--XyZ--\r\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) { checkDecoded(t, "multipart/form-data; boundary="+boundary, body) })
}

// The flat path (flatJSONFields) answers every UTF-8 body exactly as the
// general one does: the same fields in the same order, or the same error.
func FuzzFlatJSONFieldsMatchTheGeneralPath(f *testing.F) {
	for _, seed := range []string{
		`{"access_key":"k","name":"Ada","email":"ada@example.com"}`,
		`{"botcheck":false,"n":-1.5e+3,"tags":["a", "b" ,1,true,null],"none":null,"empty":[]}`,
		` { "a" : "1" , "a" : "2" } `, `{"nested":{"x":1}}`, `{"l":[[1]]}`, `{"l":[{}]}`, `[1,2]`, `"x"`, `{}`,
		`{"a":"\u0000"}`, `{"esc\"aped\\":"t\tab\u00e9\ud83d\ude00"}`, `{`, `{"a":"b"} trailing`, `{"":"x"}`,
		`{"a\r\nb":"v"}`, `{"a":"x","b":{"c":1},"d":"\u00zz"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if !utf8.Valid(body) {
			t.Skip("refused as not UTF-8 before either path") // checkDecoded covers it
		}
		fast, fastErr := decodeJSONFields(body)
		general, generalErr := decodeJSONFieldsGeneral(body)
		if fmt.Sprint(fastErr) != fmt.Sprint(generalErr) || !slices.Equal(fast, general) {
			t.Fatalf("body %q:\nflat path    %v %q\ngeneral path %v %q", body, fast, fastErr, general, generalErr)
		}
	})
}

// A value past the limit is refused alike on both paths (too big a seed for
// the fuzzer, which spends its time minimizing it).
func TestFlatJSONFieldsRefuseALongValueAsTheGeneralPathDoes(t *testing.T) {
	body := []byte(`{"a":"ok","b":["` + strings.Repeat("v", MaxFieldValueBytes/2) + `","` + strings.Repeat("w", MaxFieldValueBytes/2) + `"]}`)
	_, fastErr := decodeJSONFields(body)
	_, generalErr := decodeJSONFieldsGeneral(body)
	if fastErr == nil || fmt.Sprint(fastErr) != fmt.Sprint(generalErr) {
		t.Fatalf("flat path %v, general path %v; want the same refusal of field b", fastErr, generalErr)
	}
}

// BenchmarkDecodeJSONFields compares the flat path with the general one on
// a typical contact form.
func BenchmarkDecodeJSONFields(b *testing.B) {
	body := []byte(`{"access_key":"0b0f3c2e-5a6d-4c5e-9f1a-2b3c4d5e6f70","name":"Ada Lovelace","email":"ada@example.com",` +
		`"subject":"Hello","message":"A few lines about the analytical engine, and a question.","botcheck":false,"tags":["a","b"]}`)
	for name, decode := range map[string]func([]byte) ([]submission.Field, error){
		"flat": decodeJSONFields, "general": decodeJSONFieldsGeneral,
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := decode(body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

package httpapi

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"
)

// checkDecoded holds for every body the decoder accepts: limits kept, text
// only, no duplicate names; and every refusal is a 4xx decodeError.
func checkDecoded(t *testing.T, contentType string, body []byte) {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/submit", bytes.NewReader(body))
	r.Header.Set("Content-Type", contentType)
	fields, files, err := decodeSubmission(r)
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

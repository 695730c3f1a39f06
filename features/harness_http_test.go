package features_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// HTTP helpers of the harness: requests to formd and assertions on its answers.

// Response is a formd answer, read completely.
type Response struct {
	// Status is the HTTP status code.
	Status int
	// Header holds the response headers.
	Header http.Header
	// Body is the raw body.
	Body []byte
	// JSON is the body decoded as a JSON object; nil when it is not one.
	JSON map[string]any
}

// RequestID is the X-Request-Id response header.
func (r *Response) RequestID() string { return r.Header.Get("X-Request-Id") }

// Object returns the JSON object under key of the body, failing the spec when
// it is missing or not an object.
func (r *Response) Object(key string) map[string]any {
	GinkgoHelper()
	Expect(r.JSON).To(HaveKey(key), "response body: %s", r.Body)
	o, ok := r.JSON[key].(map[string]any)
	Expect(ok).To(BeTrue(), "%q is not a JSON object in %s", key, r.Body)
	return o
}

// Array returns the JSON array under key of the body, failing the spec when it
// is missing or not an array.
func (r *Response) Array(key string) []any {
	GinkgoHelper()
	Expect(r.JSON).To(HaveKey(key), "response body: %s", r.Body)
	a, ok := r.JSON[key].([]any)
	Expect(ok).To(BeTrue(), "%q is not a JSON array in %s", key, r.Body)
	return a
}

// String returns the status and body, for failure messages.
func (r *Response) String() string { return fmt.Sprintf("HTTP %d: %s", r.Status, r.Body) }

// RawBody is a request body sent as it is (for malformed JSON, forms or
// multipart bodies), with its content type.
type RawBody struct {
	// ContentType is sent as the Content-Type header (none when empty).
	ContentType string
	// Data is the body.
	Data []byte
}

// RawJSON is a body sent verbatim as application/json, valid or not.
func RawJSON(s string) RawBody {
	return RawBody{ContentType: "application/json", Data: []byte(s)}
}

// Bearer returns the header that authenticates with a bearer token.
func Bearer(token string) http.Header {
	return http.Header{"Authorization": {"Bearer " + token}}
}

// SessionCookie returns the header that authenticates with the
// auth.session_token cookie.
func SessionCookie(token string) http.Header {
	return http.Header{"Cookie": {(&http.Cookie{Name: "auth.session_token", Value: token}).String()}}
}

// Header returns a header with one value, e.g. Header("Origin", "https://example.com").
func Header(name, value string) http.Header {
	h := http.Header{}
	h.Set(name, value)
	return h
}

// Do sends a request and reads the whole response. path is relative to f.URL
// (or an absolute http://127.0.0.1 URL, such as a link from an email). body is
// nil (no body), a RawBody (sent verbatim), or any other value, sent as JSON.
// headers are merged into the request in order. Do fails the spec only when
// formd cannot be reached, never because of the status code.
func (f *Formd) Do(method, path string, body any, headers ...http.Header) *Response {
	GinkgoHelper()
	target := path
	if !strings.HasPrefix(path, "http://") && !strings.HasPrefix(path, "https://") {
		target = f.URL + path
	}
	u, err := url.Parse(target)
	Expect(err).NotTo(HaveOccurred())
	Expect(u.Hostname()).To(Equal("127.0.0.1"), "the harness only talks to formd on 127.0.0.1")

	var reader io.Reader
	contentType := ""
	switch b := body.(type) {
	case nil:
	case RawBody:
		reader, contentType = bytes.NewReader(b.Data), b.ContentType
	default:
		data, err := json.Marshal(b)
		Expect(err).NotTo(HaveOccurred())
		reader, contentType = bytes.NewReader(data), "application/json"
	}
	req, err := http.NewRequest(method, target, reader)
	Expect(err).NotTo(HaveOccurred())
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "application/json")
	for _, h := range headers {
		for k, vs := range h {
			req.Header.Del(k)
			for _, v := range vs {
				req.Header.Add(k, v)
			}
		}
	}
	resp, err := f.client.Do(req)
	Expect(err).NotTo(HaveOccurred(), "%s %s", method, path)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	r := &Response{Status: resp.StatusCode, Header: resp.Header, Body: data}
	var obj map[string]any
	if json.Unmarshal(data, &obj) == nil {
		r.JSON = obj
	}
	return r
}

func auth(token string, headers []http.Header) []http.Header {
	if token == "" {
		return headers
	}
	return append([]http.Header{Bearer(token)}, headers...)
}

// Get sends GET path with the bearer token (none when token is empty).
func (f *Formd) Get(token, path string, headers ...http.Header) *Response {
	GinkgoHelper()
	return f.Do(http.MethodGet, path, nil, auth(token, headers)...)
}

// Post sends POST path with body (see Do) and the bearer token (none when empty).
func (f *Formd) Post(token, path string, body any, headers ...http.Header) *Response {
	GinkgoHelper()
	return f.Do(http.MethodPost, path, body, auth(token, headers)...)
}

// Patch sends PATCH path with body (see Do) and the bearer token (none when empty).
func (f *Formd) Patch(token, path string, body any, headers ...http.Header) *Response {
	GinkgoHelper()
	return f.Do(http.MethodPatch, path, body, auth(token, headers)...)
}

// ExpectError asserts that r is the spec's ErrorResponse with the given
// status: success false, a message containing every one of fragments, and the
// requestId of the X-Request-Id header.
func ExpectError(r *Response, status int, fragments ...string) {
	GinkgoHelper()
	Expect(r.Status).To(Equal(status), "%s", r)
	Expect(r.JSON).NotTo(BeNil(), "error bodies are JSON: %s", r)
	Expect(r.JSON).To(HaveKeyWithValue("success", false), "%s", r)
	Expect(r.JSON).To(HaveKeyWithValue("message", Not(BeEmpty())), "%s", r)
	for _, fragment := range fragments {
		Expect(r.JSON["message"]).To(ContainSubstring(fragment), "%s", r)
	}
	Expect(r.RequestID()).NotTo(BeEmpty(), "X-Request-Id header")
	Expect(r.JSON).To(HaveKeyWithValue("requestId", r.RequestID()), "%s", r)
}

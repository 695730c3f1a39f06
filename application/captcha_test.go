package application

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/altcha"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
)

// fakeVerifier answers every token with one outcome (or error) and records
// what it was asked.
type fakeVerifier struct {
	outcome submission.CaptchaOutcome
	err     error
	asked   []CaptchaToken
}

func (v *fakeVerifier) Verify(_ context.Context, t CaptchaToken) (submission.CaptchaOutcome, error) {
	v.asked = append(v.asked, t)
	return v.outcome, v.err
}

// captchaSecretStore holds one form's sealed captcha secret.
type captchaSecretStore struct{ stored *StoredCaptchaSecret }

func (s *captchaSecretStore) CaptchaSecret(context.Context, string) (StoredCaptchaSecret, error) {
	if s.stored == nil {
		return StoredCaptchaSecret{}, domain.ErrNotFound
	}
	return *s.stored, nil
}

// hmacSigner signs as the secrets adapter does, with a fixed test key.
type hmacSigner struct{ key string }

func (s hmacSigner) Sign(challenge string) string {
	mac := hmac.New(sha256.New, []byte(s.key))
	mac.Write([]byte(challenge))
	return hex.EncodeToString(mac.Sum(nil))
}

func (s hmacSigner) Verify(challenge, signature string) bool {
	return hmac.Equal([]byte(s.Sign(challenge)), []byte(signature))
}

// memSpent is the record of spent challenges, in memory.
type memSpent struct{ spent map[string]time.Time }

func (m *memSpent) Spend(_ context.Context, challenge string, expires time.Time) (bool, error) {
	if m.spent == nil {
		m.spent = map[string]time.Time{}
	}
	if _, ok := m.spent[challenge]; ok {
		return false, nil
	}
	m.spent[challenge] = expires
	return true, nil
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// noCaptchas are captcha checks for tests whose forms have none: any
// verification fails the test's expectations by refusing.
func noCaptchas() *CaptchaChecks {
	return NewCaptchaChecks(&fakeVerifier{err: errors.New("no captcha expected")}, &captchaSecretStore{}, plainSealer{},
		hmacSigner{key: "k"}, &memSpent{}, fixedClock{}, quietLog())
}

// captchaForm is a live form whose captcha is hCaptcha with secret secretID.
func captchaForm(version int, secretID string) FormRecord {
	rec := liveForm(version)
	rec.Settings.Captcha = form.Captcha{Provider: form.CaptchaHCaptcha, SiteKey: "site-1", SecretID: secretID}
	return rec
}

func sealedCaptchaSecret(t *testing.T, id, secret string) *StoredCaptchaSecret {
	t.Helper()
	sealed, err := boundSealer{}.Seal(captchaSecretAAD(id), []byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	return &StoredCaptchaSecret{ID: id, FormID: "form-1", Sealed: sealed}
}

func withField(cmd Submit, name, value string) Submit {
	cmd.Fields = append(cmd.Fields, submission.Field{Name: name, Value: value})
	cmd.RemoteIP = "203.0.113.9"
	return cmd
}

func TestACaptchaTokenIsVerifiedWithTheUnsealedSecret(t *testing.T) {
	verifier := &fakeVerifier{outcome: submission.CaptchaOutcome{Status: submission.CaptchaVerified}}
	checks := NewCaptchaChecks(verifier, &captchaSecretStore{stored: sealedCaptchaSecret(t, "sec-1", "0xSECRET")}, boundSealer{},
		hmacSigner{key: "k"}, &memSpent{}, fixedClock{}, quietLog())
	store := &fakeStore{}
	h := NewSubmitHandler(&fakeForms{cached: captchaForm(1, "sec-1"), fresh: captchaForm(1, "sec-1")}, store, noEntitlements{}, freePlan{}, plainSealer{}, lenHasher{}, &seqIDs{},
		fixedClock{}, noFloods{}, testQuotas, NopMetrics{}, checks, noSpamChecks(), noUploads(), newMemoryTestInbox(), noHandOff(), uncounted{}, nil)

	_, err := h.Handle(context.Background(), post("https://example.com"))
	var rejected *SubmissionRejected
	if !errors.As(err, &rejected) || rejected.Gate != submission.GateCaptcha || !strings.Contains(rejected.Response.Message, "h-captcha-response") {
		t.Fatalf("without a token: %v, want the captcha gate naming h-captcha-response", err)
	}
	if len(verifier.asked) != 0 {
		t.Fatalf("a missing token was sent to the provider: %+v", verifier.asked)
	}

	if _, err := h.Handle(context.Background(), withField(post("https://example.com"), "h-captcha-response", "tok-1")); err != nil {
		t.Fatalf("a verified token: %v", err)
	}
	want := CaptchaToken{Provider: form.CaptchaHCaptcha, Secret: "0xSECRET", SiteKey: "site-1", Token: "tok-1", RemoteIP: "203.0.113.9"}
	if len(verifier.asked) != 1 || verifier.asked[0] != want {
		t.Fatalf("asked %+v, want %+v", verifier.asked, want)
	}
	if len(store.accepted) != 1 {
		t.Fatalf("accepted %d submissions, want 1", len(store.accepted))
	}
}

func TestACaptchaProviderWithoutAVerdictRefusesTheSubmission(t *testing.T) {
	for _, tt := range []struct {
		name     string
		verifier *fakeVerifier
		want     string
	}{
		{"the provider is down", &fakeVerifier{err: errors.New("dial tcp: connection refused")}, submission.MsgCaptchaUnavailable},
		{"the provider refuses the token", &fakeVerifier{outcome: submission.CaptchaOutcome{Status: submission.CaptchaInvalid}}, submission.MsgCaptchaInvalid},
		{"the provider refuses the secret", &fakeVerifier{outcome: submission.CaptchaOutcome{Status: submission.CaptchaMisconfigured}}, submission.MsgCaptchaMisconfig},
	} {
		t.Run(tt.name, func(t *testing.T) {
			checks := NewCaptchaChecks(tt.verifier, &captchaSecretStore{stored: sealedCaptchaSecret(t, "sec-1", "s")}, boundSealer{},
				hmacSigner{key: "k"}, &memSpent{}, fixedClock{}, quietLog())
			store := &fakeStore{}
			h := NewSubmitHandler(&fakeForms{cached: captchaForm(1, "sec-1"), fresh: captchaForm(1, "sec-1")}, store, noEntitlements{}, freePlan{},
				plainSealer{}, lenHasher{}, &seqIDs{}, fixedClock{}, noFloods{}, testQuotas, NopMetrics{}, checks, noSpamChecks(), noUploads(), newMemoryTestInbox(), noHandOff(), uncounted{}, nil)
			_, err := h.Handle(context.Background(), withField(post("https://example.com"), "h-captcha-response", "tok"))
			var rejected *SubmissionRejected
			if !errors.As(err, &rejected) || rejected.Gate != submission.GateCaptcha || rejected.Response.Message != tt.want {
				t.Fatalf("got %v, want the captcha gate's %q", err, tt.want)
			}
			if len(store.accepted) != 0 || len(tt.verifier.asked) != 1 {
				t.Fatalf("accepted %d, asked %d times: want 0 and 1", len(store.accepted), len(tt.verifier.asked))
			}
		})
	}
}

func TestATokenIsVerifiedOnceWhenTheSubmissionIsJudgedAgain(t *testing.T) {
	// The cached form's rule refuses the post after the captcha passed; the
	// fresh form (same captcha) accepts it. Providers accept a token once,
	// so the second judgement must reuse the first verification.
	cached := captchaForm(1, "sec-1")
	cached.Settings.Validation.Fields = []form.FieldRule{{Field: "phone", Required: true}}
	verifier := &fakeVerifier{outcome: submission.CaptchaOutcome{Status: submission.CaptchaVerified}}
	checks := NewCaptchaChecks(verifier, &captchaSecretStore{stored: sealedCaptchaSecret(t, "sec-1", "s")}, boundSealer{},
		hmacSigner{key: "k"}, &memSpent{}, fixedClock{}, quietLog())
	store := &fakeStore{conflicts: 1}
	h := NewSubmitHandler(&fakeForms{cached: cached, fresh: captchaForm(2, "sec-1")}, store, noEntitlements{}, freePlan{}, plainSealer{}, lenHasher{},
		&seqIDs{}, fixedClock{}, noFloods{}, testQuotas, NopMetrics{}, checks, noSpamChecks(), noUploads(), newMemoryTestInbox(), noHandOff(), uncounted{}, nil)
	if _, err := h.Handle(context.Background(), withField(post("https://example.com"), "h-captcha-response", "tok")); err != nil {
		t.Fatal(err)
	}
	if len(verifier.asked) != 1 || len(store.accepted) != 1 {
		t.Fatalf("asked the provider %d times, accepted %d: want 1 and 1", len(verifier.asked), len(store.accepted))
	}
}

func TestACachedFormNamingAReplacedSecretIsReadAgain(t *testing.T) {
	verifier := &fakeVerifier{outcome: submission.CaptchaOutcome{Status: submission.CaptchaVerified}}
	checks := NewCaptchaChecks(verifier, &captchaSecretStore{stored: sealedCaptchaSecret(t, "sec-2", "new")}, boundSealer{},
		hmacSigner{key: "k"}, &memSpent{}, fixedClock{}, quietLog())
	forms := &fakeForms{cached: captchaForm(1, "sec-1"), fresh: captchaForm(2, "sec-2")}
	store := &fakeStore{}
	h := NewSubmitHandler(forms, store, noEntitlements{}, freePlan{}, plainSealer{}, lenHasher{}, &seqIDs{}, fixedClock{}, noFloods{}, testQuotas, NopMetrics{}, checks, noSpamChecks(), noUploads(), newMemoryTestInbox(), noHandOff(), uncounted{}, nil)
	if _, err := h.Handle(context.Background(), withField(post("https://example.com"), "h-captcha-response", "tok")); err != nil {
		t.Fatal(err)
	}
	if forms.freshReads != 1 || len(verifier.asked) != 1 || verifier.asked[0].Secret != "new" || store.accepted[0].FormVersion != 2 {
		t.Fatalf("fresh reads %d, asked %+v, accepted %+v", forms.freshReads, verifier.asked, store.accepted)
	}
}

// solve finds the number of a challenge by brute force, as a client does.
func solve(t *testing.T, c altcha.Challenge) string {
	t.Helper()
	for n := 0; n <= c.MaxNumber; n++ {
		if altcha.Hash(c.Salt, n) == c.Challenge {
			raw, _ := json.Marshal(map[string]any{"algorithm": c.Algorithm, "challenge": c.Challenge, "number": n, "salt": c.Salt, "signature": c.Signature})
			return base64.StdEncoding.EncodeToString(raw)
		}
	}
	t.Fatal("no number solves the challenge")
	return ""
}

func TestProofOfWorkIsAcceptedOnceBeforeItExpires(t *testing.T) {
	clock := &movableClock{now: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)}
	signer := hmacSigner{key: "server"}
	challenge, err := NewIssueChallengeHandler(signer, clock).Handle(context.Background(), IssueChallenge{})
	if err != nil {
		t.Fatal(err)
	}
	if challenge.Algorithm != "SHA-256" || challenge.MaxNumber != altcha.MaxNumber || !signer.Verify(challenge.Challenge, challenge.Signature) ||
		!strings.HasSuffix(challenge.Salt, "?expires=1795349400") { // 12:10 UTC
		t.Fatalf("challenge %+v", challenge)
	}
	solution := solve(t, challenge)
	checks := NewCaptchaChecks(&fakeVerifier{err: errors.New("no provider")}, &captchaSecretStore{}, plainSealer{}, signer, &memSpent{}, clock, quietLog())
	pow := liveForm(1)
	pow.Settings.Captcha = form.Captcha{Provider: form.CaptchaFormd}
	check := func(field string) submission.CaptchaStatus {
		t.Helper()
		var memo captchaMemo
		o, err := memo.outcome(context.Background(), checks, pow, submission.CaptchaCheck{Provider: form.CaptchaFormd, Token: field}, "", false)
		if err != nil {
			t.Fatal(err)
		}
		return o.Status
	}

	forged := hmacSigner{key: "someone else"}
	other := challenge
	other.Signature = forged.Sign(other.Challenge)
	for name, field := range map[string]string{
		"signed with another key": solve(t, other),
		"not base64":              "%%%",
		"not a solution":          base64.StdEncoding.EncodeToString([]byte(`{"algorithm":"SHA-256","challenge":"` + challenge.Challenge + `","number":-1,"salt":"x","signature":"` + challenge.Signature + `"}`)),
	} {
		if got := check(field); got != submission.CaptchaInvalid {
			t.Errorf("%s: %s, want invalid", name, got)
		}
	}
	if got := check(solution); got != submission.CaptchaVerified {
		t.Fatalf("the solution: %s, want verified", got)
	}
	if got := check(solution); got != submission.CaptchaReplayed {
		t.Fatalf("the same solution again: %s, want replayed", got)
	}
	clock.now = clock.now.Add(altcha.Lifetime)
	late, err := NewIssueChallengeHandler(signer, &movableClock{now: clock.now.Add(-altcha.Lifetime)}).Handle(context.Background(), IssueChallenge{})
	if err != nil {
		t.Fatal(err)
	}
	if got := check(solve(t, late)); got != submission.CaptchaExpired {
		t.Fatalf("a solution sent when its challenge expired: %s, want expired", got)
	}
}

func TestACaptchaSecretIsStoredSealedAndNeverRecorded(t *testing.T) {
	w := newIntegrationWorld(t)
	h := NewUpdateFormHandler(w, w, noEntitlements{}, &seqIDs{}, fixedClock{}, idTokens{}, boundSealer{})
	provider, site, secret := "turnstile", "0x4AAAAAAA", "0x4AAAAAAASECRET"
	rec, err := h.Handle(context.Background(), UpdateForm{Caller: integrationOwner, FormID: "form-1",
		Patch: form.Patch{Captcha: &form.CaptchaPatch{Provider: &provider, SiteKey: &site, Secret: &secret}}})
	if err != nil {
		t.Fatal(err)
	}
	got := rec.Settings.Captcha
	s, ok := w.CaptchaSecretOf("form-1")
	if got.Provider != form.CaptchaTurnstile || got.SecretID == "" || !ok || s.ID != got.SecretID {
		t.Fatalf("settings %+v, stored %+v", got, s)
	}
	if plain, err := (boundSealer{}).Open(captchaSecretAAD(s.ID), s.Sealed); err != nil || string(plain) != secret || string(s.Sealed.Ciphertext) == secret {
		t.Fatalf("the stored secret opens to %q (%v); sealed %q", plain, err, s.Sealed.Ciphertext)
	}
	events, _ := json.Marshal(w.formChanges())
	if strings.Contains(string(events), secret) || !strings.Contains(string(events), `"captcha.secret"`) {
		t.Fatalf("the events must name captcha.secret without the secret: %s", events)
	}

	off := "none"
	if _, err := h.Handle(context.Background(), UpdateForm{Caller: integrationOwner, FormID: "form-1",
		Patch: form.Patch{Captcha: &form.CaptchaPatch{Provider: &off}}}); err != nil {
		t.Fatal(err)
	}
	if s, ok := w.CaptchaSecretOf("form-1"); ok {
		t.Fatalf("turning the captcha off must delete its secret: %+v", s)
	}
}

// A retry of a submission with its Idempotency-Key carries a new captcha
// token (the first was used up): it is still the same submission.
func TestARetryWithAFreshCaptchaTokenIsTheSameSubmission(t *testing.T) {
	first := withField(post("https://example.com"), "altcha", "solution-1")
	prior := &StoredResponse{RequestHash: requestHash("key", first.Fields)}
	retry := withField(post("https://example.com"), "ALTCHA", "solution-2")
	_, data := submission.Split(retry.Fields)
	if _, err := replay(retry, "key", data, prior); err != nil {
		t.Fatalf("a retry with another token: %v, want the first answer", err)
	}
	changed := withField(post("https://example.com"), "altcha", "solution-2")
	changed.Fields[2].Value = "Something else"
	if _, err := replay(changed, "key", data, prior); !errors.Is(err, ErrIdempotencyMismatch) {
		t.Fatalf("another message with the same key: %v, want ErrIdempotencyMismatch", err)
	}
}

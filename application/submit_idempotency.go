package application

import (
	"crypto/sha256"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/submission"
)

// ErrIdempotencyMismatch means an Idempotency-Key was reused for a different submission.
var ErrIdempotencyMismatch = domain.Invalid("Idempotency-Key", "this Idempotency-Key was already used for a different submission")

// requestHash identifies a submission's content for Idempotency-Key reuse
// checks. Captcha tokens are left out: a retry of the same submission
// carries a fresh one (a provider accepts a token once, and the client
// script solves a new challenge for every post).
func requestHash(key string, fields []submission.Field) []byte {
	h := sha256.New()
	h.Write([]byte(key))
	for _, f := range fields {
		if submission.IsCaptchaToken(f.Name) {
			continue
		}
		h.Write([]byte{0})
		h.Write([]byte(f.Name))
		h.Write([]byte{0})
		h.Write([]byte(f.Value))
	}
	return h.Sum(nil)
}

// replay answers a retry with the response its key first got; the echo is
// rebuilt from the retry itself, which the request hash proves identical.
func replay(cmd Submit, key string, data []submission.Field, prior *StoredResponse) (SubmitOutcome, error) {
	if string(prior.RequestHash) != string(requestHash(key, cmd.Fields)) {
		return SubmitOutcome{}, ErrIdempotencyMismatch
	}
	resp := prior.Response
	resp.Body.Data = echo(data)
	return SubmitOutcome{Response: resp, Redirect: prior.Redirect, Replayed: true}, nil
}

package application

import (
	"crypto/sha256"
	"fmt"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/submission"
)

// ErrIdempotencyMismatch means an Idempotency-Key was reused for a different submission.
var ErrIdempotencyMismatch = domain.Invalid("Idempotency-Key", "this Idempotency-Key was already used for a different submission")

// requestHash identifies a submission's content for Idempotency-Key reuse
// checks. Captcha tokens are left out: a retry of the same submission
// carries a fresh one (a provider accepts a token once, and the client
// script solves a new challenge for every post).
//
// Files count with their name, declared type, size and content digest; a
// post without files hashes as it did before uploads existed.
func requestHash(key string, fields []submission.Field, files ...UploadedFile) []byte {
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
	for _, f := range files {
		digest := sha256.Sum256(f.Content)
		h.Write([]byte{1})
		fmt.Fprintf(h, "%q %q %q %d %x", f.Field, f.Name, f.DeclaredType, f.Size, digest)
	}
	return h.Sum(nil)
}

// replay answers a retry with the response its key first got; the echo is
// rebuilt from the retry itself, which the request hash proves identical.
func replay(cmd Submit, key string, data []submission.Field, prior *StoredResponse) (SubmitOutcome, error) {
	if string(prior.RequestHash) != string(requestHash(key, cmd.Fields, cmd.Files...)) {
		return SubmitOutcome{}, ErrIdempotencyMismatch
	}
	resp := prior.Response
	resp.Body.Data = echo(data)
	return SubmitOutcome{Response: resp, Redirect: prior.Redirect, Replayed: true}, nil
}

// Package altcha is formd's proof-of-work challenge, in the open ALTCHA
// protocol: the server picks a random salt (which carries its expiry) and a
// secret number, and publishes challenge = SHA-256(salt + number) with an
// HMAC signature of it; a client finds the number by trying 0, 1, 2, … up to
// maxnumber, and sends back the base64 of a JSON object naming the
// challenge, salt, number and signature. Checking a solution costs one hash,
// finding it on average maxnumber/2: a little work for one visitor, a lot
// for a spammer. The signature (made with a key only the server holds) and
// the record of spent solutions are the caller's: this package does no I/O.
package altcha

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Algorithm is the only hash formd's challenges use.
const Algorithm = "SHA-256"

// MaxNumber bounds the secret number. A browser hashes with WebCrypto in a
// Web Worker at a few hundred thousand SHA-256 a second, so finding a
// number (25,000 tries on average, 50,000 at most) takes it well under a
// second, while each solution costs a spammer the same again.
const MaxNumber = 50_000

// Lifetime is how long a challenge may be solved and sent: long enough for
// a widget that solves on page load and a visitor who then types, short
// enough that the record of spent solutions stays small.
const Lifetime = 10 * time.Minute

// maxSolutionLength bounds the altcha field: a genuine one is under 400 bytes.
const maxSolutionLength = 2048

// Challenge is what GET /challenge serves, as ALTCHA widgets read it.
type Challenge struct {
	Algorithm string `json:"algorithm"`
	Challenge string `json:"challenge"`
	MaxNumber int    `json:"maxnumber"`
	Salt      string `json:"salt"`
	Signature string `json:"signature"`
}

// NewChallenge is the unsigned challenge of a random salt (hex) and secret
// number (0 to MaxNumber) that expires at expires; the salt carries the
// expiry as ALTCHA does (`?expires=<unix seconds>`), so the signature
// covers it.
func NewChallenge(randomSalt string, number int, expires time.Time) Challenge {
	salt := randomSalt + "?expires=" + strconv.FormatInt(expires.Unix(), 10)
	return Challenge{Algorithm: Algorithm, Challenge: Hash(salt, number), MaxNumber: MaxNumber, Salt: salt}
}

// Hash is the hex SHA-256 of the salt followed by the number in decimal.
func Hash(salt string, number int) string {
	sum := sha256.Sum256([]byte(salt + strconv.Itoa(number)))
	return hex.EncodeToString(sum[:])
}

// Solution is a decoded altcha field.
type Solution struct {
	Algorithm string
	Challenge string
	Number    int
	Salt      string
	Signature string
}

// Errors of a solution that does not pass.
var (
	// ErrInvalid: not a solution of one of formd's challenges.
	ErrInvalid = errors.New("altcha: not a valid solution")
	// ErrExpired: a solution of a challenge past its expiry.
	ErrExpired = errors.New("altcha: challenge expired")
)

// ParseSolution decodes an altcha field: the base64 of a JSON object with
// algorithm, challenge, number, salt and signature (other members, such as
// the widget's "took", are ignored).
func ParseSolution(field string) (Solution, error) {
	if len(field) > maxSolutionLength {
		return Solution{}, ErrInvalid
	}
	raw, err := base64.StdEncoding.DecodeString(field)
	if err != nil {
		if raw, err = base64.RawURLEncoding.DecodeString(strings.TrimRight(field, "=")); err != nil {
			return Solution{}, ErrInvalid
		}
	}
	var p struct {
		Algorithm string      `json:"algorithm"`
		Challenge string      `json:"challenge"`
		Number    json.Number `json:"number"`
		Salt      string      `json:"salt"`
		Signature string      `json:"signature"`
	}
	if json.Unmarshal(raw, &p) != nil {
		return Solution{}, ErrInvalid
	}
	n, err := strconv.Atoi(p.Number.String())
	if err != nil || n < 0 || n > MaxNumber || p.Challenge == "" || p.Salt == "" || p.Signature == "" {
		return Solution{}, ErrInvalid
	}
	return Solution{Algorithm: p.Algorithm, Challenge: p.Challenge, Number: n, Salt: p.Salt, Signature: p.Signature}, nil
}

// ExpiresAt is the expiry the salt carries; false when it carries none
// (formd's challenges always do).
func (s Solution) ExpiresAt() (time.Time, bool) {
	_, query, ok := strings.Cut(s.Salt, "?")
	if !ok {
		return time.Time{}, false
	}
	params, err := url.ParseQuery(query)
	if err != nil {
		return time.Time{}, false
	}
	unix, err := strconv.ParseInt(params.Get("expires"), 10, 64)
	if err != nil || unix <= 0 {
		return time.Time{}, false
	}
	return time.Unix(unix, 0), true
}

// Check checks what needs no key and no memory: the algorithm, that the
// number solves the challenge, and that the challenge has not expired at
// now. The signature (is the challenge formd's?) and replays (was this
// solution used before?) are the caller's to check.
func (s Solution) Check(now time.Time) error {
	if s.Algorithm != Algorithm || Hash(s.Salt, s.Number) != s.Challenge {
		return ErrInvalid
	}
	expires, ok := s.ExpiresAt()
	if !ok {
		return ErrInvalid
	}
	if !now.Before(expires) {
		return ErrExpired
	}
	return nil
}

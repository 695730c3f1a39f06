package application

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"math/big"

	"github.com/formd/formd/domain/altcha"
)

// IssueChallenge is GET /challenge: a new proof-of-work challenge for any
// form whose captcha provider is formd's own.
type IssueChallenge struct{}

// IssueChallengeHandler issues signed, expiring ALTCHA challenges. It keeps
// nothing: the signature proves a challenge is formd's and the salt carries
// its expiry, so issuing costs no database work, and only solutions that
// were accepted are remembered (SpentChallenges).
type IssueChallengeHandler struct {
	signer ChallengeSigner
	clock  Clock
}

// NewIssueChallengeHandler builds the handler; every dependency is required.
func NewIssueChallengeHandler(signer ChallengeSigner, clock Clock) *IssueChallengeHandler {
	if signer == nil || clock == nil {
		panic("application: nil dependency of IssueChallengeHandler")
	}
	return &IssueChallengeHandler{signer: signer, clock: clock}
}

// Handle makes a challenge of a random salt and a random secret number,
// expiring altcha.Lifetime from now, and signs it.
func (h *IssueChallengeHandler) Handle(_ context.Context, _ IssueChallenge) (altcha.Challenge, error) {
	var salt [12]byte
	if _, err := rand.Read(salt[:]); err != nil {
		return altcha.Challenge{}, err
	}
	n, err := rand.Int(rand.Reader, big.NewInt(altcha.MaxNumber+1))
	if err != nil {
		return altcha.Challenge{}, err
	}
	c := altcha.NewChallenge(hex.EncodeToString(salt[:]), int(n.Int64()), h.clock.Now().Add(altcha.Lifetime))
	c.Signature = h.signer.Sign(c.Challenge)
	return c, nil
}

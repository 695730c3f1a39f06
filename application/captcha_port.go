package application

import (
	"context"
	"time"

	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
)

// CaptchaVerifier asks a captcha provider's verification API (siteverify)
// whether a token is genuine. An error means no verdict could be had (the
// provider is unreachable, slow, or answered something unreadable): the
// caller fails closed.
type CaptchaVerifier interface {
	Verify(ctx context.Context, t CaptchaToken) (submission.CaptchaOutcome, error)
}

// CaptchaToken is one token to verify with a captcha provider. Secret and
// Token are credentials: never logged.
type CaptchaToken struct {
	Provider form.CaptchaProvider
	Secret   string
	SiteKey  string
	Token    string
	// RemoteIP is the submitter's address, which providers take as a hint.
	RemoteIP string
}

// ChallengeSigner signs formd's proof-of-work challenges with a key derived
// from the server secret, so a solution can only be for a challenge formd
// issued.
type ChallengeSigner interface {
	Sign(challenge string) string
	// Verify reports whether signature is the challenge's under a key that
	// is still accepted.
	Verify(challenge, signature string) bool
}

// SpentChallenges remembers the proof-of-work challenges whose solution was
// accepted, until they expire, in the database: every process refuses a
// replay.
type SpentChallenges interface {
	// Spend records the challenge as used and reports whether it was new;
	// false means it was spent before.
	Spend(ctx context.Context, challenge string, expiresAt time.Time) (bool, error)
}

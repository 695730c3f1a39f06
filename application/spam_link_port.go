package application

import (
	"context"
	"errors"
	"time"
)

// SpamLink is what the "this was spam" link of a notification mail names:
// one submission of one form, until it expires.
type SpamLink struct {
	FormID       string
	SubmissionID string
	Expires      time.Time
}

// SpamLinkValidity is how long a notification mail's spam link works
// after the mail was rendered.
const SpamLinkValidity = 30 * 24 * time.Hour

// ErrBadSpamLink is a spam link token that formd did not sign, was altered,
// or was signed under a key formd no longer accepts.
var ErrBadSpamLink = errors.New("the spam link is not valid")

// ErrSpamLinkExpired is a genuine spam link past its expiry.
var ErrSpamLinkExpired = errors.New("the spam link has expired")

// SpamLinkTokens signs and reads the stateless tokens of spam links: no
// row is stored per mail, so the token itself carries what it names, under
// a MAC with a key derived from the server secret.
type SpamLinkTokens interface {
	// Token signs l under the current key.
	Token(l SpamLink) string
	// Read returns what a token names; ErrBadSpamLink when it was not made
	// by a key formd accepts. It does not judge the expiry.
	Read(token string) (SpamLink, error)
}

// SpamMarks reads what a spam link's mark needs beyond the Spam folder.
type SpamMarks interface {
	// KeptPayload is the sealed payload of the form's submission while
	// formd still keeps it (archived, held, or deliveries not yet final);
	// domain.ErrNotFound once it is shredded or was never the form's.
	KeptPayload(ctx context.Context, formID, submissionID string) (SealedPayload, error)
	// ReviewedAsSpam reports whether the form's audit trail already records
	// the submission reviewed as spam.
	ReviewedAsSpam(ctx context.Context, formID, submissionID string) (bool, error)
}

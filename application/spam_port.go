package application

import (
	"context"
	"strconv"

	"github.com/formd/formd/domain/submission"
)

// SpamClassifier asks a content classifier (rspamd) what it makes of a
// submission, and teaches it the owner's judgement.
//
// An error from Classify means no verdict could be had: the classifier is
// not reachable, did not answer within its timeout, or answered something
// unreadable. The caller fails open: the submission proceeds untagged and
// the outage is recorded, because a content classifier's outage must not
// lose a real person's message (unlike a captcha, a proof the submitter
// gave and can be asked for again, which fails closed).
//
// An error from Learn means the classifier was not taught; a message it had
// already learned in the same class is not an error.
type SpamClassifier interface {
	Classify(ctx context.Context, m SpamMessage) (SpamVerdict, error)
	Learn(ctx context.Context, m SpamMessage, spam bool) error
}

// SpamMessage is a submission as the classifier sees it: rendered as the
// notification mail would be. Its fields are raw submitted values: never
// logged.
type SpamMessage struct {
	FormID    string
	RequestID string
	// From is the submitter's email address, empty when none was given.
	From string
	// IP is the submitter's address as text, empty when unknown.
	IP      string
	Subject string
	Fields  []submission.Field
}

// Actions a classifier recommends, as rspamd names them, mildest first.
const (
	SpamActionNone           = "no action"
	SpamActionGreylist       = "greylist"
	SpamActionAddHeader      = "add header"
	SpamActionRewriteSubject = "rewrite subject"
	SpamActionSoftReject     = "soft reject"
	SpamActionReject         = "reject"
)

// SpamVerdict is a classifier's answer on one message.
type SpamVerdict struct {
	// Score is the message's score; RequiredScore the score from which the
	// classifier rejects a message.
	Score, RequiredScore float64
	// Action is what the classifier recommends (one of the SpamAction
	// constants).
	Action string
	// Spam is true when the action is add header or worse, or the score
	// reaches RequiredScore.
	Spam bool
	// Symbols are the rules that matched, with their scores: the reasons.
	Symbols []SpamSymbol
}

// SpamSymbol is one rule of the classifier that matched a message.
type SpamSymbol struct {
	Name  string
	Score float64
}

// IsSpamAction reports whether a recommended action marks a message as
// spam: add header or anything stronger. Greylisting only asks a mail
// server to try again later, which a form submission cannot.
func IsSpamAction(action string) bool {
	switch action {
	case SpamActionAddHeader, SpamActionRewriteSubject, SpamActionSoftReject, SpamActionReject:
		return true
	}
	return false
}

// Classification is the verdict as the spam gate takes it: the score, the
// spam flag, and as reasons the symbols that raised the score, strongest
// first, with their scores ("BAYES_SPAM 5.1"). A verdict with no such
// symbol (GTUBE scores through the action alone) gives every symbol's name.
func (v SpamVerdict) Classification() submission.Classification {
	c := submission.Classification{Score: v.Score, Spam: v.Spam}
	for _, s := range v.Symbols {
		if s.Score > 0 {
			c.Reasons = append(c.Reasons, s.Name+" "+strconv.FormatFloat(s.Score, 'f', -1, 64))
		}
	}
	if len(c.Reasons) == 0 {
		for _, s := range v.Symbols {
			c.Reasons = append(c.Reasons, s.Name)
		}
	}
	return c
}

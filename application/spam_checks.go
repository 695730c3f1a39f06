package application

import (
	"context"
	"log/slog"

	"github.com/formd/formd/domain/submission"
)

// SpamCheckOutcome is what asking the classifier about one submission
// found, as SpamCheckCounter counts it.
type SpamCheckOutcome string

// Spam check outcomes.
const (
	SpamCheckHam         SpamCheckOutcome = "ham"
	SpamCheckSpam        SpamCheckOutcome = "spam"
	SpamCheckUnavailable SpamCheckOutcome = "unavailable"
)

// SpamCheckCounter counts the classifier's answers, for operators
// (Prometheus in production): a rising count of unavailable ones means
// submissions go unfiltered.
type SpamCheckCounter interface {
	SpamChecked(outcome SpamCheckOutcome)
}

// SpamChecks asks the content classifier the spam gate waits for
// (submission.Verdict.SpamCheck). It is part of the Submit use case; with
// no classifier configured it has none, and the gate judges by the form's
// rules alone.
type SpamChecks struct {
	classifier SpamClassifier
	counter    SpamCheckCounter
	log        *slog.Logger
}

// NewSpamChecks builds the checks; classifier may be nil (none is
// configured), the others are required.
func NewSpamChecks(classifier SpamClassifier, counter SpamCheckCounter, log *slog.Logger) *SpamChecks {
	if counter == nil || log == nil {
		panic("application: nil dependency of SpamChecks")
	}
	return &SpamChecks{classifier: classifier, counter: counter, log: log}
}

// configured reports whether there is a classifier to ask.
func (c *SpamChecks) configured() bool { return c != nil && c.classifier != nil }

// classify asks the classifier, within the adapter's bounded timeout. It
// never fails: a classifier that gave no verdict is an unavailable
// classification, and the submission proceeds (fail open) because an
// outage of a content filter must not lose a real person's message.
func (c *SpamChecks) classify(ctx context.Context, formID, requestID string, check submission.SpamCheck) submission.Classification {
	verdict, err := c.classifier.Classify(ctx, SpamMessage{FormID: formID, RequestID: requestID, From: check.From, IP: check.IP,
		Subject: check.Subject, Fields: check.Fields})
	if err != nil {
		c.counter.SpamChecked(SpamCheckUnavailable)
		// err names no submitted value (the adapter's contract).
		c.log.Warn("the spam classifier gave no verdict; the submission proceeds unfiltered", "formId", formID, "requestId", requestID,
			"err", err)
		return submission.Classification{Unavailable: true}
	}
	outcome := SpamCheckHam
	if verdict.Spam {
		outcome = SpamCheckSpam
	}
	c.counter.SpamChecked(outcome)
	return verdict.Classification()
}

// spamMemo keeps one request's classification: a request judged again (on
// fresh data, or after a lost commit race) is not classified twice unless
// what the classifier reads changed.
type spamMemo struct {
	done   bool
	key    string
	result submission.Classification
}

// classification asks the classifier unless this request already did for
// the same form and subject.
func (m *spamMemo) classification(ctx context.Context, c *SpamChecks, formID, requestID string, check submission.SpamCheck) submission.Classification {
	key := formID + "\x00" + check.Subject
	if m.done && m.key == key {
		return m.result
	}
	m.done, m.key, m.result = true, key, c.classify(ctx, formID, requestID, check)
	return m.result
}

// learn teaches the classifier the owner's judgement of a submission: its
// payload rendered as the classifier read it when it was accepted. It
// reports whether the classifier was taught; with none configured, or one
// that failed (logged), the judgement still stands and is only not learned.
func (c *SpamChecks) learn(ctx context.Context, formID string, p Payload, spam bool) bool {
	if !c.configured() {
		return false
	}
	m := SpamMessage{FormID: formID, RequestID: p.RequestID, From: p.SubmitterEmail, Subject: p.Subject, Fields: p.Fields}
	if err := c.classifier.Learn(ctx, m, spam); err != nil {
		c.log.Warn("the spam classifier was not taught the owner's judgement", "formId", formID, "requestId", p.RequestID,
			"spam", spam, "err", err)
		return false
	}
	return true
}

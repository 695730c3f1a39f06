package submission

import "github.com/formd/formd/domain/form"

// The spam gate asks a content classifier, when one is configured
// (Request.SpamClassifier), in two steps as the captcha gate does: Judge
// stops at the gate with a SpamCheck to make, the application asks the
// classifier, and Judge runs again with its answer in
// Request.Classification. A classifier that could not answer is answered
// as Classification{Unavailable: true}: the gate then judges by its rules
// alone (it fails open).

// MsgSpamCheckUnavailable is the spam gate's trace for a submission the
// classifier could not judge; the delivery log shows it too.
const MsgSpamCheckUnavailable = "spam check unavailable"

// What a submission's spam check came to, as submission.accepted records
// it (Accepted.SpamCheck); blank when no classifier was asked.
const (
	SpamCheckChecked     = "checked"
	SpamCheckUnavailable = "unavailable"
)

// SpamCheck is what the classifier is asked to judge: the submission as
// its notification mail would show it.
type SpamCheck struct {
	// From is the submitter's email field; blank when there is none.
	From string
	// IP is the submitter's address; blank when unknown.
	IP string
	// Subject is the notification's subject (before any spam marker).
	Subject string
	// Fields are the forwarded fields, as the notification lists them.
	Fields []Field
}

// SpamCheck is the classification judgement waits for, if it does: then
// the verdict is unfinished and refuses (fail closed) until the answer is
// given in Request.Classification and the request is judged again.
func (v Verdict) SpamCheck() (SpamCheck, bool) {
	if v.spamPending == nil {
		return SpamCheck{}, false
	}
	return *v.spamPending, true
}

// SpamCheckResult is what the classifier's check came to: SpamCheckChecked,
// SpamCheckUnavailable, or blank when none was asked.
func (v Verdict) SpamCheckResult() string { return v.spamCheck }

// asksClassifier reports whether the spam gate waits for a classification
// of r, and records the check to make.
func (v *Verdict) asksClassifier(r Request, st form.Settings) bool {
	if c := r.Classification; c != nil {
		v.spamCheck = SpamCheckChecked
		if c.Unavailable {
			v.spamCheck = SpamCheckUnavailable
		}
		return false
	}
	if !r.SpamClassifier {
		return false
	}
	_, data := Split(r.Fields)
	v.spamPending = &SpamCheck{From: r.Envelope.Email, IP: r.RemoteIP, Subject: notificationSubject(st, r.Envelope), Fields: data}
	return true
}

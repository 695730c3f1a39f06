// Package submission is what an accepted submission is: its fields, the
// reserved routing fields that are never forwarded as custom data, the
// honeypot, and the event recorded when one is accepted.
package submission

import (
	"strings"
	"time"
)

// Field is one submitted field; repeated names are already joined.
type Field struct {
	Name  string
	Value string
}

// Reserved field names of the spec's Submission.
const (
	FieldAccessKey = "access_key"
	FieldAPIKey    = "apikey"
	FieldEmail     = "email"
	FieldSubject   = "subject"
	FieldFromName  = "from_name"
	FieldReplyTo   = "replyto"
	FieldCC        = "ccemail"
	FieldRedirect  = "redirect"
	FieldBotcheck  = "botcheck"
	FieldWebhook   = "webhook"
)

// captchaTokens are the fields that carry captcha tokens: the spec's four,
// the names the providers' widgets write, and a solution of formd's
// proof-of-work challenge.
var captchaTokens = map[string]bool{
	"g-captcha-response": true, "captcha_response": true, "h-captcha-response": true, "cf-captcha-response": true,
	"g-recaptcha-response": true, "recaptcha_response": true, "cf-turnstile-response": true,
	"altcha": true,
}

// notForwarded are routing fields, the honeypot and access keys (and the
// captcha tokens): they steer a submission and are never forwarded as
// custom data.
var notForwarded = map[string]bool{
	FieldAccessKey: true, FieldAPIKey: true, FieldSubject: true, FieldFromName: true,
	FieldReplyTo: true, FieldCC: true, FieldRedirect: true, FieldBotcheck: true, FieldWebhook: true,
}

// IsForwarded reports whether a field is custom data that deliveries carry.
func IsForwarded(name string) bool {
	name = strings.ToLower(name)
	return !notForwarded[name] && !captchaTokens[name]
}

// IsCaptchaToken reports whether a field carries a captcha token: a one-time
// proof about the request, not part of what was submitted (a retry of the
// same submission carries a new one).
func IsCaptchaToken(name string) bool { return captchaTokens[strings.ToLower(name)] }

// Envelope holds a submission's routing fields, blanks dropped.
type Envelope struct {
	AccessKey string
	Email     string
	Subject   string
	FromName  string
	ReplyTo   string
	CC        string
	Redirect  string
	Webhook   string
	// Spam is true when the botcheck honeypot was filled.
	Spam bool
}

// Split separates routing fields from the custom data that is forwarded.
func Split(fields []Field) (Envelope, []Field) {
	var env Envelope
	data := make([]Field, 0, len(fields))
	for _, f := range fields {
		v := strings.TrimSpace(f.Value)
		switch strings.ToLower(f.Name) {
		case FieldAccessKey:
			if v != "" { // a blank access_key must not hide an apikey
				env.AccessKey = v
			}
		case FieldAPIKey:
			if env.AccessKey == "" {
				env.AccessKey = v
			}
		case FieldSubject:
			env.Subject = v
		case FieldFromName:
			env.FromName = v
		case FieldReplyTo:
			env.ReplyTo = v
		case FieldCC:
			env.CC = v
		case FieldRedirect:
			env.Redirect = v
		case FieldWebhook:
			env.Webhook = v
		case FieldBotcheck:
			env.Spam = HoneypotFilled(f.Value)
		case FieldEmail:
			env.Email = v
		}
		if IsForwarded(f.Name) {
			data = append(data, f)
		}
	}
	return env, data
}

// HoneypotFilled reports whether a botcheck value counts as filled. Browsers
// send an empty value for an untouched field; scripts often send false-like
// values (false, "", 0), which are accepted too. A honeypot rendered twice
// arrives joined with commas: it is filled when any part is.
func HoneypotFilled(v string) bool {
	for _, part := range strings.Split(v, ",") {
		switch strings.ToLower(strings.TrimSpace(part)) {
		case "", "false", "0", "off", "null":
		default:
			return true
		}
	}
	return false
}

// SplitCC parses CC recipients separated by commas or semicolons.
func SplitCC(s string) []string {
	var out []string
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ';' }) {
		if p := strings.TrimSpace(part); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// AcceptedType is the stored type of Accepted.
const AcceptedType = "submission.accepted.v1"

// RedactedType is the stored type of Redacted.
const RedactedType = "submission.redacted.v1"

// DeliveryRef names one delivery planned for a submission.
type DeliveryRef struct {
	ID   string
	Kind string
	// Target is where the delivery goes, shown safely as delivery.Queued's
	// Target is; empty in events recorded before Accepted queued its
	// deliveries itself.
	Target string
	// Note says why a notification went where it did when a routing rule
	// was skipped (its recipient not verified); blank otherwise.
	Note string
}

// Accepted records an accepted live submission. It carries field names and
// keyed hashes of the values, never the values themselves. It also queues
// the submission's deliveries: no delivery.queued event is recorded for
// them (older submissions' deliveries have one each).
type Accepted struct {
	SubmissionID string
	FormID       string
	// FormVersion is the version of the form whose settings judged the
	// submission (0 on submissions accepted before it was recorded).
	FormVersion int
	RequestID   string
	FieldNames  []string
	ValueHashes map[string]string
	Deliveries  []DeliveryRef
	// SpamCheck is what the content classifier's check came to
	// (SpamCheckChecked, SpamCheckUnavailable); blank when none was asked.
	SpamCheck string
	// Held says the spam gate held the submission for its form's Spam
	// folder: Deliveries are planned, and queued only if the owner releases
	// it (form.SpamReviewed records that on the form's stream, so this
	// stream stays accepted, then redacted once its payload is shredded).
	Held bool
	At   time.Time
}

// EventType implements the event interface.
func (Accepted) EventType() string { return AcceptedType }

// Redacted records that the sealed payload was deleted after every delivery
// reached a final state.
type Redacted struct {
	At time.Time
}

// EventType implements the event interface.
func (Redacted) EventType() string { return RedactedType }

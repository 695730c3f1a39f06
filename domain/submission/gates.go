package submission

import "time"

// Gate names, in the order they are checked (docs/submitting.md: gate order).
const (
	GateAccessKey         = "access_key"
	GateRecipientVerified = "recipient_verified"
	GateOrigin            = "origin"
	GateServerSide        = "server_side"
	GateCaptcha           = "captcha"
	GateHoneypot          = "honeypot"
	GateSpam              = "spam"
	GateRedirect          = "redirect"
	GatePaidFeatures      = "paid_features"
	GateUploads           = "uploads"
	GateFields            = "fields"
	// GateQuota is last: only a submission every other gate accepts is
	// counted, and a live one is counted when it is committed.
	GateQuota = "quota"
)

// Gate outcomes.
const (
	OutcomePassed  = "passed"
	OutcomeFailed  = "failed"
	OutcomeSkipped = "skipped"
)

// Messages of failed gates: what a rejected submitter is told.
const (
	MsgAccessKeyMissing    = "access_key is missing: send the form's access key in the access_key field (or in the /submit/{accessKey} path)."
	MsgAccessKeyUnknown    = "No form matches this access_key. Check the key in your form snippet."
	MsgRecipientUnverified = "The recipient email of this form is not verified. It must be verified before submissions are accepted: follow the link in the verification email."
	MsgOriginNotAllowed    = "This website is not allowed to submit to this form: the Origin or Referer host is not in the form's allowedDomains."
	MsgServerSideNoPlan    = "Submissions without an Origin or Referer header are server-side submissions, which need a paid or manually granted entitlement."
	MsgServerSideIP        = "Server-side submissions are accepted only from the exact IP addresses on the form's allowedSenderIps safelist."
	MsgCaptchaInvalid      = "The captcha was not solved: its token is not valid. Solve the captcha again and resubmit."
	MsgCaptchaExpired      = "The captcha token has expired or was already used. Solve the captcha again and resubmit."
	MsgCaptchaLowScore     = "The captcha rated this submission as likely automated: its score is below the form's minScore."
	MsgCaptchaMisconfig    = "The captcha could not be checked: the captcha provider refused this form's secret or site key. The form's owner must correct its captcha settings."
	MsgCaptchaUnavailable  = "The captcha could not be verified: the captcha provider did not answer in time or answered with an error. Nothing was accepted; try again in a moment."
	MsgProofMissing        = "This form is protected by a proof-of-work challenge: fetch one from /challenge, solve it and send the solution in the altcha field (the formd client script does this for forms marked data-formd-pow)."
	MsgProofInvalid        = "The proof-of-work solution is not valid: its challenge was not issued by this server, or the number does not solve it."
	MsgProofExpired        = "The proof-of-work challenge has expired: fetch a new one from /challenge and solve it again."
	MsgProofReplayed       = "This proof-of-work solution was already used: each solution is accepted once. Solve a new challenge."
	MsgSpam                = "Submission rejected as spam: the botcheck field must be left empty."
	MsgRedirectInvalid     = "redirect must be an absolute https URL."
	MsgRedirectCrossDomain = "Redirecting to another domain needs a paid or manually granted entitlement."
	MsgCCNotEntitled       = "ccemail needs a paid or manually granted entitlement."
	MsgCCInvalid           = "ccemail must list valid email addresses separated by commas or semicolons."
	MsgWebhookNotEntitled  = "A per-submit webhook needs a paid or manually granted entitlement."
	MsgWebhookInvalid      = "webhook must be an absolute https URL."
	MsgReplyToInvalid      = "replyto must be a valid email address."
	MsgUploadsDisabled     = "File uploads are not enabled for this form; send the form without file fields."
	MsgUploadsNotEntitled  = "File uploads need a paid or manually granted entitlement (file_uploads); send the form without file fields."
	MsgValidationFailed    = "Submission validation failed."
	MsgUnjudged            = "The submission was not judged: what its gates consult was not looked up."
)

// MaxCCRecipients bounds the ccemail list.
const MaxCCRecipients = 10

// GateResult is one gate's outcome; a dry run reports every one.
type GateResult struct {
	Gate    string
	Outcome string
	// Message is why a gate failed or was skipped.
	Message string
}

// RejectedError is a submission refused by a gate, with the message the
// submitter is told.
type RejectedError struct {
	Gate    string
	Message string
	// Until is when a refusal that does not depend on the submission ends
	// (the monthly quota's reset); zero for the others.
	Until time.Time
}

func (e *RejectedError) Error() string { return e.Message }

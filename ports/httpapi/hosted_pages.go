package httpapi

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/formd/formd/domain/submission"
	"github.com/formd/formd/ports/portkit"
)

// The hosted pages of plain HTML posts. The error page is reached by a link
// anyone can craft, so it prints only formd's own words: the refusal travels
// as a reason code (a gate name or one of the codes below), field errors as
// field and rule names, and the page maps them to its own text.

// Reason codes of refusals that are not a gate's.
const (
	reasonTooLarge       = "too_large"
	reasonRateLimited    = "rate_limited"
	reasonInvalid        = "invalid_body"
	reasonIdempotencyKey = "idempotency_key"
	reasonFormFlooded    = "form_rate_limited"
	reasonBusy           = "busy"
)

// reasonTexts are the error page's words for each reason code; the keys
// besides formd's own codes are the gate names of the dry-run trace.
var reasonTexts = map[string]string{
	"access_key":         "This form is not set up correctly: its access key is missing or does not match any form.",
	"recipient_verified": "The recipient email of this form is not verified. It must be verified before submissions are accepted.",
	"origin":             "This website is not allowed to submit to this form.",
	"server_side":        "This form does not accept submissions from servers.",
	"captcha":            "The captcha was missing, not solved, expired or could not be checked. Go back, solve it again and resubmit.",
	"honeypot":           "Submission rejected as spam: the botcheck field must be left empty.",
	"spam":               submission.MsgSpamContent,
	"redirect":           "The form's redirect address is not allowed: it must be an https address, on the form's own site unless the account may redirect elsewhere.",
	"paid_features":      "The form asked for a feature this form's account does not have, or gave an invalid reply-to, CC or webhook address.",
	"uploads":            "A file was refused: this form does not accept file uploads, or a file broke its limits (number, size or type), is of a type no form accepts (programs, scripts, web pages, style sheets, SVG), does not match its type, or failed the malware scan.",
	"fields":             "Submission validation failed.",
	"quota":              "This form's account has used up its monthly submission quota. The form accepts submissions again next month.",
	reasonTooLarge:       "The submission is too large.",
	reasonRateLimited:    "Too many submissions from this address. Try again in a moment.",
	reasonInvalid:        "The submission could not be read: it contains data this form does not accept.",
	reasonIdempotencyKey: "The submission's Idempotency-Key is invalid or was already used for another submission.",
	reasonFormFlooded:    "This form is receiving too many submissions right now. Try again in a moment.",
	reasonBusy:           "Too many submissions are being processed right now. Try again in a moment.",
	reasonUnavailable:    "The service is briefly unavailable. Go back and send the form again in a few seconds.",
}

// ruleTexts finish a sentence that starts with the field's name.
var ruleTexts = map[string]string{
	submission.RuleRequired:     "is required",
	submission.RuleMinLength:    "is too short",
	submission.RuleMaxLength:    "is too long",
	submission.RuleEmail:        "must be an email address",
	submission.RuleURL:          "must be a URL",
	submission.RuleNumber:       "must be a number",
	submission.RuleRegex:        "does not have the expected format",
	submission.RuleFileRequired: "needs a file",
	submission.RuleFileType:     "has a file of a type this form does not accept",
}

// maxPageFieldErrors bounds the field errors one error page lists.
const maxPageFieldErrors = 10

// printableFieldName is a field name the page may show: letters, digits and a
// little punctuation, as form field names are.
var printableFieldName = regexp.MustCompile(`^[\p{L}\p{N} _.\-\[\]]{1,64}$`)

// errorPageAddress is where a refused plain post goes: the reason code, the
// request id, the page that posted (the way back) and each field error.
func errorPageAddress(reason, requestID, referer string, fieldErrors []submission.FieldError) string {
	q := url.Values{"code": {reason}, "requestId": {requestID}}
	if referer != "" {
		q.Set("back", referer)
	}
	for i, e := range fieldErrors {
		if i == maxPageFieldErrors {
			break
		}
		q.Add("field", e.Field)
		q.Add("rule", e.Rule)
	}
	return ErrorPagePath + "?" + q.Encode()
}

// errorPage is the hosted failure page of plain HTML posts.
func (s *Server) errorPage(c *gin.Context) {
	message, ok := reasonTexts[c.Query("code")]
	if !ok {
		message = "The form could not be sent."
	}
	var details []string
	fields, rules := c.QueryArray("field"), c.QueryArray("rule")
	for i := 0; i < len(fields) && i < len(rules) && i < maxPageFieldErrors; i++ {
		text, known := ruleTexts[rules[i]]
		if known && printableFieldName.MatchString(fields[i]) {
			details = append(details, fields[i]+" "+text)
		}
	}
	requestID := c.Query("requestId")
	if !portkit.IsSaneRequestID(requestID) {
		requestID = ""
	}
	s.page(c, http.StatusOK, statusPageData{Title: "The form was not sent", Message: message, Details: details,
		RequestID: requestID, BackLink: backLink(c.Query("back"), c.GetHeader("Referer"))})
}

// successPage is the hosted success page of plain HTML posts.
func (s *Server) successPage(c *gin.Context) {
	referer := c.GetHeader("Referer")
	s.page(c, http.StatusOK, statusPageData{Title: "Thank you!", Message: "Your submission was received.",
		BackLink: backLink(referer, referer)})
}

// backLink is an absolute http(s) address on the site the browser came from
// (the host of the page's Referer), or nothing: a crafted link to the error
// page cannot point a visitor from one site to another under formd's name.
func backLink(raw, referer string) string {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
		return ""
	}
	from, err := url.Parse(referer)
	if err != nil || !strings.EqualFold(from.Host, u.Host) {
		return ""
	}
	return u.String()
}

// decodeReason is the reason code of a body formd could not take.
func decodeReason(status int) string {
	switch status {
	case http.StatusRequestEntityTooLarge:
		return reasonTooLarge
	case http.StatusTooManyRequests:
		return reasonBusy
	}
	return reasonInvalid
}

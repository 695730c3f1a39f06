package httpapi

import (
	"cmp"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/formd/formd/application"
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

// pageReasons are the reason codes the error page explains, in the catalog
// as "reason.<code>" (adapters/i18n/catalogs); the codes besides formd's own
// are the gate names of the dry-run trace.
var pageReasons = map[string]bool{
	submission.GateAccessKey: true, submission.GateRecipientVerified: true, submission.GateOrigin: true,
	submission.GateServerSide: true, submission.GateCaptcha: true, submission.GateHoneypot: true, submission.GateSpam: true,
	submission.GateRedirect: true, submission.GatePaidFeatures: true, submission.GateUploads: true, submission.GateFields: true,
	submission.GateQuota: true, reasonTooLarge: true, reasonRateLimited: true, reasonInvalid: true, reasonIdempotencyKey: true,
	reasonFormFlooded: true, reasonBusy: true, reasonUnavailable: true,
}

// msgBusy is the API's answer when too many submissions are in flight.
const msgBusy = "Too many submissions are being processed right now. Try again in a moment."

// pageRules are the field rules the error page words, in the catalog as
// "rule.<rule>" with the field's name.
var pageRules = map[string]bool{
	submission.RuleRequired: true, submission.RuleMinLength: true, submission.RuleMaxLength: true,
	submission.RuleEmail: true, submission.RuleURL: true, submission.RuleNumber: true, submission.RuleRegex: true,
	submission.RuleFileRequired: true, submission.RuleFileType: true,
}

// maxPageFieldErrors bounds the field errors one error page lists.
const maxPageFieldErrors = 10

// printableFieldName is a field name the page may show: letters, digits and a
// little punctuation, as form field names are.
var printableFieldName = regexp.MustCompile(`^[\p{L}\p{N} _.\-\[\]]{1,64}$`)

// errorPageAddress is where a refused plain post goes: the reason code, the
// request id, the page that posted (the way back) and each field error.
func errorPageAddress(reason, requestID, referer, formID string, fieldErrors []submission.FieldError) string {
	q := url.Values{"code": {reason}, "requestId": {requestID}}
	if formID != "" {
		q.Set("form", formID)
	}
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

// successPageAddress is where an accepted plain post without a redirect
// goes: the success page of the form formID, whose language and words it
// shows.
func successPageAddress(formID string) string {
	if formID == "" {
		return SuccessPagePath
	}
	return SuccessPagePath + "?" + url.Values{"form": {formID}}.Encode()
}

// hostedPage is the language and the form's own words of a hosted page:
// the form's (the form query parameter) when it names one, else the
// browser's language and formd's words.
func (s *Server) hostedPage(c *gin.Context, errorPage bool) (application.HostedPageView, bool) {
	accept := c.GetHeader("Accept-Language")
	formID := c.Query("form")
	if s.app.Queries.HostedPage == nil {
		return application.HostedPageView{Language: s.messages().Language(accept)}, true
	}
	if id, ok := portkit.ID(formID); ok {
		formID = id
	} else {
		formID = "" // a crafted link's nonsense is no form
	}
	view, err := s.app.Queries.HostedPage.Handle(c.Request.Context(), application.HostedPage{FormID: formID, Error: errorPage, AcceptLanguage: accept})
	if err != nil {
		s.respondError(c, err)
		return view, false
	}
	return view, true
}

// errorPage is the hosted failure page of plain HTML posts, in the
// form's or the visitor's language, with the form's own words above the
// reason.
func (s *Server) errorPage(c *gin.Context) {
	m := s.messages()
	view, ok := s.hostedPage(c, true)
	if !ok {
		return
	}
	lang := view.Language
	message := m.Text(lang, "page.error.default", nil)
	if code := c.Query("code"); pageReasons[code] {
		message = m.Text(lang, "reason."+code, nil)
	}
	var details []string
	fields, rules := c.QueryArray("field"), c.QueryArray("rule")
	for i := 0; i < len(fields) && i < len(rules) && i < maxPageFieldErrors; i++ {
		if pageRules[rules[i]] && printableFieldName.MatchString(fields[i]) {
			details = append(details, m.Text(lang, "rule."+rules[i], map[string]any{"Field": fields[i]}))
		}
	}
	requestID := c.Query("requestId")
	if !portkit.IsSaneRequestID(requestID) {
		requestID = ""
	}
	page := statusPageData{Lang: lang, Title: m.Text(lang, "page.error.title", nil), Message: message, Details: details,
		RequestID: requestID, BackLink: backLink(c.Query("back"), c.GetHeader("Referer"))}
	if view.Heading != "" {
		page.Title, page.Intro = view.Heading, view.Text
	}
	s.page(c, http.StatusOK, page)
}

// successPage is the hosted success page of plain HTML posts, in the
// form's or the visitor's language, in the form's own words when it has
// them.
func (s *Server) successPage(c *gin.Context) {
	m := s.messages()
	view, ok := s.hostedPage(c, false)
	if !ok {
		return
	}
	lang := view.Language
	referer := c.GetHeader("Referer")
	page := statusPageData{Lang: lang, Title: m.Text(lang, "page.success.title", nil),
		Message: m.Text(lang, "page.success.message", nil), BackLink: backLink(referer, referer)}
	if view.Heading != "" {
		page.Title, page.Message = view.Heading, cmp.Or(view.Text, page.Message)
	}
	s.page(c, http.StatusOK, page)
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

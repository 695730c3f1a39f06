package application

import (
	"errors"
	"strings"

	"github.com/formd/formd/domain"
)

// ErrorKind is what kind of failure a use case's error is. Every driving
// port answers by kind (the JSON API with a status code, the MCP server and
// the dashboard with their own), and /submit's metrics count by it.
type ErrorKind string

// Error kinds, one per row of failureKinds.
const (
	// KindInternal is a failure of formd's own: its detail stays in the log.
	KindInternal ErrorKind = "internal"
	// KindInvalid is a broken input; its message names the field.
	KindInvalid ErrorKind = "invalid"
	// KindForbidden is a known caller that may not do this yet.
	KindForbidden ErrorKind = "forbidden"
	// KindPermissionDenied is a credential that lacks the scope or the access.
	KindPermissionDenied ErrorKind = "permission_denied"
	// KindTooManyRequests is a rate limit: try again after a while.
	KindTooManyRequests ErrorKind = "too_many_requests"
	// KindNotFound is something the caller cannot see.
	KindNotFound ErrorKind = "not_found"
	// KindUnauthenticated is a call without a valid credential.
	KindUnauthenticated ErrorKind = "unauthenticated"
	// KindRefused is a submission a gate refused.
	KindRefused ErrorKind = "refused"
	// KindRefusedUntil is a submission refused until a time whatever is
	// submitted: the monthly quota, until it resets.
	KindRefusedUntil ErrorKind = "refused_until"
	// KindUnavailable is a passing outage of the database: retry shortly.
	KindUnavailable ErrorKind = "unavailable"
)

// Failure is an error as the driving ports and the metrics see it.
type Failure struct {
	Kind ErrorKind
	// Message is what the caller may be told; empty for KindInternal.
	Message string
	// Outcome and Gate are how /submit's metrics count it: refused by
	// Gate, or an error.
	Outcome SubmissionOutcome
	Gate    string
}

// failureKinds is the one table of error kinds, in the order they are
// tried: how each is recognised, what the caller is told, and how
// /submit's metrics count it.
var failureKinds = []struct {
	kind    ErrorKind
	outcome SubmissionOutcome
	// of reports whether err is of the kind, with its message and gate.
	of func(err error) (message, gate string, ok bool)
}{
	{KindUnavailable, SubmissionUnavailable, func(err error) (string, string, bool) {
		return MsgUnavailable, "", errors.Is(err, ErrUnavailable)
	}},
	{KindRefusedUntil, SubmissionRefused, func(err error) (string, string, bool) {
		var r *SubmissionRejected
		if errors.As(err, &r) && !r.Until.IsZero() {
			return r.Response.Message, r.Gate, true
		}
		return "", "", false
	}},
	{KindRefused, SubmissionRefused, func(err error) (string, string, bool) {
		var r *SubmissionRejected
		if errors.As(err, &r) {
			return r.Response.Message, r.Gate, true
		}
		return "", "", false
	}},
	{KindInvalid, SubmissionError, func(err error) (string, string, bool) {
		var invalid *domain.InvalidInputError
		if !errors.As(err, &invalid) {
			return "", "", false
		}
		if invalid.Field != "" && !strings.Contains(invalid.Message, invalid.Field) {
			return invalid.Field + ": " + invalid.Message, "", true
		}
		return invalid.Message, "", true
	}},
	{KindForbidden, SubmissionError, func(err error) (string, string, bool) {
		var forbidden *domain.ForbiddenError
		if errors.As(err, &forbidden) {
			return forbidden.Message, "", true
		}
		return "", "", false
	}},
	{KindPermissionDenied, SubmissionError, func(err error) (string, string, bool) {
		var denied *domain.PermissionDeniedError
		if errors.As(err, &denied) {
			return denied.Message, "", true
		}
		return "", "", false
	}},
	// The only rate limit a submission meets in the use case is its form's.
	{KindTooManyRequests, SubmissionRefused, func(err error) (string, string, bool) {
		var tooMany *domain.TooManyRequestsError
		if errors.As(err, &tooMany) {
			return tooMany.Message, FloodGate, true
		}
		return "", "", false
	}},
	{KindNotFound, SubmissionError, func(err error) (string, string, bool) {
		return MsgNotFound, "", errors.Is(err, domain.ErrNotFound)
	}},
	{KindUnauthenticated, SubmissionError, func(err error) (string, string, bool) {
		if errors.Is(err, ErrTestNeedsCredential) {
			return MsgTestNeedsCredential, "", true
		}
		return MsgUnauthenticated, "", errors.Is(err, ErrUnauthenticated)
	}},
}

// Classify finds err's kind in the one table of error kinds; an error of
// none is KindInternal.
func Classify(err error) Failure {
	for _, k := range failureKinds {
		if msg, gate, ok := k.of(err); ok {
			return Failure{Kind: k.kind, Message: msg, Outcome: k.outcome, Gate: gate}
		}
	}
	return Failure{Kind: KindInternal, Outcome: SubmissionError}
}

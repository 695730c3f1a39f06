package application

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/formd/formd/domain"
)

func TestClassifyFindsEachKindInTheOneTable(t *testing.T) {
	refused := &SubmissionRejected{Gate: "honeypot", Response: SubmissionResponse{Message: "spam"}}
	overQuota := &SubmissionRejected{Gate: "quota", Response: SubmissionResponse{Message: "used up"}, Until: time.Now().Add(time.Hour)}
	for _, tt := range []struct {
		err  error
		want Failure
	}{
		{refused, Failure{Kind: KindRefused, Message: "spam", Outcome: SubmissionRefused, Gate: "honeypot"}},
		{fmt.Errorf("wrapped: %w", overQuota), Failure{Kind: KindRefusedUntil, Message: "used up", Outcome: SubmissionRefused, Gate: "quota"}},
		{&domain.TooManyRequestsError{Message: MsgFormFlooded}, Failure{Kind: KindTooManyRequests, Message: MsgFormFlooded, Outcome: SubmissionRefused, Gate: FloodGate}},
		{domain.Invalid("email", "must be an address"), Failure{Kind: KindInvalid, Message: "email: must be an address", Outcome: SubmissionError}},
		{&domain.ForbiddenError{Message: "not yet"}, Failure{Kind: KindForbidden, Message: "not yet", Outcome: SubmissionError}},
		{&domain.PermissionDeniedError{Message: "no scope"}, Failure{Kind: KindPermissionDenied, Message: "no scope", Outcome: SubmissionError}},
		{domain.ErrNotFound, Failure{Kind: KindNotFound, Message: MsgNotFound, Outcome: SubmissionError}},
		{ErrUnauthenticated, Failure{Kind: KindUnauthenticated, Message: MsgUnauthenticated, Outcome: SubmissionError}},
		{ErrTestNeedsCredential, Failure{Kind: KindUnauthenticated, Message: MsgTestNeedsCredential, Outcome: SubmissionError}},
		{errors.New("connection reset"), Failure{Kind: KindInternal, Outcome: SubmissionError}},
		{fmt.Errorf("commit: %w: %w", ErrUnavailable, errors.New("connection refused")), Failure{Kind: KindUnavailable, Message: MsgUnavailable, Outcome: SubmissionUnavailable}},
	} {
		if got := Classify(tt.err); got != tt.want {
			t.Errorf("Classify(%v) = %+v, want %+v", tt.err, got, tt.want)
		}
	}
}

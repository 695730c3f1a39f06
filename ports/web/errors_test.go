package web

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
)

// A refusal the person can fix is shown on the form, in the API's words;
// not found, signed out and formd's own failures get pages of their own.
func TestFormProblemShowsWhatThePersonCanFix(t *testing.T) {
	fields := map[string]string{"recipientEmail": "recipient"}
	for name, c := range map[string]struct {
		err  error
		want fieldErrors
		ok   bool
	}{
		"a mapped field":       {&domain.InvalidInputError{Field: "recipientEmail", Message: "must be an email address"}, fieldErrors{"recipient": "Must be an email address"}, true},
		"an unmapped field":    {&domain.InvalidInputError{Field: "allowedDomains", Message: "too many"}, fieldErrors{"": "allowedDomains: too many"}, true},
		"the whole input":      {&domain.InvalidInputError{Message: "nothing to change"}, fieldErrors{"": "Nothing to change"}, true},
		"forbidden":            {&domain.ForbiddenError{Message: "Verify your email first."}, fieldErrors{"": "Verify your email first."}, true},
		"permission denied":    {&domain.PermissionDeniedError{Message: "needs forms:write"}, fieldErrors{"": "needs forms:write"}, true},
		"too many":             {&domain.TooManyRequestsError{Message: "Slow down."}, fieldErrors{"": "Slow down."}, true},
		"not found":            {fmt.Errorf("form: %w", domain.ErrNotFound), nil, false},
		"signed out":           {application.ErrUnauthenticated, nil, false},
		"a failure of formd's": {errors.New("connection refused"), nil, false},
		"an outage":            {fmt.Errorf("load: %w", application.ErrUnavailable), nil, false},
	} {
		got, ok := formProblem(c.err, fields)
		if ok != c.ok || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: formProblem = %v, %v; want %v, %v", name, got, ok, c.want, c.ok)
		}
	}
}

// Package domain holds formd's core model. Its subpackages are pure Go: they
// import no framework and do no I/O, so every rule can be tested in isolation.
package domain

import (
	"errors"
	"fmt"
	"time"
)

// InvalidInputError reports a broken rule about one input field. Ports map it
// to a 400 ErrorResponse whose message names the field.
type InvalidInputError struct {
	Field   string
	Message string
}

func (e *InvalidInputError) Error() string {
	if e.Field == "" {
		return e.Message
	}
	return fmt.Sprintf("%s: %s", e.Field, e.Message)
}

// Invalid builds an InvalidInputError for field.
func Invalid(field, format string, args ...any) error {
	return &InvalidInputError{Field: field, Message: fmt.Sprintf(format, args...)}
}

// ErrNotFound means the thing asked for does not exist or is not visible to the caller.
var ErrNotFound = errors.New("not found")

// ForbiddenError means the caller is known but may not do this yet (for example an
// unverified account creating a form). Ports answer it with its message: 403 on
// control-plane routes whose errors the spec leaves open, else 400.
type ForbiddenError struct{ Message string }

func (e *ForbiddenError) Error() string { return e.Message }

// ErrConcurrency is returned when a stream was changed by someone else between
// load and append; repositories retry the command on it.
var ErrConcurrency = errors.New("concurrent modification of the stream")

// TooManyRequestsError refuses an action that came too often; it may be tried
// again after RetryAfter.
type TooManyRequestsError struct {
	Message    string
	RetryAfter time.Duration
}

func (e *TooManyRequestsError) Error() string { return e.Message }

// PermissionDeniedError means the caller is known but its credential does not
// allow this (a workspace API token without the scope a route needs, or a
// token managing tokens). Ports map it to 403 with its message.
type PermissionDeniedError struct{ Message string }

func (e *PermissionDeniedError) Error() string { return e.Message }

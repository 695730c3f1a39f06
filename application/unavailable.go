package application

import "errors"

// ErrUnavailable is wrapped by a store's error when the database could not
// be reached, or could not say in time whether a commit landed: a passing
// outage, which a client should retry with the same Idempotency-Key.
var ErrUnavailable = errors.New("the database is briefly unavailable")

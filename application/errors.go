package application

import "errors"

// ErrUnauthenticated means no valid credential came with a control-plane call.
var ErrUnauthenticated = errors.New("a valid bearer token or session cookie is required")

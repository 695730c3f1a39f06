// Package system adapts the process's clock and randomness to the application.
package system

import (
	"time"

	"github.com/google/uuid"
)

// Clock implements application.Clock with the wall clock.
type Clock struct{}

// Now is time.Now in UTC.
func (Clock) Now() time.Time { return time.Now().UTC() }

// UUIDs implements application.IDs with random (v4) UUIDs.
type UUIDs struct{}

// New returns a new random UUID.
func (UUIDs) New() string { return uuid.NewString() }

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

// UUIDs implements application.IDs with time-ordered (v7) UUIDs: ids that
// are primary keys of tables growing with every submission (events,
// deliveries, payloads) then land at the right end of their B-tree
// indexes, as a sequence would, instead of splitting pages all over them
// (and writing each touched page whole to the WAL after a checkpoint).
// An id is never a secret: access keys, tokens and secrets come from
// application.NewSecret, and link tokens are keyed hashes of ids.
type UUIDs struct{}

// New returns a new UUIDv7: 48 bits of milliseconds, then 74 random bits
// (the uuid package keeps ids made in one millisecond increasing).
func (UUIDs) New() string { return uuid.Must(uuid.NewV7()).String() }

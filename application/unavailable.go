package application

import (
	"errors"
	"time"
)

// ErrUnavailable means the database could not be reached, or could not say
// in time whether a commit landed: a passing outage, not a fault of the
// request. Adapters wrap connection-level failures in it so every port can
// tell the caller to retry (with the same Idempotency-Key) instead of
// reporting a bug.
var ErrUnavailable = errors.New("the database is unavailable")

// The words every driving port answers an outage with. A submission's
// answer adds the advice that keeps a retry from creating a second one.
const (
	MsgUnavailable       = "The service is briefly unavailable. Try again in a few seconds."
	MsgUnavailableSubmit = MsgUnavailable + " If you send an Idempotency-Key, retry with the same key."
)

// UnavailableRetryAfter is the Retry-After of an outage answer: long enough
// for a database restart's crash recovery, short enough to be a pause.
const UnavailableRetryAfter = 3 * time.Second

// DatabaseAvailability is what the driving ports know of the database: a
// request that needs it is refused at once while it is down, instead of
// queueing behind connection attempts that cannot succeed. It only decides
// how fast a request fails, never what is stored.
type DatabaseAvailability interface {
	// Available reports whether the database answered its latest probe.
	Available() bool
	// Lost reports that a request met a lost connection, so the next
	// probe comes at once.
	Lost()
	// Unavailable is err wrapped in ErrUnavailable when it says the
	// database could not be reached, else err: the ports ask it of a
	// failure no adapter recognised on its way out.
	Unavailable(err error) error
}

// AlwaysAvailable is the availability of a process that does not probe its
// database (tests, tools): every request tries it.
type AlwaysAvailable struct{}

// Available implements DatabaseAvailability.
func (AlwaysAvailable) Available() bool { return true }

// Lost implements DatabaseAvailability.
func (AlwaysAvailable) Lost() {}

// Unavailable implements DatabaseAvailability: err as it is.
func (AlwaysAvailable) Unavailable(err error) error { return err }

// UnavailableRefusals counts requests answered with the outage error, by
// the surface that answered (submit, api, dashboard, mcp).
type UnavailableRefusals interface {
	RefusedUnavailable(surface string)
}

// Surfaces of UnavailableRefusals.
const (
	SurfaceSubmit    = "submit"
	SurfaceAPI       = "api"
	SurfaceDashboard = "dashboard"
	SurfaceMCP       = "mcp"
)

// NopRefusals counts nothing.
type NopRefusals struct{}

// RefusedUnavailable implements UnavailableRefusals.
func (NopRefusals) RefusedUnavailable(string) {}

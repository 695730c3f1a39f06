// Package verification holds the email verification aggregate used for both
// handoffs of the spec (account email verification and recipient
// verification) and for formd's password reset by email link, which proves
// the same thing: whoever follows the link reads the address's mail.
// Each request is its own stream: pending -> verified.
package verification

import (
	"errors"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/delivery"
)

// Kind says what a verification proves.
type Kind string

// Kinds of verification.
const (
	KindAccount   Kind = "account"
	KindRecipient Kind = "recipient"
	// KindPasswordReset lets the owner of an account's mailbox set a new
	// password; its subject is the account.
	KindPasswordReset Kind = "password_reset"
	// KindRouteRecipient proves a form's routing recipient reads its
	// mail; its subject is the form, and each address has its own link
	// (only the latest link to the same address verifies).
	KindRouteRecipient Kind = "route_recipient"
)

// Status is a verification's state.
type Status string

// States of the spec's RecipientVerification.status.
const (
	StatusPending  Status = "pending"
	StatusVerified Status = "verified"
)

// Lifetime is how long a verification link stays valid.
const Lifetime = 72 * time.Hour

// PasswordResetLifetime is how long a password reset link stays valid:
// shorter than Lifetime, because the link hands over the whole account,
// while a reset is asked for by someone waiting for the mail.
const PasswordResetLifetime = time.Hour

// LifetimeOf is how long a link of kind stays valid.
func LifetimeOf(kind Kind) time.Duration {
	if kind == KindPasswordReset {
		return PasswordResetLifetime
	}
	return Lifetime
}

// Event is something that happened to a verification.
type Event interface{ EventType() string }

// Event type names as stored.
const (
	RequestedType = "verification.requested.v1"
	CompletedType = "verification.completed.v1"
)

// Requested records that a verification email with a one-time link is due.
// TokenHash is the SHA-256 of the link's token; the token itself is never stored.
type Requested struct {
	VerificationID string
	Kind           Kind
	SubjectID      string
	AccountID      string
	Email          string
	TokenHash      string
	DeliveryID     string
	ExpiresAt      time.Time
	At             time.Time
	// Language is the catalog language of the request that asked for the
	// link, for its mail's words; empty means English.
	Language string
}

// EventType implements Event.
func (Requested) EventType() string { return RequestedType }

// Delivery is the delivery that mails the link: queued with the request, in
// the same transaction, so the mail goes through the one delivery queue
// (attempts, retries with jitter, a final failure) and a mail that can never
// be sent holds up no other.
func (r Requested) Delivery() delivery.Queued {
	q := delivery.Queued{DeliveryID: r.DeliveryID, VerificationID: r.VerificationID, Kind: delivery.KindAccountVerification,
		Target: delivery.EmailTarget(r.Email), At: r.At}
	switch r.Kind {
	case KindRecipient, KindRouteRecipient:
		q.Kind, q.FormID = delivery.KindRecipientVerification, r.SubjectID
	case KindPasswordReset:
		q.Kind = delivery.KindPasswordReset
	}
	return q
}

// Completed records that the link was followed in time.
type Completed struct {
	At time.Time
}

// EventType implements Event.
func (Completed) EventType() string { return CompletedType }

// ErrExpired means the link is past its expiry; a new one must be requested.
var ErrExpired = &domain.ForbiddenError{Message: "This verification link has expired. Request a new verification email."}

// ErrAlreadyUsed means the link was followed before. Following it again
// changes nothing; whether that is harmless depends on its subject, which the
// caller judges (still verified for the same address, or not).
var ErrAlreadyUsed = &domain.ForbiddenError{Message: "This verification link was already used. Request a new verification email."}

// ErrSuperseded means a newer verification was requested for the same
// subject: only the link of the latest one verifies.
var ErrSuperseded = &domain.ForbiddenError{Message: "A newer verification email was sent for this address. Use the link in the latest one."}

// Verification is the event-sourced verification aggregate.
type Verification struct {
	Requested
	status Status
	stream domain.Stream[Event]
}

// Request records a new pending verification.
func Request(r Requested, now time.Time) (*Verification, error) {
	if r.VerificationID == "" || r.SubjectID == "" || r.TokenHash == "" || r.Email == "" || r.DeliveryID == "" {
		return nil, errors.New("verification: id, subject, email, token hash and delivery id are required")
	}
	if r.Kind != KindAccount && r.Kind != KindRecipient && r.Kind != KindPasswordReset && r.Kind != KindRouteRecipient {
		return nil, errors.New("verification: unknown kind")
	}
	r.At = now.UTC()
	r.ExpiresAt = r.At.Add(LifetimeOf(r.Kind))
	v := &Verification{}
	v.record(r)
	return v, nil
}

// Complete verifies the request. latest says whether v is the newest
// verification requested for its subject: a link verifies once, and only
// while no newer link was sent, so an old link cannot verify an address the
// subject took up again later.
func (v *Verification) Complete(now time.Time, latest bool) error {
	if v.status == StatusVerified {
		return ErrAlreadyUsed
	}
	if !latest {
		return ErrSuperseded
	}
	if !now.Before(v.ExpiresAt) {
		return ErrExpired
	}
	v.record(Completed{At: now.UTC()})
	return nil
}

// ErrPasswordResetSince means the account's password was reset, with another
// link, after this one was sent: every earlier link is then spent.
var ErrPasswordResetSince = &domain.ForbiddenError{Message: "The password was set with another reset link after this one was sent. Request a new link if you need one."}

// CompleteReset uses a password reset link to set a new password.
// passwordResetAt is when the account's password was last reset (zero:
// never). Unlike Complete, a newer link does not spend an older one: every
// link of the account stays usable until it expires or until one of them
// resets the password, so a request someone slips in for the address takes
// no link away from its owner; once the password is reset, every link sent
// before is spent.
func (v *Verification) CompleteReset(now, passwordResetAt time.Time) error {
	if v.status == StatusVerified {
		return ErrAlreadyUsed
	}
	if !passwordResetAt.IsZero() && !passwordResetAt.Before(v.At) {
		return ErrPasswordResetSince
	}
	if !now.Before(v.ExpiresAt) {
		return ErrExpired
	}
	v.record(Completed{At: now.UTC()})
	return nil
}

func (v *Verification) record(e Event) { v.stream.Record(v.apply, e) }

func (v *Verification) apply(e Event) {
	switch e := e.(type) {
	case Requested:
		v.Requested = e
		v.status = StatusPending
	case Completed:
		v.status = StatusVerified
	}
}

// FromHistory rebuilds a verification from its events.
func FromHistory(events []Event) (*Verification, error) {
	v := &Verification{}
	if err := v.stream.Load(v.apply, events); err != nil {
		return nil, err
	}
	return v, nil
}

// Status is pending or verified.
func (v *Verification) Status() Status { return v.status }

// Changes are the events recorded since load.
func (v *Verification) Changes() []Event { return v.stream.Changes() }

// Version is the number of events the verification had when loaded.
func (v *Verification) Version() int { return v.stream.Version() }

package form

import (
	"slices"
	"strings"
	"time"

	"github.com/formd/formd/domain"
)

// RouteRecipientVerifiedType is the stored type name of RouteRecipientVerified.
const RouteRecipientVerifiedType = "form.route_recipient_verified.v1"

// RouteRecipientVerified records that a routing rule's recipient followed
// their own verification link.
type RouteRecipientVerified struct {
	RecipientEmail string
	At             time.Time
}

// EventType implements Event.
func (RouteRecipientVerified) EventType() string { return RouteRecipientVerifiedType }

// MarkRouteRecipientVerified records that email, a routing rule's recipient
// a link was sent to, is verified. A link for an address no rule names any
// more is refused: removing a rule forgets its verification.
func (f *Form) MarkRouteRecipientVerified(email string, now time.Time) error {
	if !f.routeNames(email) {
		return &domain.ForbiddenError{Message: "This verification link is for a routing recipient the form no longer uses."}
	}
	if f.RouteRecipientVerified(email) {
		return nil
	}
	f.record(RouteRecipientVerified{RecipientEmail: email, At: now.UTC()})
	return nil
}

// RouteRecipientVerified reports whether email may receive routed
// submissions: its own link was followed, or it is the verified primary
// recipient.
func (f *Form) RouteRecipientVerified(email string) bool {
	return RouteVerified(f.settings, f.recipientVerified, f.verifiedRoutes, email)
}

// RouteVerified is the one rule of whether a routing recipient may receive
// submissions: its own link was followed (verifiedRoutes), or it is the
// form's verified primary recipient.
func RouteVerified(s Settings, recipientVerified bool, verifiedRoutes []string, email string) bool {
	if recipientVerified && strings.EqualFold(email, s.RecipientEmail) {
		return true
	}
	return slices.ContainsFunc(verifiedRoutes, func(v string) bool { return strings.EqualFold(v, email) })
}

// VerifiedRoutes are the routing recipients whose own link was followed.
func (f *Form) VerifiedRoutes() []string { return slices.Clone(f.verifiedRoutes) }

// UnverifiedRouteAddresses are the routing recipients that still need their
// own link followed before they receive anything.
func (f *Form) UnverifiedRouteAddresses() []string {
	var out []string
	for _, a := range RouteAddresses(f.settings.Routes) {
		if !f.RouteRecipientVerified(a) {
			out = append(out, a)
		}
	}
	return out
}

func (f *Form) routeNames(email string) bool {
	return slices.ContainsFunc(f.settings.Routes, func(r Route) bool { return strings.EqualFold(r.RecipientEmail, email) })
}

// forgetRemovedRoutes drops the verification of addresses no rule names
// any more, so adding one again needs a new link.
func (f *Form) forgetRemovedRoutes() {
	f.verifiedRoutes = slices.DeleteFunc(f.verifiedRoutes, func(v string) bool { return !f.routeNames(v) })
	if len(f.verifiedRoutes) == 0 {
		f.verifiedRoutes = nil
	}
}

package portkit

import (
	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/verification"
)

// Route is one routing rule of a form, as shown and as set (a change
// replaces the list whole).
type Route struct {
	RecipientEmail string   `json:"recipientEmail" jsonschema:"where a submission this rule matches goes, once this address followed its own verification link"`
	Field          string   `json:"field" jsonschema:"the submitted field the rule compares"`
	Operator       string   `json:"operator" jsonschema:"equals, in, contains (trimmed, ignoring case) or matches (a regex of the safe subset validation rules use)"`
	Value          string   `json:"value,omitempty" jsonschema:"the value compared, for equals, contains and matches"`
	Values         []string `json:"values,omitempty" jsonschema:"the values compared, for in (at most 50)"`
}

// RouteVerification is whether a routing recipient may receive submissions.
type RouteVerification struct {
	RecipientEmail string `json:"recipientEmail"`
	Status         string `json:"status" jsonschema:"verified, or pending until the address follows its own verification link (the primary recipient's verified address counts as verified)"`
}

// RoutesSettings are routes as the domain holds them.
func RoutesSettings(routes []Route) []form.Route {
	out := make([]form.Route, len(routes))
	for i, r := range routes {
		out[i] = form.Route{RecipientEmail: r.RecipientEmail, Field: r.Field, Operator: form.RouteOperator(r.Operator), Value: r.Value, Values: r.Values}
	}
	return out
}

// PresentRoutes shows a form's routing rules; none is [].
func PresentRoutes(routes []form.Route) []Route {
	out := make([]Route, len(routes))
	for i, r := range routes {
		out[i] = Route{RecipientEmail: r.RecipientEmail, Field: r.Field, Operator: string(r.Operator), Value: r.Value, Values: r.Values}
	}
	return out
}

// PresentRouteVerification is the verification status of each distinct
// routing recipient of a form, in rule order; none is [].
func PresentRouteVerification(f application.FormRecord) []RouteVerification {
	out := []RouteVerification{}
	for _, a := range form.RouteAddresses(f.Settings.Routes) {
		status := verification.StatusPending
		if form.RouteVerified(f.Settings, f.RecipientVerified, f.VerifiedRoutes, a) {
			status = verification.StatusVerified
		}
		out = append(out, RouteVerification{RecipientEmail: a, Status: string(status)})
	}
	return out
}

package submission

import (
	"fmt"
	"slices"
	"strings"

	"github.com/formd/formd/domain/form"
)

// GateRouting names the routing decision in a dry run's gate trace. It
// refuses nothing: it says where the notification would go.
const GateRouting = "routing"

// Notification is one notification mail a plan sends: to the primary
// recipient or to a routing rule's recipient.
type Notification struct {
	Recipient string
	// Rule is the 1-based number of the routing rule that chose the
	// recipient; 0 for the primary recipient.
	Rule int
	// Note says, for the delivery log, why the primary recipient got a
	// submission a rule matched.
	Note string
}

// Routing is what the form's routing rules decide for a submission.
type Routing struct {
	Notifications []Notification
	// Trace says, for a dry run, where the notification goes and why;
	// blank when the form has no routing rules.
	Trace string
}

// Route decides who gets a submission's notification: every verified
// recipient whose rule the fields meet (one mail per address), else the
// primary recipient. A matched rule whose recipient is not verified is
// skipped, and when none verified remains the primary's notification notes
// why it got the submission.
func Route(st form.Settings, recipientVerified bool, verifiedRoutes []string, fields []Field) Routing {
	primary := Notification{Recipient: st.RecipientEmail}
	if len(st.Routes) == 0 {
		return Routing{Notifications: []Notification{primary}}
	}
	matched := form.MatchedRoutes(st.Routes, func(name string) []string { return valuesOf(fields, name) })
	var out []Notification
	var skipped, routed []string
	for _, i := range matched {
		r := st.Routes[i]
		if !form.RouteVerified(st, recipientVerified, verifiedRoutes, r.RecipientEmail) {
			skipped = append(skipped, fmt.Sprintf("rule %d matched, but its recipient %s is not verified", i+1, form.MaskEmail(r.RecipientEmail)))
			continue
		}
		if slices.ContainsFunc(out, func(n Notification) bool { return strings.EqualFold(n.Recipient, r.RecipientEmail) }) {
			continue
		}
		out = append(out, Notification{Recipient: r.RecipientEmail, Rule: i + 1})
		routed = append(routed, fmt.Sprintf("routed to %s by rule %d", form.MaskEmail(r.RecipientEmail), i+1))
	}
	switch {
	case len(out) > 0:
		return Routing{Notifications: out, Trace: strings.Join(append(routed, skipped...), "; ")}
	case len(skipped) > 0:
		primary.Note = strings.Join(skipped, "; ") + "; sent to the primary recipient"
		return Routing{Notifications: []Notification{primary}, Trace: primary.Note}
	default:
		return Routing{Notifications: []Notification{primary}, Trace: "no rule matched; routed to the primary recipient"}
	}
}

// valuesOf is every value submitted under name.
func valuesOf(fields []Field, name string) []string {
	var out []string
	for _, f := range fields {
		if f.Name == name {
			out = append(out, f.Value)
		}
	}
	return out
}

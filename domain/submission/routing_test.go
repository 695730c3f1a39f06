package submission_test

import (
	"reflect"
	"testing"

	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
)

func TestRouteSendsToVerifiedMatchesElseThePrimary(t *testing.T) {
	st := form.Settings{Name: "Contact", RecipientEmail: "owner@example.com", Routes: []form.Route{
		{RecipientEmail: "support@example.com", Field: "department", Operator: form.RouteEquals, Value: "support"},
		{RecipientEmail: "sales@example.com", Field: "department", Operator: form.RouteIn, Values: []string{"sales", "pricing"}},
		{RecipientEmail: "Sales@example.com", Field: "message", Operator: form.RouteContains, Value: "quote"},
	}}
	verified := []string{"sales@example.com"}
	fields := func(kv ...string) []submission.Field {
		var out []submission.Field
		for i := 0; i < len(kv); i += 2 {
			out = append(out, submission.Field{Name: kv[i], Value: kv[i+1]})
		}
		return out
	}
	tests := []struct {
		name   string
		fields []submission.Field
		want   submission.Routing
	}{
		{"a verified match", fields("department", "Pricing", "message", "a quote please"), submission.Routing{
			Notifications: []submission.Notification{{Recipient: "sales@example.com", Rule: 2}},
			Trace:         "routed to s…@example.com by rule 2"}},
		{"no match", fields("department", "other"), submission.Routing{
			Notifications: []submission.Notification{{Recipient: "owner@example.com"}},
			Trace:         "no rule matched; routed to the primary recipient"}},
		{"an unverified match", fields("department", "support"), submission.Routing{
			Notifications: []submission.Notification{{Recipient: "owner@example.com",
				Note: "rule 1 matched, but its recipient s…@example.com is not verified; sent to the primary recipient"}},
			Trace: "rule 1 matched, but its recipient s…@example.com is not verified; sent to the primary recipient"}},
		{"a verified and an unverified match", fields("department", "support", "department", "sales"), submission.Routing{
			Notifications: []submission.Notification{{Recipient: "sales@example.com", Rule: 2}},
			Trace:         "routed to s…@example.com by rule 2; rule 1 matched, but its recipient s…@example.com is not verified"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := submission.Route(st, true, verified, tt.fields); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Route = %+v\nwant %+v", got, tt.want)
			}
		})
	}
	// A form without routing rules sends to the primary and traces nothing.
	if got := submission.Route(form.Settings{RecipientEmail: "owner@example.com"}, true, nil, nil); got.Trace != "" ||
		!reflect.DeepEqual(got.Notifications, []submission.Notification{{Recipient: "owner@example.com"}}) {
		t.Errorf("no rules: %+v", got)
	}
	// The plan queues one notification per routed address, carrying its note.
	plan := submission.PlanDeliveries(st, submission.Envelope{}).WithRouting(submission.Route(st, true, verified, fields("department", "support")))
	if d := plan.Deliveries(); len(d) != 1 || d[0].Kind != delivery.KindEmail || d[0].Recipient != "owner@example.com" || d[0].Note == "" {
		t.Errorf("deliveries %+v", d)
	}
}

package form_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/form"
)

func routed(routes ...form.Route) form.Settings {
	s := settingsBase()
	s.Routes = routes
	return s
}

func TestRoutesValidateNamesTheField(t *testing.T) {
	ok := form.Route{RecipientEmail: "sales@example.com", Field: "department", Operator: form.RouteEquals, Value: "sales"}
	with := func(f func(r *form.Route)) form.Route {
		r := ok
		f(&r)
		return r
	}
	tests := []struct {
		name  string
		route form.Route
		field string
	}{
		{"bad address", with(func(r *form.Route) { r.RecipientEmail = "sales" }), "routes[1].recipientEmail"},
		{"no field", with(func(r *form.Route) { r.Field = " " }), "routes[1].field"},
		{"unknown operator", with(func(r *form.Route) { r.Operator = "startsWith" }), "routes[1].operator"},
		{"no value", with(func(r *form.Route) { r.Value = "" }), "routes[1].value"},
		{"in without values", with(func(r *form.Route) { r.Operator, r.Value = form.RouteIn, "" }), "routes[1].values"},
		{"values on equals", with(func(r *form.Route) { r.Values = []string{"a"} }), "routes[1].values"},
		{"an empty value of in", with(func(r *form.Route) { r.Operator, r.Value, r.Values = form.RouteIn, "", []string{"a", " "} }), "routes[1].values[1]"},
		{"too many values", with(func(r *form.Route) {
			r.Operator, r.Value, r.Values = form.RouteIn, "", settingsList(51, func(i int) string { return strings.Repeat("x", i+1) })
		}), "routes[1].values"},
		{"an unsafe pattern", with(func(r *form.Route) { r.Operator, r.Value = form.RouteMatches, "(a|b)+" }), "routes[1].value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := routed(ok, tt.route).Normalize().Validate(form.Policy{})
			var inv *domain.InvalidInputError
			if !errors.As(err, &inv) || inv.Field != tt.field {
				t.Fatalf("Validate = %v, want an InvalidInputError for %s", err, tt.field)
			}
		})
	}
	many := make([]form.Route, 21)
	for i := range many {
		many[i] = ok
	}
	var inv *domain.InvalidInputError
	if err := routed(many...).Normalize().Validate(form.Policy{}); !errors.As(err, &inv) || inv.Field != "routes" {
		t.Errorf("21 routes: Validate = %v, want refused as routes", err)
	}
	if err := routed(ok, with(func(r *form.Route) { r.Operator, r.Value = form.RouteMatches, `^[A-Z]{2}\d+$` })).Normalize().Validate(form.Policy{}); err != nil {
		t.Errorf("valid routes refused: %v", err)
	}
}

func TestRouteMatching(t *testing.T) {
	tests := []struct {
		route  form.Route
		values []string
		want   bool
	}{
		{form.Route{Operator: form.RouteEquals, Value: "sales"}, []string{" Sales "}, true},
		{form.Route{Operator: form.RouteEquals, Value: "sales"}, []string{"presales"}, false},
		{form.Route{Operator: form.RouteIn, Values: []string{"de", "fr"}}, []string{"FR"}, true},
		{form.Route{Operator: form.RouteIn, Values: []string{"de", "fr"}}, []string{"it"}, false},
		{form.Route{Operator: form.RouteContains, Value: "refund"}, []string{"I want a REFUND now"}, true},
		{form.Route{Operator: form.RouteMatches, Value: `^EU-\d+$`}, []string{"EU-42"}, true},
		{form.Route{Operator: form.RouteMatches, Value: `^EU-\d+$`}, []string{"eu-42"}, false},
		// A field submitted several times matches when any value does.
		{form.Route{Operator: form.RouteEquals, Value: "sales"}, []string{"support", "sales"}, true},
		{form.Route{Operator: form.RouteEquals, Value: "sales"}, nil, false},
	}
	for _, tt := range tests {
		if got := tt.route.Matches(tt.values); got != tt.want {
			t.Errorf("%+v.Matches(%q) = %v, want %v", tt.route, tt.values, got, tt.want)
		}
	}
}

func TestRouteRecipientVerification(t *testing.T) {
	s := routed(form.Route{RecipientEmail: "sales@example.com", Field: "d", Operator: form.RouteEquals, Value: "sales"},
		form.Route{RecipientEmail: "owner@example.com", Field: "d", Operator: form.RouteEquals, Value: "boss"})
	f, err := form.Create(formNewForm(s), form.Policy{}, formT0)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.UnverifiedRouteAddresses(); !slices.Equal(got, []string{"sales@example.com", "owner@example.com"}) {
		t.Fatalf("unverified %q", got)
	}
	if err := f.MarkRouteRecipientVerified("other@example.com", formT0); err == nil {
		t.Error("a link for an address no rule names verified it")
	}
	if err := f.MarkRouteRecipientVerified("Sales@Example.com", formT0); err != nil {
		t.Fatal(err)
	}
	// The verified primary counts as verified for its own route.
	if err := f.MarkRecipientVerified("owner@example.com", formT0); err != nil {
		t.Fatal(err)
	}
	if got := f.UnverifiedRouteAddresses(); len(got) != 0 {
		t.Errorf("unverified after both links: %q", got)
	}
	// Removing the rule forgets its verification; adding it back needs a new link.
	none := []form.Route{}
	if err := f.ChangeSettings(form.Patch{Routes: &none}, form.Policy{}, formT0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	back := s.Routes[:1]
	if err := f.ChangeSettings(form.Patch{Routes: &back}, form.Policy{}, formT0.Add(2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if f.RouteRecipientVerified("sales@example.com") {
		t.Error("a route removed and added again is still verified")
	}
	rebuilt, err := form.FromHistory(append(f.Changes()[:0:0], f.Changes()...))
	if err != nil || rebuilt.RouteRecipientVerified("sales@example.com") || len(rebuilt.VerifiedRoutes()) != 0 {
		t.Errorf("rebuilt form: %v, verified %q", err, rebuilt.VerifiedRoutes())
	}
}

func TestRoutesInTheAuditTrail(t *testing.T) {
	f, err := form.Create(formNewForm(settingsBase()), form.Policy{}, formT0)
	if err != nil {
		t.Fatal(err)
	}
	routes := []form.Route{{RecipientEmail: "sales@example.com", Field: "d", Operator: form.RouteEquals, Value: "sales"}}
	if err := f.ChangeSettings(form.Patch{Routes: &routes}, form.Policy{}, formT0); err != nil {
		t.Fatal(err)
	}
	changed := f.Changes()[len(f.Changes())-1].(form.SettingsChanged)
	if len(changed.Changes) != 1 || changed.Changes[0].Field != "routes" || changed.Changes[0].From != nil ||
		!strings.Contains(string(changed.Changes[0].To), `"recipientEmail":"sales@example.com"`) {
		t.Errorf("changes %+v, want routes from none", changed.Changes)
	}
	// A form without routes keeps the settings shape it had before them.
	if d := form.Diff(settingsBase(), settingsBase(), true); slices.ContainsFunc(d, func(c form.Change) bool { return c.Field == "routes" }) {
		t.Errorf("creation of a form without routes lists them: %+v", d)
	}
}

func TestMaskEmail(t *testing.T) {
	if got := form.MaskEmail("Sales@Example.com"); got != "S…@example.com" {
		t.Errorf("MaskEmail = %q", got)
	}
}

func TestRoutePatternsShareOneSubmissionsMatchingBudget(t *testing.T) {
	route := form.Route{RecipientEmail: "sales@example.com", Field: "department", Operator: form.RouteMatches, Value: "sales"}
	if err := routed(route).Normalize().Validate(form.Policy{}); err != nil {
		t.Fatal(err)
	}
	values := func(vs []string) func(string) []string { return func(string) []string { return vs } }
	last := strings.Repeat("a", domain.MaxFieldValueBytes-len("sales")) + "sales"
	if got := form.MatchedRoutes([]form.Route{route}, values([]string{last})); !slices.Equal(got, []int{0}) {
		t.Fatalf("alone, the value matched rules %v, want [0]", got)
	}
	// The field sent many times at the longest length spends the whole
	// budget before its last value, which then stays unmatched rather than
	// costing more than a submission may.
	long := strings.Repeat("a", domain.MaxFieldValueBytes)
	var many []string
	for range domain.RegexBudget/len(long) + 1 {
		many = append(many, long)
	}
	if got := form.MatchedRoutes([]form.Route{route}, values(append(many, last))); len(got) != 0 {
		t.Fatalf("past the budget, the value matched rules %v, want none", got)
	}
}

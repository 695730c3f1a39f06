package form

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/form/saferegex"
)

// Limits on a form's routing rules: they are read on every submission.
const (
	maxRoutes          = 20
	maxRouteValues     = 50
	maxRouteValueBytes = 500
)

// RouteOperator is how a routing rule compares a submitted field.
type RouteOperator string

// Routing rule operators.
const (
	// RouteEquals matches a value equal to the rule's value.
	RouteEquals RouteOperator = "equals"
	// RouteIn matches a value equal to one of the rule's values.
	RouteIn RouteOperator = "in"
	// RouteContains matches a value that contains the rule's value.
	RouteContains RouteOperator = "contains"
	// RouteMatches matches a value the rule's safe regex matches.
	RouteMatches RouteOperator = "matches"
)

// Route sends a submission whose field meets a condition to a further
// recipient, besides the form's primary recipientEmail. Equals, in and
// contains compare trimmed values case-insensitively; matches uses the
// safe regex subset of field rules.
type Route struct {
	RecipientEmail string        `json:"recipientEmail"`
	Field          string        `json:"field"`
	Operator       RouteOperator `json:"operator"`
	Value          string        `json:"value,omitempty"`
	Values         []string      `json:"values,omitempty"`
}

// normalizeRoutes trims what a rule compares; an empty list is none, so a
// form without rules keeps the settings shape it had before routing.
func normalizeRoutes(routes []Route) []Route {
	if len(routes) == 0 {
		return nil
	}
	out := make([]Route, len(routes))
	for i, r := range routes {
		r.RecipientEmail = strings.TrimSpace(r.RecipientEmail)
		r.Field = strings.TrimSpace(r.Field)
		r.Operator = RouteOperator(strings.ToLower(strings.TrimSpace(string(r.Operator))))
		if r.Operator != RouteMatches {
			r.Value = strings.TrimSpace(r.Value)
		}
		if len(r.Values) > 0 {
			values := make([]string, len(r.Values))
			for j, v := range r.Values {
				values[j] = strings.TrimSpace(v)
			}
			r.Values = values
		} else {
			r.Values = nil
		}
		out[i] = r
	}
	return out
}

// routePath names a property of the i-th rule, e.g. "routes[1].value".
func routePath(i int, sub string) string {
	return "routes[" + strconv.Itoa(i) + "]." + sub
}

// validateRoutes checks every routing rule; the error names the field.
func validateRoutes(routes []Route) error {
	if len(routes) > maxRoutes {
		return domain.Invalid("routes", "routes may list at most %d rules", maxRoutes)
	}
	regexSteps := 0
	for i, r := range routes {
		if !domain.IsEmailAddress(r.RecipientEmail) {
			return domain.Invalid(routePath(i, "recipientEmail"), "recipientEmail must be a valid email address")
		}
		if r.Field == "" {
			return domain.Invalid(routePath(i, "field"), "field names the submitted field the rule compares and is required")
		}
		if n := utf8.RuneCountInString(r.Field); n > rulesMaxFieldNameRunes {
			return domain.Invalid(routePath(i, "field"), "field must be at most %d characters, got %d", rulesMaxFieldNameRunes, n)
		}
		switch r.Operator {
		case RouteEquals, RouteContains, RouteMatches:
			if r.Value == "" {
				return domain.Invalid(routePath(i, "value"), "value is required for operator %q", r.Operator)
			}
			if len(r.Values) > 0 {
				return domain.Invalid(routePath(i, "values"), "values is only for operator \"in\"; use value")
			}
		case RouteIn:
			if len(r.Values) == 0 {
				return domain.Invalid(routePath(i, "values"), "values must list at least one value for operator \"in\"")
			}
			if len(r.Values) > maxRouteValues {
				return domain.Invalid(routePath(i, "values"), "values may list at most %d entries", maxRouteValues)
			}
			if r.Value != "" {
				return domain.Invalid(routePath(i, "value"), "operator \"in\" compares values; leave value out")
			}
			for j, v := range r.Values {
				if v == "" || len(v) > maxRouteValueBytes {
					return domain.Invalid(routePath(i, "values["+strconv.Itoa(j)+"]"),
						"values entries must not be empty and must be at most %d characters", maxRouteValueBytes)
				}
			}
		default:
			return domain.Invalid(routePath(i, "operator"), "operator must be one of equals, in, contains, matches")
		}
		if len(r.Value) > maxRouteValueBytes {
			return domain.Invalid(routePath(i, "value"), "value must be at most %d characters", maxRouteValueBytes)
		}
		if r.Operator == RouteMatches {
			_, size, err := saferegex.CompileSized(r.Value)
			if err != nil {
				return domain.Invalid(routePath(i, "value"), "%s", err.Error())
			}
			// Every pattern may meet a value of the longest length on one
			// submission: together they must fit the matching budget.
			regexSteps += size
			if regexSteps*domain.MaxFieldValueBytes > domain.RegexBudget {
				return domain.Invalid(routePath(i, "value"),
					"the routing patterns together are too costly to check: at most %d compiled steps in all (simplify or remove some patterns)",
					domain.RegexBudget/domain.MaxFieldValueBytes)
			}
		}
	}
	return nil
}

// RouteAddresses are the distinct recipient addresses of routes, in rule
// order, compared case-insensitively.
func RouteAddresses(routes []Route) []string {
	var out []string
	for _, r := range routes {
		if !slices.ContainsFunc(out, func(a string) bool { return strings.EqualFold(a, r.RecipientEmail) }) {
			out = append(out, r.RecipientEmail)
		}
	}
	return out
}

// Matches reports whether one of values (a field may be submitted several
// times) meets the rule's condition. A rule whose pattern no longer
// compiles matches nothing.
func (r Route) Matches(values []string) bool {
	budget := domain.RegexBudget
	return r.matches(values, &budget)
}

// matches is Matches spending at most *budget regex steps: a value whose
// matching would cost more than is left stays unmatched, as field rules
// and spam patterns leave theirs (a field sent many times could otherwise
// cost more than the save-time bound, which counts one value a pattern).
func (r Route) matches(values []string, budget *int) bool {
	var re *regexp.Regexp
	size := 0
	if r.Operator == RouteMatches {
		var err error
		if re, size, err = saferegex.CompileSized(r.Value); err != nil {
			return false
		}
	}
	for _, v := range values {
		if re != nil {
			cost := len(v) * size
			if cost > *budget {
				continue
			}
			*budget -= cost
		}
		if r.matchesOne(v, re) {
			return true
		}
	}
	return false
}

func (r Route) matchesOne(v string, re *regexp.Regexp) bool {
	if re != nil {
		return re.MatchString(v)
	}
	v = strings.TrimSpace(v)
	switch r.Operator {
	case RouteEquals:
		return strings.EqualFold(v, r.Value)
	case RouteIn:
		return slices.ContainsFunc(r.Values, func(want string) bool { return strings.EqualFold(v, want) })
	case RouteContains:
		return strings.Contains(strings.ToLower(v), strings.ToLower(r.Value))
	}
	return false
}

// MatchedRoutes are the indexes of the rules a submission's fields meet, in
// rule order; their patterns share one submission's matching budget.
func MatchedRoutes(routes []Route, values func(field string) []string) []int {
	budget := domain.RegexBudget
	var out []int
	for i, r := range routes {
		if r.matches(values(r.Field), &budget) {
			out = append(out, i)
		}
	}
	return out
}

// MaskEmail shows a routing recipient where submitters may see it (a dry
// run needs only the form's public access key): its first character and
// its domain, such as s…@example.com.
func MaskEmail(address string) string {
	at := strings.LastIndexByte(address, '@')
	if at <= 0 {
		return "…"
	}
	first, _ := utf8.DecodeRuneInString(address)
	return string(first) + "…" + strings.ToLower(address[at:])
}

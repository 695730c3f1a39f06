package web

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/form"
)

// blankRouteRows are the empty rows the Settings tab offers for new
// routing rules: a plain form adds rows by saving, without a script.
const blankRouteRows = 2

// routeRow is one routing rule as the Settings tab shows and reads it:
// Value holds an "in" rule's values separated by commas.
type routeRow struct {
	RecipientEmail, Field, Operator, Value string
	// Status is the recipient's verification: verified, pending, or blank
	// for a row not saved yet.
	Status string
}

// routeOperators are the operators the page offers, in its order.
var routeOperators = []form.RouteOperator{form.RouteEquals, form.RouteIn, form.RouteContains, form.RouteMatches}

// routeRowsOf are a form's routing rules with their recipients' status,
// then the blank rows.
func routeRowsOf(f formHeader) []routeRow {
	var rows []routeRow
	for _, r := range f.Settings.Routes {
		value := r.Value
		if r.Operator == form.RouteIn {
			value = strings.Join(r.Values, ", ")
		}
		status := "pending"
		if form.RouteVerified(f.Settings, f.RecipientVerified, f.VerifiedRoutes, r.RecipientEmail) {
			status = "verified"
		}
		rows = append(rows, routeRow{RecipientEmail: r.RecipientEmail, Field: r.Field, Operator: string(r.Operator), Value: value, Status: status})
	}
	return withBlankRouteRows(rows)
}

func withBlankRouteRows(rows []routeRow) []routeRow {
	for range blankRouteRows {
		rows = append(rows, routeRow{Operator: string(form.RouteEquals)})
	}
	return rows
}

// typedRoutes reads the rows as posted; a row left empty (or emptied, to
// remove its rule) is dropped.
func typedRoutes(r *http.Request) []routeRow {
	recipients, fields := r.PostForm["routeRecipient"], r.PostForm["routeField"]
	operators, values := r.PostForm["routeOperator"], r.PostForm["routeValue"]
	at := func(list []string, i int) string {
		if i < len(list) {
			return strings.TrimSpace(list[i])
		}
		return ""
	}
	var rows []routeRow
	for i := range recipients {
		row := routeRow{RecipientEmail: at(recipients, i), Field: at(fields, i), Operator: at(operators, i), Value: at(values, i)}
		if row.RecipientEmail == "" && row.Field == "" && row.Value == "" {
			continue
		}
		rows = append(rows, row)
	}
	return rows
}

// routesOf are the typed rows as the settings hold them.
func routesOf(rows []routeRow) []form.Route {
	routes := []form.Route{}
	for _, row := range rows {
		route := form.Route{RecipientEmail: row.RecipientEmail, Field: row.Field, Operator: form.RouteOperator(row.Operator), Value: row.Value}
		if route.Operator == form.RouteIn {
			route.Value, route.Values = "", splitList(row.Value)
		}
		routes = append(routes, route)
	}
	return routes
}

// routeIndex finds the rule a routing error names (routes[2].value).
var routeIndex = regexp.MustCompile(`^routes\[(\d+)\]`)

// routeProblem places a refused routing rule next to the table, naming
// the rule by its row.
func routeProblem(invalid *domain.InvalidInputError) (field, message string, ok bool) {
	if m := routeIndex.FindStringSubmatch(invalid.Field); m != nil {
		n, _ := strconv.Atoi(m[1])
		return "routes", "Rule " + strconv.Itoa(n+1) + ": " + invalid.Message, true
	}
	if invalid.Field == "routes" {
		return "routes", upperFirst(invalid.Message), true
	}
	return "", "", false
}

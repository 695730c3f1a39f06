package httpapi

import (
	"net/http"
	"testing"

	"github.com/formd/formd/domain"
)

// A forbidden call is 403 on the control plane, except on the routes whose
// errors the spec lists (400 among them), and 400 on the public routes,
// where the spec lists no 403.
func TestAForbiddenCallIs403OnlyWhereTheSpecLeavesTheStatusOpen(t *testing.T) {
	forbidden := &domain.ForbiddenError{Message: "not now"}
	for route, want := range map[string]int{
		"POST /v1/deliveries/:deliveryId/retry":          http.StatusForbidden,
		"PATCH /v1/forms/:formId":                        http.StatusForbidden,
		"POST /v1/forms":                                 http.StatusBadRequest,
		"PATCH /v1/forms/:formId/integrations/:type":     http.StatusBadRequest,
		"POST /v1/forms/:formId/integrations/:type/test": http.StatusBadRequest,
		"POST /submit":                                   http.StatusBadRequest,
		"POST /submit/:accessKey":                        http.StatusBadRequest,
		"GET /upload":                                    http.StatusBadRequest,
		"POST /agent/auth":                               http.StatusBadRequest,
	} {
		if got, f := statusOf(forbidden, route); got != want || f.Message != "not now" {
			t.Errorf("%s: %d %q, want %d", route, got, f.Message, want)
		}
	}
}

package features_test

import (
	"context"
	"log/slog"
	"net/http"
	"regexp"
	"strings"

	"github.com/gin-gonic/gin"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/formd/formd/application"
	"github.com/formd/formd/ports/httpapi"
)

// routeSchema answers the route listing's readiness checks, which never run.
type routeSchema struct{}

func (routeSchema) Current(context.Context) (bool, error) { return true, nil }

// v1Routes are the /v1 routes of the real gin engine. Registering routes
// calls nothing of the application, so an empty one does; a route added
// later is walked without anyone listing it here.
func v1Routes() gin.RoutesInfo {
	GinkgoHelper()
	h := httpapi.NewServer(&application.Application{}, routeSchema{}, slog.New(slog.DiscardHandler), httpapi.Config{BaseURL: "http://127.0.0.1"})
	engine, ok := h.(*gin.Engine)
	Expect(ok).To(BeTrue(), "httpapi.NewServer returns a *gin.Engine")
	var out gin.RoutesInfo
	for _, r := range engine.Routes() {
		if strings.HasPrefix(r.Path, "/v1/") {
			out = append(out, r)
		}
	}
	Expect(out).NotTo(BeEmpty())
	return out
}

// pathParam matches a gin path parameter (":formId") or wildcard ("*key").
var pathParam = regexp.MustCompile(`[:*][A-Za-z]+`)

// errorLine matches a log line at level ERROR, in slog's text or JSON form.
var errorLine = regexp.MustCompile(`(?i)level"?[=:]"?error`)

var _ = Describe("Malformed ids in /v1 paths", Ordered, func() {
	var f *Formd
	var session string
	valid := map[string]string{}

	BeforeAll(func() {
		f = StartFormd("FORMD_LOG_LEVEL=info")
		session, _ = f.RegisteredVerifiedUser()
		form, _ := f.CreateForm(session, contactForm(nil))
		valid[":formId"] = form["id"].(string)
		valid[":workspaceId"] = form["workspaceId"].(string)
		valid[":type"] = "webhook"
		valid[":tokenId"] = f.TokenWith(session, valid[":workspaceId"], "forms:read").ID
		Expect(f.Patch(session, integrationsPath(valid[":formId"], "webhook"), map[string]any{"targetUrl": "https://hooks.example.test/formd"}).Status).
			To(Equal(http.StatusOK))
		r := f.Post(session, integrationsPath(valid[":formId"], "webhook")+"/test", nil)
		Expect(r.Status).To(Equal(http.StatusCreated), "%s", r)
		valid[":deliveryId"] = r.Object("delivery")["id"].(string)
		// A well-formed id no submission has: what is walked is the other
		// parameter made malformed, and an unknown submission is a 404 too.
		valid[":submissionId"] = "5f0c2a43-93c1-4f3e-9b7e-0d7d2f6f1a2b"
		valid[":index"] = "0" // an attachment's place, not an id: anything but a number is a 404 too
		// Versions of a form, not ids: anything but a number is a 404 too.
		valid[":version"], valid[":to"] = "1", "1"
	})

	It("answers 404 for a malformed id in any path parameter of any route, never 500, and logs no ERROR with the caller's text", func() {
		marker := "caller-text-" + randomHex(6)
		malformed := []string{
			"not-a-uuid-" + marker,
			marker + "-5f0c2a43-93c1-4f3e-9b7e-0d7",         // a uuid's length, not a uuid
			"zzzzzzzz-93c1-4f3e-9b7e-0d7d2f6f1a2b" + marker, // uuid-shaped, bad hex, a tail
			"urn:uuid:5f0c2a43-93c1-4f3e-9b7e-0d7d2f6f1a2b", // uuid.Parse takes it, PostgreSQL does not
			"{5f0c2a43-93c1-4f3e-9b7e-0d7d2f6f1a2b}",        // uuid.Parse and PostgreSQL take it; still not an id
		}
		walked := 0
		for _, route := range v1Routes() {
			params := pathParam.FindAllString(route.Path, -1)
			for _, p := range params {
				_, known := valid[p]
				Expect(known).To(BeTrue(), "route %s %s has path parameter %s: give it a real value in this spec", route.Method, route.Path, p)
			}
			for _, p := range params {
				for _, bad := range malformed {
					path := route.Path
					for _, q := range params {
						v := valid[q]
						if q == p {
							v = bad
						}
						path = strings.Replace(path, q, v, 1)
					}
					var body any
					if route.Method == http.MethodPost || route.Method == http.MethodPatch || route.Method == http.MethodPut {
						body = map[string]any{}
					}
					r := f.Do(route.Method, path, body, Bearer(session))
					walked++
					if strings.HasSuffix(p, "Id") {
						ExpectError(r, http.StatusNotFound)
					} else { // a malformed integration type is a bad request, as the spec lists
						Expect(r.Status).To(BeElementOf(http.StatusBadRequest, http.StatusNotFound), "%s %s: %s", route.Method, path, r)
					}
					Expect(r.Status).NotTo(Equal(http.StatusInternalServerError), "%s %s", route.Method, path)
				}
			}
		}
		Expect(walked).To(BeNumerically(">", 20))
		logs := string(f.Session.Out.Contents()) + string(f.Session.Err.Contents())
		Expect(logs).NotTo(ContainSubstring(marker), "the caller's text is never logged")
		Expect(errorLine.FindString(logs)).To(BeEmpty(), "nothing is logged at level ERROR:\n%s", logs)
	})
})

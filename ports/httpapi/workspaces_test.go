package httpapi

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/gin-gonic/gin"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/account"
)

// documentedScopes reads the scope each /v1 operation of openapi.json
// names for a workspace API token ("" for sessions only), by "METHOD path".
func documentedScopes(t *testing.T, doc *openapi3.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for path, item := range doc.Paths.Map() {
		if !strings.HasPrefix(path, "/v1/") {
			continue
		}
		for method, op := range item.Operations() {
			name := method + " " + path
			if op.Security == nil || len(*op.Security) != 2 {
				t.Errorf("%s: security must be [bearer with its scope, sessionCookie], got %v", name, op.Security)
				continue
			}
			bearer, ok := (*op.Security)[0]["bearer"]
			if !ok || len(bearer) > 1 {
				t.Errorf("%s: the bearer requirement must name at most one scope, got %v", name, (*op.Security)[0])
				continue
			}
			if cookie, ok := (*op.Security)[1]["sessionCookie"]; !ok || len(cookie) != 0 {
				t.Errorf("%s: the session cookie takes no scope, got %v", name, (*op.Security)[1])
			}
			scope := ""
			if len(bearer) == 1 {
				scope = bearer[0]
				if !slices.Contains(account.Scopes(), account.Scope(scope)) {
					t.Errorf("%s: unknown scope %q", name, scope)
				}
			}
			if op.Responses.Status(403) == nil {
				t.Errorf("%s: a token without the scope gets 403, which is not documented", name)
			}
			out[name] = scope
		}
	}
	return out
}

// TestDocumentedScopeTableMatchesTheContract keeps docs/api.md's table of
// the scope each /v1 route needs equal to the security of /openapi.json.
func TestDocumentedScopeTableMatchesTheContract(t *testing.T) {
	doc := loadOpenAPI(t)
	documented := documentedScopes(t, doc)
	readme, err := os.ReadFile("../../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("^\\| `(GET|POST|PATCH|DELETE) (/v1/[^`]*)` \\| (?:`([a-z:]+)`|(sessions only)) \\|")
	inDocs := map[string]string{}
	for _, line := range strings.Split(string(readme), "\n") {
		if m := row.FindStringSubmatch(line); m != nil {
			inDocs[m[1]+" "+m[2]] = m[3]
		}
	}
	if len(documented) < 17 {
		t.Fatalf("found only %d /v1 operations in openapi.json", len(documented))
	}
	var names []string
	for name := range documented {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		got, ok := inDocs[name]
		switch {
		case !ok:
			t.Errorf("docs/api.md's scope table lacks %s (%q)", name, documented[name])
		case got != documented[name]:
			t.Errorf("docs/api.md says %s needs %q, openapi.json %q", name, got, documented[name])
		}
	}
	for name := range inDocs {
		if _, ok := documented[name]; !ok {
			t.Errorf("docs/api.md's scope table lists %s, which openapi.json does not", name)
		}
	}
}

func TestOpenAPIWorkspaceShapes(t *testing.T) {
	doc := loadOpenAPI(t)
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	used := now.Add(time.Hour)
	token := application.TokenRecord{ID: "0b7c6f1e-4a53-4f7e-9a0c-2f3f8f5f1a11", AccountID: "a",
		WorkspaceID: "5d1e9a2b-8c4f-4d6e-b1a7-3c2e9f0d4b22", Name: "CI", Prefix: "fdw_abcdefgh",
		Scopes: []account.Scope{account.ScopeFormsRead, account.ScopeSubmissionsTest}, CreatedAt: now, LastUsedAt: &used}
	checkShape(t, "GET /v1/workspaces", responseSchema(t, doc, "GET", "/v1/workspaces", 200, "application/json"),
		gin.H{"workspaces": []workspaceJSON{{ID: token.WorkspaceID, Name: "Default", CreatedAt: now}}})
	checkShape(t, "GET tokens", responseSchema(t, doc, "GET", "/v1/workspaces/{workspaceId}/tokens", 200, "application/json"),
		gin.H{"tokens": []tokenJSON{presentToken(token), presentToken(application.TokenRecord{ID: token.ID, WorkspaceID: token.WorkspaceID,
			Name: "never used", Prefix: "fdw_12345678", Scopes: []account.Scope{account.ScopeFormsWrite}, CreatedAt: now, ExpiresAt: &used})}})
	created := presentToken(token)
	created.Secret = application.NewSecret(account.TokenPrefix)
	schema := responseSchema(t, doc, "POST", "/v1/workspaces/{workspaceId}/tokens", 201, "application/json")
	checkShape(t, "POST tokens", schema, gin.H{"token": created})
	created.Secret = ""
	if err := schema.VisitJSON(roundTrip(t, gin.H{"token": created}), openapi3.VisitAsResponse()); err == nil {
		t.Error("the created token's answer must require its secret")
	}
	// Never the secret in a listing.
	if _, ok := schemaNamed(t, doc, "WorkspaceToken").Properties["secret"]; ok {
		t.Error("WorkspaceToken must not declare secret")
	}

	req := schemaNamed(t, doc, "CreateWorkspaceToken")
	at := "2027-01-31T00:00:00Z"
	sent := roundTrip(t, tokenRequest{Name: "CI", Scopes: []string{"forms:read"}, ExpiresAt: &at})
	for _, key := range undeclared(req, sent, "CreateWorkspaceToken") {
		t.Errorf("tokenRequest decodes %s, which CreateWorkspaceToken does not declare", key)
	}
	if err := req.VisitJSON(sent, openapi3.VisitAsRequest()); err != nil {
		t.Errorf("CreateWorkspaceToken: %v", err)
	}
}

func roundTrip(t *testing.T, v any) any {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

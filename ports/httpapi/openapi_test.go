package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/gin-gonic/gin"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/altcha"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/submission"
	"github.com/formd/formd/ports/portkit"
)

// loadOpenAPI parses and validates the embedded document.
func loadOpenAPI(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(openAPIDocument)
	if err != nil {
		t.Fatalf("load openapi.json: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("openapi.json is not a valid OpenAPI document: %v", err)
	}
	return doc
}

type currentSchema struct{}

func (currentSchema) Current(context.Context) (bool, error) { return true, nil }

// testEngine builds the real gin engine. No route calls the application while
// routes are registered, and the discovery handlers never call it at all.
func testEngine(t *testing.T) *gin.Engine {
	t.Helper()
	h := NewServer(&application.Application{}, currentSchema{}, slog.New(slog.DiscardHandler),
		Config{BaseURL: "https://forms.example.test", SubmitRatePerIP: 1, SubmitBurstPerIP: 1, NewLimiter: burstOnly})
	engine, ok := h.(*gin.Engine)
	if !ok {
		t.Fatalf("NewServer returned %T, want *gin.Engine", h)
	}
	return engine
}

func TestOpenAPIDocumentIsValid(t *testing.T) {
	doc := loadOpenAPI(t)
	if doc.OpenAPI != "3.0.3" {
		t.Errorf("openapi = %q, want 3.0.3", doc.OpenAPI)
	}
	if doc.Info == nil || doc.Info.Version != "0.1.0" {
		t.Errorf("info.version must be the spec's 0.1.0")
	}
	if len(doc.Servers) != 1 || doc.Servers[0].URL != "/" {
		t.Errorf("servers must stay relative (\"/\"), got %v", doc.Servers)
	}
	for _, name := range []string{
		"Form", "CreatedForm", "CreateForm", "FieldValidationSettings", "FieldValidationRule", "RecipientVerification",
		"Submission", "SubmissionResponse", "SubmissionValidationError", "ErrorResponse", "AgentAuthRequest",
		"AgentAuthResponse", "AgentCapabilities", "ProtectedResourceMetadata", "ApiCatalog",
		"FormPatch", "FormEvent", "GateResult", "WebhookPayload",
	} {
		if doc.Components.Schemas[name] == nil {
			t.Errorf("components.schemas lacks %s", name)
		}
	}
	bearer, cookie := doc.Components.SecuritySchemes["bearer"], doc.Components.SecuritySchemes["sessionCookie"]
	if bearer == nil || bearer.Value.Type != "http" || bearer.Value.Scheme != "bearer" {
		t.Errorf("securitySchemes.bearer must be http bearer")
	}
	if cookie == nil || cookie.Value.Type != "apiKey" || cookie.Value.In != "cookie" || cookie.Value.Name != SessionCookie {
		t.Errorf("securitySchemes.sessionCookie must be the %s cookie", SessionCookie)
	}
}

// TestOpenAPIDocumentsEveryRoute keeps the document and server.go in step:
// every route the engine serves is documented, and nothing else is.
func TestOpenAPIDocumentsEveryRoute(t *testing.T) {
	doc := loadOpenAPI(t)
	var served []string
	for _, r := range testEngine(t).Routes() {
		parts := strings.Split(r.Path, "/")
		for i, p := range parts {
			if strings.HasPrefix(p, ":") || strings.HasPrefix(p, "*") {
				parts[i] = "{" + p[1:] + "}"
			}
		}
		served = append(served, r.Method+" "+strings.Join(parts, "/"))
	}
	var documented []string
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			documented = append(documented, method+" "+path)
			if op.OperationID == "" {
				t.Errorf("%s %s has no operationId", method, path)
			}
			secured := op.Security != nil && len(*op.Security) > 0
			if want := strings.HasPrefix(path, "/v1/"); secured != want {
				t.Errorf("%s %s: security declared = %v, want %v", method, path, secured, want)
			}
		}
	}
	sort.Strings(served)
	sort.Strings(documented)
	for _, r := range served {
		if !slices.Contains(documented, r) {
			t.Errorf("route %s is served but not in openapi.json", r)
		}
	}
	for _, r := range documented {
		if !slices.Contains(served, r) {
			t.Errorf("openapi.json documents %s, which formd does not serve", r)
		}
	}
}

func TestOpenAPIServedWithCaching(t *testing.T) {
	engine := testEngine(t)
	rec := httptest.NewRecorder()
	engine.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/openapi.json", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /openapi.json = %d", rec.Code)
	}
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type = %q", ct)
	}
	if cc := rec.Header().Get("Cache-Control"); !strings.Contains(cc, "max-age=") {
		t.Errorf("Cache-Control = %q, want a cacheable answer", cc)
	}
	if rec.Body.String() != string(openAPIDocument) {
		t.Errorf("the served body is not the embedded document")
	}
	etag := rec.Header().Get("ETag")
	if etag == "" {
		t.Fatal("no ETag")
	}
	req := httptest.NewRequest(http.MethodGet, "/openapi.json", nil)
	req.Header.Set("If-None-Match", etag)
	rec = httptest.NewRecorder()
	engine.ServeHTTP(rec, req)
	if rec.Code != http.StatusNotModified || rec.Body.Len() != 0 {
		t.Errorf("revalidation = %d with %d bytes, want 304 and no body", rec.Code, rec.Body.Len())
	}
}

// checkShape validates value (a Go value as the handlers marshal it) against
// schema, and also insists every object key it emits is declared, so a field
// renamed in Go but not in the document is caught.
func checkShape(t *testing.T, name string, schema *openapi3.Schema, value any) {
	t.Helper()
	raw, err := json.Marshal(value)
	if err != nil {
		t.Fatalf("%s: marshal: %v", name, err)
	}
	var decoded any
	if err := json.Unmarshal(raw, &decoded); err != nil {
		t.Fatalf("%s: unmarshal: %v", name, err)
	}
	if err := schema.VisitJSON(decoded, openapi3.MultiErrors(), openapi3.VisitAsResponse(), openapi3.EnableFormatValidation()); err != nil {
		t.Errorf("%s does not match its schema: %v\n%s", name, err, raw)
	}
	for _, key := range undeclared(schema, decoded, name) {
		t.Errorf("%s emits %s, which the document does not declare", name, key)
	}
}

// undeclared lists object keys of value that schema does not name.
func undeclared(schema *openapi3.Schema, value any, at string) []string {
	if schema == nil {
		return nil
	}
	var out []string
	switch v := value.(type) {
	case map[string]any:
		if !schema.Type.Is("object") && len(schema.Properties) == 0 && len(schema.AllOf) == 0 {
			return nil // an untyped schema (any JSON) declares no keys
		}
		props := map[string]*openapi3.Schema{}
		open := schema.AdditionalProperties.Has != nil && *schema.AdditionalProperties.Has
		var extra *openapi3.Schema
		if schema.AdditionalProperties.Schema != nil {
			extra = schema.AdditionalProperties.Schema.Value
		}
		for _, part := range append([]*openapi3.SchemaRef{{Value: schema}}, schema.AllOf...) {
			for k, p := range part.Value.Properties {
				props[k] = p.Value
			}
		}
		for k, item := range v {
			switch p, ok := props[k]; {
			case ok:
				out = append(out, undeclared(p, item, at+"."+k)...)
			case extra != nil:
				out = append(out, undeclared(extra, item, at+"."+k)...)
			case !open:
				out = append(out, at+"."+k)
			}
		}
	case []any:
		if schema.Items != nil {
			for i, item := range v {
				out = append(out, undeclared(schema.Items.Value, item, fmt.Sprintf("%s[%d]", at, i))...)
			}
		}
	}
	sort.Strings(out)
	return out
}

// responseSchema is the schema of one documented answer.
func responseSchema(t *testing.T, doc *openapi3.T, method, path string, status int, contentType string) *openapi3.Schema {
	t.Helper()
	item := doc.Paths.Find(path)
	if item == nil || item.GetOperation(method) == nil {
		t.Fatalf("%s %s is not documented", method, path)
	}
	resp := item.GetOperation(method).Responses.Status(status)
	if resp == nil || resp.Value.Content[contentType] == nil {
		t.Fatalf("%s %s documents no %d %s answer", method, path, status, contentType)
	}
	return resp.Value.Content[contentType].Schema.Value
}

func schemaNamed(t *testing.T, doc *openapi3.T, name string) *openapi3.Schema {
	t.Helper()
	ref := doc.Components.Schemas[name]
	if ref == nil {
		t.Fatalf("no schema %s", name)
	}
	return ref.Value
}

func intp(n int) *int { return &n }

func TestOpenAPIResponseShapes(t *testing.T) {
	doc := loadOpenAPI(t)
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	record := application.FormRecord{
		ID: "0b7c6f1e-4a53-4f7e-9a0c-2f3f8f5f1a11", AccountID: "a", WorkspaceID: "5d1e9a2b-8c4f-4d6e-b1a7-3c2e9f0d4b22",
		AccessKeyPrefix: "fdk_1a2b", RecipientVerified: true, Version: 3, CreatedAt: now, UpdatedAt: now,
		Settings: form.Settings{
			Name: "Contact", RecipientEmail: "inbox@example.com", AllowedDomains: []string{"example.com", "*.example.org"},
			SubjectDefault: "New message", FromNameDefault: form.DefaultFromName, RedirectDefault: "https://example.com/thanks",
			ReplyToMode: form.ReplyToDefault, ReplyToDefault: "team@example.com",
			Validation: form.ValidationSettings{Fields: []form.FieldRule{
				{Field: "email", Required: true, Type: "email"},
				{Field: "message", MinLength: intp(2), MaxLength: intp(2000), Regex: `^[a-z ]+$`},
				{Field: "cv", File: &form.FileRule{Required: true, AllowedMimeTypes: []string{"application/pdf", "image/*"}}},
			}},
			AllowedSenderIPs: []string{"203.0.113.7"}, UploadsEnabled: true,
			Autoresponder: form.Autoresponder{Enabled: true, Subject: "Thanks", Message: "We got it."},
			Captcha:       form.Captcha{Provider: form.CaptchaRecaptchaV3, SiteKey: "6LcSITE", MinScore: 0.5, SecretID: "c1"},
		},
	}

	t.Run("Challenge", func(t *testing.T) {
		c := altcha.NewChallenge("0a1b2c3d", 7, now.Add(altcha.Lifetime))
		c.Signature = strings.Repeat("ab", 32)
		checkShape(t, "GET /challenge", responseSchema(t, doc, "GET", "/challenge", 200, "application/json"), c)
	})

	t.Run("Delivery", func(t *testing.T) {
		d := application.DeliveryRecord{ID: "0f8e2f7a-5c1b-4d7e-9a3c-6b2d1e4f8a90", FormID: "0b7c6f1e-4a53-4f7e-9a0c-2f3f8f5f1a11",
			Kind: "email", Target: "example.com", State: "succeeded", Attempts: 1, CreatedAt: now, FinishedAt: &now,
			SpamCheck: submission.SpamCheckUnavailable}
		checkShape(t, "Delivery with a spam check", schemaNamed(t, doc, "Delivery"), portkit.PresentDelivery(d))
		d.SpamCheck = ""
		checkShape(t, "Delivery without one", schemaNamed(t, doc, "Delivery"), portkit.PresentDelivery(d))
	})

	t.Run("Form", func(t *testing.T) {
		checkShape(t, "Form", schemaNamed(t, doc, "Form"), portkit.PresentForm(record))
		fresh := record
		fresh.Settings = form.Settings{Name: "New", RecipientEmail: "inbox@example.com"}.Normalize()
		checkShape(t, "Form with defaults", schemaNamed(t, doc, "Form"), portkit.PresentForm(fresh))
		checkShape(t, "GET /v1/forms", responseSchema(t, doc, "GET", "/v1/forms", 200, "application/json"),
			gin.H{"forms": []portkit.Form{portkit.PresentForm(record)}})
		checkShape(t, "PATCH /v1/forms/{formId}", responseSchema(t, doc, "PATCH", "/v1/forms/{formId}", 200, "application/json"),
			gin.H{"form": portkit.PresentForm(record)})
	})

	t.Run("CreatedForm", func(t *testing.T) {
		created := portkit.PresentForm(record)
		created.AccessKey = "fdk_1a2b3c4d5e6f"
		checkShape(t, "POST /v1/forms", responseSchema(t, doc, "POST", "/v1/forms", 201, "application/json"), gin.H{"form": created})
		if err := schemaNamed(t, doc, "CreatedForm").VisitJSON(map[string]any{"id": record.ID, "name": "x",
			"recipientEmail": "a@example.com", "recipientVerified": false, "accessKeyPrefix": "p"}); err == nil {
			t.Error("CreatedForm must require accessKey")
		}
	})

	t.Run("RecipientVerification", func(t *testing.T) {
		pending := presentVerification(record.ID, application.VerificationRecord{Email: "inbox@example.com",
			Status: "pending", DeliveryID: "9f1e", ExpiresAt: now.Add(72 * time.Hour)})
		verified := presentVerification(record.ID, application.VerificationRecord{Email: "inbox@example.com", Status: "verified"})
		checkShape(t, "pending verification", responseSchema(t, doc, "POST", "/v1/forms/{formId}/recipient-verifications", 201, "application/json"),
			gin.H{"verification": pending})
		checkShape(t, "verified verification", responseSchema(t, doc, "GET", "/v1/forms/{formId}/recipient-verification", 200, "application/json"),
			gin.H{"verification": verified})
	})

	t.Run("FormEvent", func(t *testing.T) {
		events := []historyJSON{
			{Type: form.CreatedType, Version: 1, RecordedAt: now, Actor: actorJSON{Type: application.ActorSession, ID: "3f2a", Name: "ada@example.com"},
				RequestID: "req_1", Changes: []changeJSON{{Field: "name", From: json.RawMessage("null"), To: json.RawMessage(`"Contact"`)}}},
			{Type: form.RecipientVerifiedType, Version: 2, RecordedAt: now, Actor: actorJSON{Type: application.ActorLink, ID: "v", Name: "verification link"},
				Changes: changesOf(application.HistoryEntry{Type: form.RecipientVerifiedType, Event: form.RecipientVerified{}})},
			{Type: "form.other.v1", Version: 3, RecordedAt: now, Actor: actorJSON{Type: application.ActorSystem, ID: "formd", Name: "formd"},
				Changes: []changeJSON{{Field: "allowedDomains", From: json.RawMessage(`[]`), To: json.RawMessage(`["example.com"]`)}}},
		}
		checkShape(t, "GET /v1/forms/{formId}/events", responseSchema(t, doc, "GET", "/v1/forms/{formId}/events", 200, "application/json"),
			gin.H{"events": events})
	})

	t.Run("FormVersion", func(t *testing.T) {
		restored := form.SettingsRestored{RestoredVersion: 2, Changes: []form.Change{{Field: "name", From: json.RawMessage(`"Support"`), To: json.RawMessage(`"Contact"`)}}}
		entry := application.HistoryEntry{Type: form.SettingsRestoredType, Version: 4, RecordedAt: now, Event: restored,
			Metadata: application.Metadata{Actor: application.Actor{Type: application.ActorSession, ID: "3f2a"}}, ActorName: "ada@example.com"}
		checkShape(t, "a restore in the trail", responseSchema(t, doc, "GET", "/v1/forms/{formId}/events", 200, "application/json"),
			gin.H{"events": []historyJSON{presentHistoryEntry(entry, changesOf(entry))}})
		checkShape(t, "GET /v1/forms/{formId}/versions/{version}", responseSchema(t, doc, "GET", "/v1/forms/{formId}/versions/{version}", 200, "application/json"),
			gin.H{"version": formVersionJSON{Version: 2, Type: form.SettingsChangedType, RecordedAt: now,
				Actor: actorJSON{Type: application.ActorSession, ID: "3f2a", Name: "ada@example.com"}, Settings: portkit.PresentForm(record)}})
		checkShape(t, "GET /v1/forms/{formId}/versions/{version}/diff/{to}", responseSchema(t, doc, "GET", "/v1/forms/{formId}/versions/{version}/diff/{to}", 200, "application/json"),
			gin.H{"diff": versionDiffJSON{From: 2, To: 4, Changes: changesOf(entry)}})
		checkShape(t, "POST /v1/forms/{formId}/restore", responseSchema(t, doc, "POST", "/v1/forms/{formId}/restore", 200, "application/json"),
			gin.H{"form": portkit.PresentForm(record)})
	})

	t.Run("SubmissionResponse", func(t *testing.T) {
		accepted := application.SubmissionResponse{
			Success: true, Message: application.SuccessMessage, RequestID: "req_0123456789",
			DeliveryID: "d1", AutoresponderDeliveryID: "d2", WebhookDeliveryIDs: []string{"d3"}, NotificationDeliveryIDs: []string{},
			Body: application.ResponseBody{Data: map[string]string{"message": "hi", "email": "a@example.com"}, Message: application.SuccessMessage},
		}
		checkShape(t, "accepted SubmissionResponse", responseSchema(t, doc, "POST", "/submit", 200, "application/json"), accepted)
		dryRun := application.SubmissionResponse{
			Success: false, Message: submission.MsgValidationFailed, RequestID: "req_0123456789", DryRun: true,
			WebhookDeliveryIDs: []string{}, NotificationDeliveryIDs: []string{},
			Errors:     []submission.FieldError{{Field: "email", Rule: submission.RuleRequired, Message: "email is required."}},
			Validation: &application.DryRunValidation{DeliveryQueued: false, FieldNames: []string{"message"}, RecipientVerified: false},
			Gates: []application.GateResult{
				{Gate: submission.GateAccessKey, Outcome: submission.OutcomePassed},
				{Gate: submission.GateRecipientVerified, Outcome: submission.OutcomeSkipped, Message: "dry run"},
				{Gate: submission.GateFields, Outcome: submission.OutcomeFailed, Message: submission.MsgValidationFailed},
			},
			Body: application.ResponseBody{Data: map[string]string{"message": "hi"}, Message: submission.MsgValidationFailed},
		}
		checkShape(t, "dry-run SubmissionResponse", schemaNamed(t, doc, "SubmissionResponse"), dryRun)
		// A JavaScript client's refused submission is answered with the
		// SubmissionResponse it carries; it must be a valid ErrorResponse too.
		checkShape(t, "refused submission as ErrorResponse", responseSchema(t, doc, "POST", "/submit/{accessKey}", 400, "application/json"), dryRun)
	})

	t.Run("ErrorResponse", func(t *testing.T) {
		body := errorBody{Message: "Submission validation failed.", RequestID: "req_0123456789",
			Errors: []submission.FieldError{{Field: "n", Rule: submission.RuleNumber, Message: "n must be a number."}},
			Body:   &responseBody{Data: map[string]any{"n": "x"}, Message: "Submission validation failed."}}
		checkShape(t, "errorBody", schemaNamed(t, doc, "ErrorResponse"), body)
		checkShape(t, "401 errorBody", responseSchema(t, doc, "GET", "/v1/forms", 401, "application/json"),
			errorBody{Message: "A valid bearer token or session cookie is required.", RequestID: "req_0123456789"})
	})

	t.Run("AgentAuth", func(t *testing.T) {
		expires := now.Add(30 * 24 * time.Hour).Format(time.RFC3339)
		out := agentAuthResponse{CredentialType: "session_token", Credential: "fds_secret", Scopes: sessionScopes,
			RegistrationID: "acc", RegistrationType: "user_claimed", CredentialExpires: &expires, VerificationRequired: true,
			Capabilities: agentCapabilities{DryRunSubmissions: true, RecipientVerificationResend: true, RecipientVerificationStatus: true}}
		checkShape(t, "agentAuthResponse", responseSchema(t, doc, "POST", "/agent/auth", 200, "application/json"), out)
		out.CredentialExpires = nil
		checkShape(t, "agentAuthResponse without expiry", schemaNamed(t, doc, "AgentAuthResponse"), out)
	})
}

// TestOpenAPIRequestShapes checks that the request structs formd decodes use
// exactly the documented field names.
func TestOpenAPIRequestShapes(t *testing.T) {
	doc := loadOpenAPI(t)
	autoresponder := portkit.Autoresponder{Enabled: true, Subject: "s", Message: "m"}
	validation := portkit.Validation{Fields: []portkit.FieldRule{{Field: "f", Required: true, Type: "url", MinLength: intp(0),
		MaxLength: intp(5), Regex: "^a", File: &portkit.FileRule{Required: true, AllowedMimeTypes: []string{"image/*"}}}}}
	s, mode, yes, list := "inbox@example.com", string(form.ReplyToSubmitter), true, []string{"example.com"}
	ws := "5d1e9a2b-8c4f-4d6e-b1a7-3c2e9f0d4b22"
	full := formRequest{Name: &s, RecipientEmail: &s, WorkspaceID: &ws, WorkspaceName: &s, AllowedDomains: &list,
		SubjectDefault: &s, FromNameDefault: &s, RedirectDefault: &s, ReplyToMode: &mode, ReplyToDefault: &s,
		Validation: &validation, AllowedSenderIPs: &list, UploadsEnabled: &yes, Autoresponder: &autoresponder,
		UploadLimits: &uploadLimitsJSON{MaxFiles: 2, MaxFileBytes: 1 << 20, AllowedMimeTypes: []string{"image/*"}}}
	provider, score := "recaptcha_v3", 0.7
	full.Captcha = &captchaRequest{Provider: &provider, SiteKey: &s, Secret: &s, MinScore: &score}
	opts := []openapi3.SchemaValidationOption{openapi3.MultiErrors(), openapi3.VisitAsRequest()}

	raw, _ := json.Marshal(full)
	var create map[string]any
	_ = json.Unmarshal(raw, &create)
	captcha := create["captcha"]
	delete(create, "captcha") // PATCH only: createForm refuses it
	for _, key := range undeclared(schemaNamed(t, doc, "CreateForm"), create, "CreateForm") {
		t.Errorf("formRequest decodes %s, which CreateForm does not declare", key)
	}
	if err := schemaNamed(t, doc, "CreateForm").VisitJSON(create, opts...); err != nil {
		t.Errorf("CreateForm: %v", err)
	}

	patch := map[string]any{}
	for k, v := range create {
		if k != "workspaceId" && k != "workspaceName" {
			patch[k] = v
		}
	}
	patch["subjectDefault"] = nil
	patch["captcha"] = captcha
	for _, key := range undeclared(schemaNamed(t, doc, "FormPatch"), patch, "FormPatch") {
		t.Errorf("formRequest decodes %s, which FormPatch does not declare", key)
	}
	if err := schemaNamed(t, doc, "FormPatch").VisitJSON(patch, opts...); err != nil {
		t.Errorf("FormPatch: %v", err)
	}

	raw, _ = json.Marshal(restoreRequest{Version: intp(2)})
	var restore map[string]any
	_ = json.Unmarshal(raw, &restore)
	for _, key := range undeclared(schemaNamed(t, doc, "RestoreFormVersion"), restore, "RestoreFormVersion") {
		t.Errorf("restoreRequest decodes %s, which RestoreFormVersion does not declare", key)
	}
	if err := schemaNamed(t, doc, "RestoreFormVersion").VisitJSON(restore, opts...); err != nil {
		t.Errorf("RestoreFormVersion: %v", err)
	}

	raw, _ = json.Marshal(agentAuthRequest{Email: "a@example.com", Type: "user_claimed", Name: "n",
		Password: "a long passphrase", RequestedCredentialType: "session_token"})
	var register map[string]any
	_ = json.Unmarshal(raw, &register)
	for _, key := range undeclared(schemaNamed(t, doc, "AgentAuthRequest"), register, "AgentAuthRequest") {
		t.Errorf("agentAuthRequest decodes %s, which AgentAuthRequest does not declare", key)
	}
	if err := schemaNamed(t, doc, "AgentAuthRequest").VisitJSON(register, opts...); err != nil {
		t.Errorf("AgentAuthRequest: %v", err)
	}

	raw, _ = json.Marshal(passwordResetRequest{Email: "a@example.com"})
	var reset map[string]any
	_ = json.Unmarshal(raw, &reset)
	for _, key := range undeclared(schemaNamed(t, doc, "PasswordResetRequest"), reset, "PasswordResetRequest") {
		t.Errorf("passwordResetRequest decodes %s, which PasswordResetRequest does not declare", key)
	}
	raw, _ = json.Marshal(passwordResetAnswer{Success: true, Message: MsgPasswordResetSent})
	var answer map[string]any
	_ = json.Unmarshal(raw, &answer)
	if err := schemaNamed(t, doc, "PasswordResetAccepted").VisitJSON(answer, opts...); err != nil {
		t.Errorf("PasswordResetAccepted: %v", err)
	}

	sub := map[string]any{"access_key": "k", "email": "a@example.com", "botcheck": false, "message": "hi",
		"count": 3, "topics": []any{"a", 2, true, nil}, "note": nil}
	if err := schemaNamed(t, doc, "Submission").VisitJSON(sub, opts...); err != nil {
		t.Errorf("Submission: %v", err)
	}
	if err := schemaNamed(t, doc, "Submission").VisitJSON(map[string]any{"nested": map[string]any{"a": "b"}}, opts...); err == nil {
		t.Error("Submission must refuse nested objects, as formd does")
	}
}

// TestOpenAPIDiscoveryShapes validates what the discovery handlers (which do
// not need the application) actually send.
func TestOpenAPIDiscoveryShapes(t *testing.T) {
	doc := loadOpenAPI(t)
	engine := testEngine(t)
	for _, tc := range []struct{ path, contentType string }{
		{"/.well-known/api-catalog", "application/linkset+json"},
		{"/.well-known/oauth-protected-resource", "application/json"},
		{"/.well-known/oauth-authorization-server", "application/json"},
		{"/healthz", "application/json"},
		{"/openapi.json", "application/json"},
	} {
		rec := httptest.NewRecorder()
		engine.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tc.path, nil))
		if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), tc.contentType) {
			t.Errorf("GET %s = %d %s, want 200 %s", tc.path, rec.Code, rec.Header().Get("Content-Type"), tc.contentType)
			continue
		}
		body, _ := io.ReadAll(rec.Body)
		var decoded any
		if err := json.Unmarshal(body, &decoded); err != nil {
			t.Errorf("GET %s: %v", tc.path, err)
			continue
		}
		checkShape(t, "GET "+tc.path, responseSchema(t, doc, "GET", tc.path, 200, tc.contentType), decoded)
	}
	for _, path := range []string{"/auth.md", "/submit/success", "/submit/error?reason=x&requestId=req_1&back=https://example.com/"} {
		rec := httptest.NewRecorder()
		engine.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		route := strings.SplitN(path, "?", 2)[0]
		op := doc.Paths.Find(route).Get
		if rec.Code != http.StatusOK || op.Responses.Status(200) == nil {
			t.Errorf("GET %s = %d", path, rec.Code)
			continue
		}
		ct := strings.SplitN(rec.Header().Get("Content-Type"), ";", 2)[0]
		if op.Responses.Status(200).Value.Content[ct] == nil {
			t.Errorf("GET %s answers %s, which the document does not list", route, ct)
		}
	}
}

// The webhook body is sent by the delivery worker, not served by a route, so
// no exchange checks it: its documented example is the body the application
// test pins (TestDeliverPostsTheWebhookBodyToTheDeliverysURL) and must
// match the schema.
func TestOpenAPIWebhookPayload(t *testing.T) {
	doc := loadOpenAPI(t)
	schema := schemaNamed(t, doc, "WebhookPayload")
	checkShape(t, "WebhookPayload example", schema, schema.Example)
	var sent any
	body := `{"type":"submission.accepted","deliveryId":"d2","submissionId":"s1","formId":"f1","requestId":"req-1",` +
		`"submittedAt":"2026-11-22T11:59:00Z","data":{"message":"hi"}}`
	if err := json.Unmarshal([]byte(body), &sent); err != nil {
		t.Fatal(err)
	}
	checkShape(t, "a sent webhook body", schema, sent)
	for _, reserved := range []string{"access_key", "botcheck", "webhook", "secret"} {
		if _, ok := schema.Properties[reserved]; ok {
			t.Errorf("WebhookPayload declares %s", reserved)
		}
	}
}

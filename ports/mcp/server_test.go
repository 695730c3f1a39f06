package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/ports/mcp"
)

// The MCP port is tested here for what it adds to the use cases: who may
// call it, what it lists, how a tool runs as the caller and how refusals
// read. features/mcp_test.go drives a whole form's set-up through it
// against a real formd.

const (
	sessionToken = "fds_the-one-session-of-the-test-account"
	readToken    = "fdw_a-token-of-the-test-workspace-that-may-only-read"
	formID       = "0b5c6a51-52f4-4c07-9f1d-6c8d2b0f7e11"
)

type fakeRead struct{ application.ReadModel }

func (fakeRead) SessionByTokenHash(_ context.Context, hash []byte, _ time.Time) (application.AccountRecord, error) {
	if string(hash) != string(application.HashSecret(sessionToken)) {
		return application.AccountRecord{}, domain.ErrNotFound
	}
	return application.AccountRecord{ID: "acc-1"}, nil
}

func (fakeRead) FormsByAccount(_ context.Context, accountID string) ([]application.FormRecord, error) {
	if accountID != "acc-1" {
		return nil, nil
	}
	return []application.FormRecord{{ID: formID, AccountID: "acc-1", WorkspaceID: "ws-1", AccessKeyPrefix: "fk_abcd",
		Settings: form.Settings{Name: "Contact", RecipientEmail: "inbox@example.com"}, Version: 1}}, nil
}

func (r fakeRead) FormByID(ctx context.Context, id string) (application.FormRecord, error) {
	forms, _ := r.FormsByAccount(ctx, "acc-1")
	for _, f := range forms {
		if f.ID == id {
			return f, nil
		}
	}
	return application.FormRecord{}, domain.ErrNotFound
}

// archive is a form's empty submissions archive.
type archive struct{ application.SubmissionArchive }

func (archive) ArchivedPage(context.Context, string, application.ArchiveFilter) ([]application.ArchivedSubmission, error) {
	return nil, nil
}

func (archive) ArchivedSubmission(context.Context, string, string) (application.ArchivedSubmission, error) {
	return application.ArchivedSubmission{}, domain.ErrNotFound
}

// accessLog keeps the accesses recorded, for the test to read once a call
// has answered.
type accessLog struct {
	application.SubmissionAccessLog
	mu       sync.Mutex
	accesses []application.SubmissionAccess
}

func (l *accessLog) RecordAccess(_ context.Context, a application.SubmissionAccess) (int64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.accesses = append(l.accesses, a)
	return int64(len(l.accesses)), nil
}

func (l *accessLog) recorded() []application.SubmissionAccess {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.accesses)
}

// hasher "hashes" a value by prefixing it, so a test can tell a hash from
// the value.
type hasher struct{}

func (hasher) HashValueUnderEveryKey(_, _, value string) []string { return []string{"hash:" + value} }

// tokens knows one workspace token, which holds forms:read only.
type tokens struct{ application.WorkspaceTokens }

func (tokens) ActiveTokenByHash(_ context.Context, hash []byte, _ time.Time) (application.TokenRecord, error) {
	if string(hash) != string(application.HashSecret(readToken)) {
		return application.TokenRecord{}, domain.ErrNotFound
	}
	now := time.Now()
	return application.TokenRecord{ID: "tok-1", AccountID: "acc-1", WorkspaceID: "ws-1",
		Scopes: []account.Scope{account.ScopeFormsRead}, LastUsedAt: &now}, nil
}

type clock struct{}

func (clock) Now() time.Time { return time.Now() }

// requests records what the port reports to the metrics.
type requests struct{ routes []string }

func (r *requests) ObserveRequest(route, method string, status int, _ time.Duration) {
	r.routes = append(r.routes, route+" "+method)
}

// newServer serves the MCP port in front of a next handler answering 299,
// with the use cases the tests call built on the fakes above.
func newServer(t *testing.T) (*httptest.Server, *requests) {
	t.Helper()
	srv, seen, _ := newServerWithAccessLog(t)
	return srv, seen
}

// newServerWithAccessLog is newServer that also returns the archive's access
// log.
func newServerWithAccessLog(t *testing.T) (*httptest.Server, *requests, *accessLog) {
	t.Helper()
	return newServerWithSpamFolder(t, &heldFolder{})
}

// newServerWithSpamFolder is newServerWithAccessLog whose form's Spam folder
// is folder.
func newServerWithSpamFolder(t *testing.T, folder *heldFolder) (*httptest.Server, *requests, *accessLog) {
	t.Helper()
	read := fakeRead{}
	accesses := &accessLog{}
	app := &application.Application{Queries: application.Queries{
		Authenticate: application.NewAuthenticateHandler(read, tokens{}, clock{}),
		ListForms:    application.NewListFormsHandler(read),
		FormHistory:  application.NewFormHistoryHandler(read, struct{ application.ActorNameReader }{}),
		// Only an empty archive: what the port adds is the caller, the
		// request id and the arguments' reading.
		ReadSubmissions: application.NewReadSubmissionsHandler(read, archive{}, struct{ application.DeliveryLog }{}, accesses, struct{ application.Sealer }{},
			hasher{}, struct{ application.ObjectLinks }{}, clock{}),
	}, Commands: application.Commands{
		SpamFolder: application.NewSpamFolderHandler(folder, read, folder, accesses, plainSealer{},
			application.NewSpamChecks(nil, struct{ application.SpamCheckCounter }{}, slog.New(slog.DiscardHandler)), clock{}),
	}}
	next := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(299) })
	seen := &requests{}
	srv := httptest.NewServer(mcp.NewHandler(app, slog.New(slog.NewTextHandler(io.Discard, nil)), mcp.Config{Requests: seen}, next))
	t.Cleanup(srv.Close)
	return srv, seen, accesses
}

// bearer adds a credential to every request of a client.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func connect(t *testing.T, srv *httptest.Server, token string) *sdk.ClientSession {
	t.Helper()
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	session, err := client.Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: srv.URL + mcp.Path,
		HTTPClient: &http.Client{Transport: bearer{token}}, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = session.Close() })
	return session
}

func call(t *testing.T, s *sdk.ClientSession, tool string, args map[string]any) *sdk.CallToolResult {
	t.Helper()
	res, err := s.CallTool(t.Context(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res
}

func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestOtherPathsGoToTheNextHandler(t *testing.T) {
	srv, _ := newServer(t)
	for _, path := range []string{"/", "/v1/forms", "/mcp/", "/mcpx"} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 299 {
			t.Errorf("GET %s = %d, want the next handler's 299", path, resp.StatusCode)
		}
	}
}

func TestACallWithoutAValidCredentialIs401(t *testing.T) {
	srv, seen := newServer(t)
	for name, header := range map[string]string{"none": "", "unknown": "Bearer fds_nobody", "basic": "Basic " + sessionToken,
		"cookie only": ""} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+mcp.Path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if header != "" {
			req.Header.Set("Authorization", header)
		}
		if name == "cookie only" {
			req.AddCookie(&http.Cookie{Name: "auth.session_token", Value: sessionToken})
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body map[string]any
		err = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || err != nil {
			t.Errorf("%s: %d (%v), want 401 with a JSON body", name, resp.StatusCode, err)
			continue
		}
		if !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("%s: WWW-Authenticate %q, want Bearer", name, resp.Header.Get("WWW-Authenticate"))
		}
		if body["success"] != false || body["message"] != "A valid bearer token or session cookie is required." ||
			body["requestId"] != resp.Header.Get("X-Request-Id") || body["requestId"] == "" {
			t.Errorf("%s: body %v is not the API's ErrorResponse", name, body)
		}
	}
	if len(seen.routes) != 4 || seen.routes[0] != "/mcp POST" {
		t.Errorf("metrics saw %v, want four POST /mcp", seen.routes)
	}
}

func TestToolsAreListedWithSchemas(t *testing.T) {
	srv, _ := newServer(t)
	res, err := connect(t, srv, sessionToken).ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if tool.Description == "" || tool.InputSchema == nil || tool.OutputSchema == nil {
			t.Errorf("%s lacks a description or a schema", tool.Name)
		}
	}
	want := []string{"clear_test_inbox", "configure_integration", "create_form", "dry_run_submission", "get_form_history", "get_form_version",
		"get_recipient_verification", "get_spam", "get_submission", "list_deliveries", "list_forms", "list_spam", "list_submissions",
		"read_test_inbox", "resend_recipient_verification", "restore_form_version", "retry_delivery", "review_spam", "test_integration",
		"update_form"}
	slices.Sort(names)
	if !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
}

func TestToolsRunAsTheCaller(t *testing.T) {
	srv, _ := newServer(t)
	res := call(t, connect(t, srv, sessionToken), "list_forms", nil)
	if res.IsError || !strings.Contains(text(res), formID) || !strings.Contains(text(res), `"accessKeyPrefix":"fk_abcd"`) {
		t.Fatalf("list_forms = %s (error %v), want the account's form", text(res), res.IsError)
	}
	if strings.Contains(text(res), `"accessKey":`) {
		t.Errorf("list_forms shows an access key: %s", text(res))
	}
	res = call(t, connect(t, srv, readToken), "list_forms", nil)
	if res.IsError || !strings.Contains(text(res), formID) {
		t.Fatalf("list_forms with a forms:read token = %s, want the workspace's form", text(res))
	}
}

func TestRefusalsAreToolErrorsWithTheAPIsMessage(t *testing.T) {
	srv, _ := newServer(t)
	reader := connect(t, srv, readToken)
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"create_form", map[string]any{"name": "x", "recipientEmail": "x@example.com"},
			"This workspace API token lacks the forms:write scope, which this route needs. Use a token with forms:write, or a session."},
		{"update_form", map[string]any{"formId": formID, "name": "y"}, "lacks the forms:write scope"},
		{"get_form_history", map[string]any{"formId": "not-a-uuid"}, "Not found."},
		{"get_form_history", map[string]any{"formId": "7d1f1c1e-0000-4000-8000-000000000000"}, "Not found."},
		{"create_form", map[string]any{"name": "x"}, "recipientEmail"},
	} {
		res := call(t, reader, tc.tool, tc.args)
		if !res.IsError || !strings.Contains(text(res), tc.want) {
			t.Errorf("%s %v = %q (error %v), want a tool error with %q", tc.tool, tc.args, text(res), res.IsError, tc.want)
		}
	}
}

func TestArchiveToolsRecordTheReadAsTheCallerWithTheRequestsID(t *testing.T) {
	srv, _, accesses := newServerWithAccessLog(t)
	owner := connect(t, srv, sessionToken)
	res := call(t, owner, "list_submissions", map[string]any{"formId": strings.ToUpper(formID), "email": "Ada@Example.com",
		"status": "failed", "from": "2026-11-01", "limit": 10})
	if res.IsError || text(res) != `{"submissions":[]}` {
		t.Fatalf("list_submissions = %s (error %v), want an empty page", text(res), res.IsError)
	}
	got := accesses.recorded()
	if len(got) != 1 {
		t.Fatalf("recorded %d accesses, want 1", len(got))
	}
	a := got[0]
	if a.FormID != formID || a.Action != application.AccessList || a.RequestID == "" || a.Actor.Type != application.ActorSession ||
		a.Count == nil || *a.Count != 0 {
		t.Errorf("recorded %+v, want a list of form %s by the session with the request's id and a count of 0", a, formID)
	}
	want := map[string]string{"email": "hash:ada@example.com", "status": "failed", "from": "2026-11-01T00:00:00Z"}
	if len(a.Filters) != len(want) || a.Filters["email"] != want["email"] || a.Filters["status"] != want["status"] ||
		a.Filters["from"] != want["from"] {
		t.Errorf("filters %v, want %v: the address only as its hash", a.Filters, want)
	}

	res = call(t, owner, "list_submissions", map[string]any{"formId": formID})
	if res.IsError {
		t.Fatalf("list_submissions without filters = %s", text(res))
	}
	if got := accesses.recorded(); len(got) != 2 || got[1].RequestID == a.RequestID {
		t.Errorf("accesses %+v, want a second one with its own request id", got)
	}
}

func TestArchiveToolsRefuseWithTheAPIsMessages(t *testing.T) {
	srv, _, accesses := newServerWithAccessLog(t)
	owner, reader := connect(t, srv, sessionToken), connect(t, srv, readToken)
	submissionID := "5f0e6a2b-1c3d-4e5f-8a9b-0c1d2e3f4a5b"
	for _, tc := range []struct {
		who  *sdk.ClientSession
		tool string
		args map[string]any
		want string
	}{
		{reader, "list_submissions", map[string]any{"formId": formID},
			"This workspace API token lacks the submissions:read scope, which this route needs. Use a token with submissions:read, or a session."},
		{reader, "get_submission", map[string]any{"formId": formID, "submissionId": submissionID}, "lacks the submissions:read scope"},
		{owner, "get_submission", map[string]any{"formId": formID, "submissionId": submissionID}, "Not found."},
		{owner, "get_submission", map[string]any{"formId": formID, "submissionId": "not-a-uuid"}, "Not found."},
		{owner, "list_submissions", map[string]any{"formId": "7d1f1c1e-0000-4000-8000-000000000000"}, "Not found."},
		{owner, "list_submissions", map[string]any{"formId": formID, "from": "yesterday"}, "from must be a date"},
		{owner, "list_submissions", map[string]any{"formId": formID, "status": "lost"}, "status must be one of pending, delivered, failed"},
		{owner, "list_submissions", map[string]any{"formId": formID, "field": "company"}, "value is the value of field to find"},
		{owner, "list_submissions", map[string]any{"formId": formID, "limit": 101}, "limit must be between 1 and 100"},
		{owner, "list_submissions", map[string]any{"formId": formID, "cursor": "not a cursor"}, "cursor"},
	} {
		res := call(t, tc.who, tc.tool, tc.args)
		if !res.IsError || !strings.Contains(text(res), tc.want) {
			t.Errorf("%s %v = %q (error %v), want a tool error with %q", tc.tool, tc.args, text(res), res.IsError, tc.want)
		}
	}
	if got := accesses.recorded(); len(got) != 0 {
		t.Errorf("refused reads were recorded: %+v", got)
	}
}

package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/formd/formd/application"
	"github.com/formd/formd/ports/mcp"
)

// database is an availability the test sets, and the refusals it counted.
type database struct {
	mu       sync.Mutex
	down     bool
	lost     int
	refusals int
}

func (d *database) Available() bool           { d.mu.Lock(); defer d.mu.Unlock(); return !d.down }
func (d *database) Lost()                     { d.mu.Lock(); d.lost++; d.mu.Unlock() }
func (d *database) RefusedUnavailable(string) { d.mu.Lock(); d.refusals++; d.mu.Unlock() }

// errLostConnection is a failure only the database adapter recognises.
var errLostConnection = errors.New("connection refused")

func (d *database) Unavailable(err error) error {
	if errors.Is(err, errLostConnection) {
		return fmt.Errorf("%w: %w", application.ErrUnavailable, err)
	}
	return err
}

// outageRead authenticates, then loses its connection listing forms.
type outageRead struct{ fakeRead }

func (outageRead) FormsByAccount(context.Context, string) ([]application.FormRecord, error) {
	return nil, fmt.Errorf("list forms: %w: %w", application.ErrUnavailable, fmt.Errorf("connection refused"))
}

// unwrappedOutageRead loses its connection without the adapter saying so.
type unwrappedOutageRead struct{ fakeRead }

func (unwrappedOutageRead) FormsByAccount(context.Context, string) ([]application.FormRecord, error) {
	return nil, fmt.Errorf("list forms: %w", errLostConnection)
}

func serverOn(t *testing.T, read application.ReadModel, db *database) *httptest.Server {
	t.Helper()
	app := &application.Application{Queries: application.Queries{
		Authenticate: application.NewAuthenticateHandler(read, tokens{}, clock{}),
		ListForms:    application.NewListFormsHandler(read),
	}}
	next := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(299) })
	srv := httptest.NewServer(mcp.NewHandler(app, slog.New(slog.NewTextHandler(io.Discard, nil)),
		mcp.Config{Database: db, Refusals: db}, next))
	t.Cleanup(srv.Close)
	return srv
}

func TestWhileTheDatabaseIsDownMCPIsToldToRetryAtOnce(t *testing.T) {
	db := &database{down: true}
	srv := serverOn(t, fakeRead{}, db)
	req, _ := http.NewRequest(http.MethodPost, srv.URL+mcp.Path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+sessionToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusInternalServerError || resp.Header.Get("Retry-After") != "3" {
		t.Errorf("status %d, Retry-After %q; want 500 and 3", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if body["success"] != false || body["message"] != application.MsgUnavailable || body["requestId"] == "" {
		t.Errorf("body %v is not the API's outage ErrorResponse", body)
	}
	if db.refusals != 1 {
		t.Errorf("refusals = %d, want 1", db.refusals)
	}
}

func TestAToolThatMeetsTheOutageSaysToRetry(t *testing.T) {
	for name, read := range map[string]application.ReadModel{"wrapped by the adapter": outageRead{}, "recognised by the availability": unwrappedOutageRead{}} {
		db := &database{}
		srv := serverOn(t, read, db)
		res := call(t, connect(t, srv, sessionToken), "list_forms", map[string]any{})
		if !res.IsError || text(res) != application.MsgUnavailable {
			t.Errorf("%s: list_forms = error %v, %q; want a tool error saying %q", name, res.IsError, text(res), application.MsgUnavailable)
		}
		db.mu.Lock()
		if db.lost != 1 || db.refusals != 1 {
			t.Errorf("%s: lost %d, refusals %d; want the prober told and the refusal counted once", name, db.lost, db.refusals)
		}
		db.mu.Unlock()
	}
}

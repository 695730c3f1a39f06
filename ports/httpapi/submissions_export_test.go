package httpapi

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/form"
)

const (
	exportAccount = "0b7c6f1e-4a53-4f7e-9a0c-2f3f8f5f1a11"
	exportForm    = "1c8d7a2f-5b64-4a8f-8b1d-3a4a9a6a2b22"
)

// oneSession takes any bearer credential for a session of exportAccount.
type oneSession struct{}

func (oneSession) SessionByTokenHash(context.Context, []byte, time.Time) (application.AccountRecord, error) {
	return application.AccountRecord{ID: exportAccount}, nil
}

type noWorkspaceTokens struct{ application.WorkspaceTokens }

type exportFormReader struct{}

func (exportFormReader) FormByID(_ context.Context, id string) (application.FormRecord, error) {
	if id != exportForm {
		return application.FormRecord{}, domain.ErrNotFound
	}
	return application.FormRecord{ID: exportForm, AccountID: exportAccount, Settings: form.Settings{Name: "Contact us"}}, nil
}

// pagedArchive holds total submissions, each with a message field; with
// fails, reading a page that starts at failFrom or later fails.
type pagedArchive struct {
	total, failFrom int
	fails           bool
	reads           int
	mu              sync.Mutex
	counts          map[int64]*int
}

func (a *pagedArchive) ArchivedFieldNames(context.Context, string, application.ArchiveFilter) ([]string, error) {
	return []string{"message"}, nil
}

func (a *pagedArchive) ArchivedPage(_ context.Context, _ string, f application.ArchiveFilter) ([]application.ArchivedSubmission, error) {
	start := 0
	if f.After != nil {
		fmt.Sscanf(f.After.ID, "s-%d", &start)
		start++
	}
	if a.fails && start >= a.failFrom {
		return nil, errors.New("the database went away")
	}
	var page []application.ArchivedSubmission
	for i := start; i < a.total && len(page) < f.Limit; i++ {
		id := fmt.Sprintf("s-%d", i)
		page = append(page, application.ArchivedSubmission{SubmissionID: id, RequestID: "req-" + id, FieldNames: []string{"message"},
			AcceptedAt: time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second),
			Sealed:     application.SealedPayload{Ciphertext: []byte(`{"v":1,"fields":[{"name":"message","value":"` + strings.Repeat("x", 200) + `"}]}`)}})
	}
	return page, nil
}

func (a *pagedArchive) ArchivedSubmission(context.Context, string, string) (application.ArchivedSubmission, error) {
	a.reads++
	return application.ArchivedSubmission{}, domain.ErrNotFound
}

func (a *pagedArchive) RecordAccess(_ context.Context, r application.SubmissionAccess) (int64, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	id := int64(len(a.counts) + 1)
	a.counts[id] = r.Count
	return id, nil
}

func (a *pagedArchive) CountAccess(_ context.Context, id int64, n int) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.counts[id] = &n
	return nil
}

func (a *pagedArchive) FormAccesses(context.Context, string, int) ([]application.SubmissionAccess, error) {
	return nil, nil
}

// count is the access record's count, nil for an unfinished export.
func (a *pagedArchive) count(id int64) *int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.counts[id]
}

type openSealer struct{}

func (openSealer) Seal(string, []byte) (application.SealedPayload, error) {
	return application.SealedPayload{}, errors.New("not sealing")
}
func (openSealer) Open(_ string, p application.SealedPayload) ([]byte, error) {
	return p.Ciphertext, nil
}

type sameHasher struct{}

func (sameHasher) HashValueUnderEveryKey(_, field, value string) []string {
	return []string{field + value}
}

type unusedLinks struct{ application.ObjectLinks }

// exportServer serves the JSON API over a real connection, its archive
// being a.
func exportServer(t *testing.T, a *pagedArchive) *httptest.Server {
	t.Helper()
	a.counts = map[int64]*int{}
	app := &application.Application{Queries: application.Queries{
		Authenticate:    application.NewAuthenticateHandler(oneSession{}, noWorkspaceTokens{}, wallClock{}),
		ReadSubmissions: application.NewReadSubmissionsHandler(exportFormReader{}, a, struct{ application.DeliveryLog }{}, a, openSealer{}, sameHasher{}, unusedLinks{}, wallClock{}),
	}}
	srv := httptest.NewServer(NewServer(app, currentSchema{}, slog.New(slog.DiscardHandler), Config{}))
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, srv *httptest.Server, path string) (*http.Response, []byte, error) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer a-session")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp, body, err
}

// The export's static segment wins over {submissionId}, which still routes
// as before; the whole archive comes out in batches, and the access record
// gets its count.
func TestAnExportStreamsEveryBatchAndTheSubmissionRouteStillRoutes(t *testing.T) {
	a := &pagedArchive{total: 2*application.ExportBatch + 50}
	srv := exportServer(t, a)
	resp, body, err := get(t, srv, "/v1/forms/"+exportForm+"/submissions/export?format=csv")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("export = %d, %v: %.200s", resp.StatusCode, err, body)
	}
	for k, want := range map[string]string{"Content-Type": "text/csv; charset=utf-8", "Cache-Control": "private, no-store",
		"Content-Disposition": `attachment; filename="contact-us-` + time.Now().UTC().Format(time.DateOnly) + `.csv"`} {
		if got := resp.Header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	records, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(body, []byte("\ufeff")))).ReadAll()
	if err != nil || len(records) != a.total+1 || strings.Join(records[0], ",") != "submittedAt,submissionId,requestId,message,attachments" {
		t.Fatalf("%d records (%v), header %v", len(records), err, records[0])
	}
	if records[1][1] != "s-0" || records[a.total][1] != fmt.Sprintf("s-%d", a.total-1) {
		t.Errorf("rows from %s to %s", records[1][1], records[a.total][1])
	}
	if n := a.count(1); n == nil || *n != a.total {
		t.Errorf("the access record counts %v, want %d", n, a.total)
	}

	resp, body, _ = get(t, srv, "/v1/forms/"+exportForm+"/submissions/00000000-0000-4000-8000-000000000000")
	if resp.StatusCode != http.StatusNotFound || a.reads != 1 {
		t.Errorf("GET a submission = %d %s after %d archive reads", resp.StatusCode, body, a.reads)
	}
}

// An export that fails once bytes are sent breaks the connection: the
// client sees a failed transfer, never a shorter file that looks whole, and
// the access record keeps no count.
func TestAnExportFailingMidwayBreaksTheConnection(t *testing.T) {
	a := &pagedArchive{total: 3 * application.ExportBatch, fails: true, failFrom: 2 * application.ExportBatch}
	srv := exportServer(t, a)
	resp, body, err := get(t, srv, "/v1/forms/"+exportForm+"/submissions/export?format=ndjson")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("reading the body ended with %v after %d bytes, want a broken transfer", err, len(body))
	}
	if len(body) == 0 {
		t.Error("nothing was sent before the failure: the test does not test a failure midway")
	}
	if n := a.count(1); n != nil {
		t.Errorf("an unfinished export was counted: %d", *n)
	}
}

// An export refused, or failing before anything reached the client,
// answers with the usual error response.
func TestAnExportFailingBeforeItsFirstByteIsAnErrorResponse(t *testing.T) {
	a := &pagedArchive{total: 10, fails: true}
	srv := exportServer(t, a)
	resp, body, err := get(t, srv, "/v1/forms/"+exportForm+"/submissions/export?format=xlsx")
	if err != nil || resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "format must be csv or ndjson") {
		t.Errorf("a bad format = %d %s", resp.StatusCode, body)
	}
	resp, body, err = get(t, srv, "/v1/forms/"+exportForm+"/submissions/export?format=csv")
	if err != nil || resp.StatusCode != http.StatusInternalServerError || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") ||
		resp.Header.Get("Content-Disposition") != "" || !strings.Contains(string(body), `"success":false`) {
		t.Errorf("a failure before the first byte = %d %v %s", resp.StatusCode, resp.Header, body)
	}
	if n := a.count(1); n != nil {
		t.Errorf("a failed export was counted: %d", *n)
	}
}

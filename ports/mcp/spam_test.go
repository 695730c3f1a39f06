package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/form"
)

const (
	heldID     = "3c9a4d2e-7b1f-4e6a-9c0d-2f5e8a1b7c40"
	releasedID = "8e2f6c1a-4d3b-4a5e-9f7c-1b0d3e6a2c58"
)

// heldFolder is formID's Spam folder holding at most one submission, heldID,
// until a review takes it out. It is also the review's transactor: the
// audit event is the use case's to write, so a review's transaction only
// records who it ran for.
type heldFolder struct {
	application.SpamFolder
	mu       sync.Mutex
	held     bool
	released []string
	shredded []string
	reviews  []application.Metadata
}

func (f *heldFolder) sealed() application.HeldSubmission {
	at := time.Date(2026, 11, 27, 9, 30, 0, 0, time.UTC)
	return application.HeldSubmission{SubmissionID: heldID, RequestID: "req-held", HeldAt: at, Until: at.AddDate(0, 0, 30),
		Sealed: application.SealedPayload{Ciphertext: []byte(`{"v":1,"fields":[{"name":"message","value":"cheap pills"}],` +
			`"subject":"Offer","submitterEmail":"spammer@example.com","held":{"score":15.5,"reasons":["GTUBE"]}}`)}}
}

func (f *heldFolder) HeldPage(_ context.Context, id string, _ *application.ArchiveCursor, _ int) ([]application.HeldSubmission, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if id != formID || !f.held {
		return nil, nil
	}
	return []application.HeldSubmission{f.sealed()}, nil
}

func (f *heldFolder) HeldCount(_ context.Context, id string) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if id != formID || !f.held {
		return 0, nil
	}
	return 1, nil
}

func (f *heldFolder) HeldSubmission(_ context.Context, id, submissionID string) (application.HeldSubmission, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if id != formID || submissionID != heldID || !f.held {
		return application.HeldSubmission{}, domain.ErrNotFound
	}
	return f.sealed(), nil
}

func (f *heldFolder) Release(_ context.Context, _, submissionID string, _, _ time.Time) ([]delivery.Queued, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.held = false
	f.released = append(f.released, submissionID)
	return []delivery.Queued{{DeliveryID: releasedID, SubmissionID: submissionID, FormID: formID}}, nil
}

func (f *heldFolder) ShredHeld(_ context.Context, _, submissionID string, _ time.Time) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.held = false
	f.shredded = append(f.shredded, submissionID)
	return nil
}

func (f *heldFolder) InTx(_ context.Context, md application.Metadata, _ func(application.Tx) error) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reviews = append(f.reviews, md)
	return nil
}

// plainSealer "opens" a payload by reading its ciphertext as the plaintext.
type plainSealer struct{ application.Sealer }

func (plainSealer) Open(_ string, p application.SealedPayload) ([]byte, error) {
	return p.Ciphertext, nil
}

// out decodes a tool's structured answer.
func out(t *testing.T, res *sdk.CallToolResult) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal([]byte(text(res)), &v); err != nil {
		t.Fatalf("answer %q is not a JSON object: %v", text(res), err)
	}
	return v
}

func TestSpamToolsListAndReadTheHeldSubmissionAndRecordEachRead(t *testing.T) {
	srv, _, accesses := newServerWithSpamFolder(t, &heldFolder{held: true})
	owner := connect(t, srv, sessionToken)

	res := call(t, owner, "list_spam", map[string]any{"formId": strings.ToUpper(formID), "limit": 10})
	if res.IsError {
		t.Fatalf("list_spam = %s", text(res))
	}
	page := out(t, res)
	subs, _ := page["submissions"].([]any)
	if page["total"] != float64(1) || len(subs) != 1 || page["nextCursor"] != nil {
		t.Fatalf("list_spam = %s, want the one held submission, a total of 1 and no next page", text(res))
	}
	held := subs[0].(map[string]any)
	if held["id"] != heldID || held["score"] != 15.5 || held["subject"] != "Offer" || held["heldUntil"] != "2026-12-27T09:30:00Z" ||
		!strings.Contains(text(res), `"reasons":["GTUBE"]`) || !strings.Contains(text(res), `{"name":"message","value":"cheap pills"}`) {
		t.Errorf("held submission %v, want its fields, score, reasons and hold", held)
	}

	res = call(t, owner, "get_spam", map[string]any{"formId": formID, "submissionId": strings.ToUpper(heldID)})
	if res.IsError || out(t, res)["id"] != heldID || out(t, res)["submitterEmail"] != "spammer@example.com" {
		t.Fatalf("get_spam = %s (error %v), want the held submission", text(res), res.IsError)
	}

	got := accesses.recorded()
	if len(got) != 2 {
		t.Fatalf("recorded %d accesses, want one for each read", len(got))
	}
	for i, action := range []string{application.AccessList, application.AccessRead} {
		a := got[i]
		if a.FormID != formID || a.Action != action || a.Filters["folder"] != "spam" || a.RequestID == "" || a.Actor.Type != application.ActorSession {
			t.Errorf("access %d = %+v, want a %s of the Spam folder by the session with the request's id", i, a, action)
		}
	}
	if got[1].SubmissionID != heldID {
		t.Errorf("get_spam recorded submission %q, want %s", got[1].SubmissionID, heldID)
	}
}

func TestReviewSpamCarriesOutEachVerdict(t *testing.T) {
	for _, tc := range []struct {
		verdict, review  string
		released, shreds bool
		wantDeliveryIDs  bool
	}{
		{verdict: "not_spam", review: form.ReviewedNotSpam, released: true, wantDeliveryIDs: true},
		{verdict: "spam", review: form.ReviewedSpam, shreds: true},
		{verdict: "delete", review: form.ReviewedDeleted, shreds: true},
	} {
		folder := &heldFolder{held: true}
		srv, _, _ := newServerWithSpamFolder(t, folder)
		owner := connect(t, srv, sessionToken)
		res := call(t, owner, "review_spam", map[string]any{"formId": formID, "submissionId": heldID, "verdict": tc.verdict})
		if res.IsError {
			t.Fatalf("review_spam %s = %s", tc.verdict, text(res))
		}
		r := out(t, res)
		if r["submissionId"] != heldID || r["verdict"] != tc.review || r["learned"] != false {
			t.Errorf("review_spam %s = %v, want verdict %s, not learned (no classifier)", tc.verdict, r, tc.review)
		}
		if ids, _ := r["deliveryIds"].([]any); tc.wantDeliveryIDs != (len(ids) == 1 && ids[0] == releasedID) {
			t.Errorf("review_spam %s: deliveryIds %v", tc.verdict, r["deliveryIds"])
		}
		if (len(folder.released) == 1) != tc.released || (len(folder.shredded) == 1) != tc.shreds {
			t.Errorf("review_spam %s released %v and shredded %v", tc.verdict, folder.released, folder.shredded)
		}
		if len(folder.reviews) != 1 || folder.reviews[0].RequestID == "" || folder.reviews[0].Actor.Type != application.ActorSession {
			t.Errorf("review_spam %s ran its transaction for %+v, want the session with the request's id", tc.verdict, folder.reviews)
		}
		res = call(t, owner, "review_spam", map[string]any{"formId": formID, "submissionId": heldID, "verdict": tc.verdict})
		if !res.IsError || text(res) != "Not found." {
			t.Errorf("a second review_spam %s = %q, want Not found.", tc.verdict, text(res))
		}
	}
}

func TestSpamToolsRefuseWithTheAPIsMessages(t *testing.T) {
	folder := &heldFolder{held: true}
	srv, _, accesses := newServerWithSpamFolder(t, folder)
	owner, reader := connect(t, srv, sessionToken), connect(t, srv, readToken)
	unknown := "5f0e6a2b-1c3d-4e5f-8a9b-0c1d2e3f4a5b"
	for _, tc := range []struct {
		who  *sdk.ClientSession
		tool string
		args map[string]any
		want string
	}{
		{reader, "list_spam", map[string]any{"formId": formID},
			"This workspace API token lacks the submissions:read scope, which this route needs. Use a token with submissions:read, or a session."},
		{reader, "get_spam", map[string]any{"formId": formID, "submissionId": heldID}, "lacks the submissions:read scope"},
		{reader, "review_spam", map[string]any{"formId": formID, "submissionId": heldID, "verdict": "spam"}, "lacks the submissions:delete scope"},
		{owner, "list_spam", map[string]any{"formId": "7d1f1c1e-0000-4000-8000-000000000000"}, "Not found."},
		{owner, "list_spam", map[string]any{"formId": "not-a-uuid"}, "Not found."},
		{owner, "list_spam", map[string]any{"formId": formID, "limit": 101}, "limit must be between 1 and 100"},
		{owner, "list_spam", map[string]any{"formId": formID, "limit": -1}, "limit must be between 1 and 100"},
		{owner, "list_spam", map[string]any{"formId": formID, "cursor": "not a cursor"}, "cursor"},
		{owner, "get_spam", map[string]any{"formId": formID, "submissionId": unknown}, "Not found."},
		{owner, "get_spam", map[string]any{"formId": formID, "submissionId": "not-a-uuid"}, "Not found."},
		{owner, "review_spam", map[string]any{"formId": formID, "submissionId": heldID, "verdict": "ham"}, "verdict must be one of not_spam, spam, delete"},
		{owner, "review_spam", map[string]any{"formId": formID, "submissionId": heldID, "verdict": "deleted"}, "verdict must be one of"},
		{owner, "review_spam", map[string]any{"formId": formID, "submissionId": unknown, "verdict": "delete"}, "Not found."},
		{owner, "review_spam", map[string]any{"formId": "7d1f1c1e-0000-4000-8000-000000000000", "submissionId": heldID, "verdict": "delete"}, "Not found."},
	} {
		res := call(t, tc.who, tc.tool, tc.args)
		if !res.IsError || !strings.Contains(text(res), tc.want) {
			t.Errorf("%s %v = %q (error %v), want a tool error with %q", tc.tool, tc.args, text(res), res.IsError, tc.want)
		}
	}
	if got := accesses.recorded(); len(got) != 0 {
		t.Errorf("refused reads were recorded: %+v", got)
	}
	if !folder.held || len(folder.reviews) != 0 {
		t.Errorf("a refused review changed the folder: released %v, shredded %v", folder.released, folder.shredded)
	}
}

package application

import (
	"context"
	"time"
)

// TestInboxStore keeps the sealed renderings of test submissions for a
// short time, in PostgreSQL so every process sees the same inbox.
type TestInboxStore interface {
	// AddTestSubmission keeps one, and keeps at most keep per form (the
	// oldest go first).
	AddTestSubmission(ctx context.Context, s StoredTestSubmission, keep int) error
	// TestSubmissions lists a form's unexpired test submissions, newest
	// first, filtered.
	TestSubmissions(ctx context.Context, formID string, f TestInboxFilter, now time.Time) ([]StoredTestSubmission, error)
	// ClearTestInbox deletes every test submission of a form.
	ClearTestInbox(ctx context.Context, formID string) (int, error)
	// DeleteExpiredTestSubmissions deletes those past their retention.
	DeleteExpiredTestSubmissions(ctx context.Context, now time.Time) (int, error)
}

// StoredTestSubmission is a test submission as stored: sealed, with what
// the inbox is filtered by in the clear.
type StoredTestSubmission struct {
	ID, FormID, RequestID, IdempotencyKey string
	ReceivedAt, ExpiresAt                 time.Time
	Sealed                                SealedPayload
}

// TestInboxFilter narrows a test inbox read; empty fields match anything.
type TestInboxFilter struct {
	RequestID      string
	IdempotencyKey string
	Limit          int
}

package mcp

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/formd/formd/application"
)

type readTestInboxInput struct {
	FormID         string `json:"formId" jsonschema:"the form's id"`
	RequestID      string `json:"requestId,omitempty" jsonschema:"only the test submission of this request id (the X-Request-Id of its answer)"`
	IdempotencyKey string `json:"idempotencyKey,omitempty" jsonschema:"only test submissions posted with this Idempotency-Key"`
	Limit          int    `json:"limit,omitempty" jsonschema:"at most this many, 1 to 100 (default 20)"`
}

type testInboxOutput struct {
	Submissions []application.TestSubmission `json:"submissions" jsonschema:"newest first; each with its answer and what every delivery would have sent"`
}

type clearTestInboxOutput struct {
	Deleted int `json:"deleted" jsonschema:"how many test submissions were shredded"`
}

// testInboxTools are read_test_inbox and clear_test_inbox.
func (s *Server) testInboxTools(srv *sdk.Server) {
	addTool(s, srv, &sdk.Tool{Name: "read_test_inbox", Title: "Read a form's test inbox", Annotations: readOnly,
		Description: "Shows what a form's latest test submissions would have sent, newest first: the notification and " +
			"autoresponder emails (from, to, reply-to, subject, text), each webhook request (URL, headers with the " +
			"signature redacted as v1,<redacted>, exact body marked \"test\": true), chat messages and sheet rows. A test submission is a POST to /submit with " +
			"X-Service-Test: true and a credential with submissions:test, or any submission to a form in testMode: it passes " +
			"every gate like a live one (the recipient must be verified) and sends nothing. Kept for a short time (one hour by " +
			"default). Needs submissions:test."},
		func(ctx context.Context, caller application.Session, in readTestInboxInput) (testInboxOutput, error) {
			id, err := idOf(in.FormID)
			if err != nil {
				return testInboxOutput{}, err
			}
			list, err := s.app.Queries.ReadTestInbox.Handle(ctx, application.ReadTestInbox{Caller: caller, FormID: id,
				Filter: application.TestInboxFilter{RequestID: in.RequestID, IdempotencyKey: in.IdempotencyKey, Limit: in.Limit}})
			if err != nil {
				return testInboxOutput{}, err
			}
			return testInboxOutput{Submissions: list}, nil
		})
	addTool(s, srv, &sdk.Tool{Name: "clear_test_inbox", Title: "Empty a form's test inbox", Annotations: changes,
		Description: "Shreds every test submission in a form's test inbox, for a clean start before a test run. Needs submissions:test."},
		func(ctx context.Context, caller application.Session, in formIDInput) (clearTestInboxOutput, error) {
			id, err := idOf(in.FormID)
			if err != nil {
				return clearTestInboxOutput{}, err
			}
			n, err := s.app.Commands.ClearTestInbox.Handle(ctx, application.ClearTestInbox{Caller: caller, FormID: id})
			return clearTestInboxOutput{Deleted: n}, err
		})
}

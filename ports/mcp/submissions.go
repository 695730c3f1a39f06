package mcp

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/formd/formd/application"
	"github.com/formd/formd/ports/portkit"
)

type listSubmissionsInput struct {
	FormID string `json:"formId" jsonschema:"the form's id"`
	From   string `json:"from,omitempty" jsonschema:"only submissions accepted at or after this date (2026-11-27, midnight UTC) or date and time (RFC 3339)"`
	To     string `json:"to,omitempty" jsonschema:"only submissions accepted before this date or date and time"`
	Status string `json:"status,omitempty" jsonschema:"only submissions whose deliveries are, as a whole: pending (one still queued or retrying), delivered (all succeeded) or failed (all final, one failed)"`
	Email  string `json:"email,omitempty" jsonschema:"only submissions whose email field is this address, as given or in lower case"`
	Field  string `json:"field,omitempty" jsonschema:"with value: only submissions whose field of this name is exactly value"`
	Value  string `json:"value,omitempty" jsonschema:"the exact value of field to find"`
	Limit  int    `json:"limit,omitempty" jsonschema:"at most this many, 1 to 100 (default 50)"`
	Cursor string `json:"cursor,omitempty" jsonschema:"the nextCursor of the previous page, unchanged"`
}

type submissionsOutput struct {
	Submissions []portkit.Submission `json:"submissions" jsonschema:"newest first"`
	NextCursor  string               `json:"nextCursor,omitempty" jsonschema:"pass it as cursor for the next page; absent on the last page"`
}

type submissionIDInput struct {
	FormID       string `json:"formId" jsonschema:"the form's id"`
	SubmissionID string `json:"submissionId" jsonschema:"the submission's id, as list_submissions gives it"`
}

type submissionOutput struct {
	Submission portkit.Submission `json:"submission"`
	Deliveries []portkit.Delivery `json:"deliveries" jsonschema:"what was sent for it, and each outcome"`
}

// archiveReading is what both archive tools tell an agent about reading
// personal data: it is audited, and decrypted only as far as answered.
const archiveReading = "Each call is recorded in the form's access log (who, when, which filters, how many; a searched value " +
	"only as its keyed hash), and only the submissions returned are decrypted: filters search keyed hashes. " +
	"An attachment that came in the post has as url the API path /v1/forms/{formId}/submissions/{submissionId}/attachments/{index}, " +
	"fetched with the same credential; a file uploaded in advance has a signed download link until expiresAt. " +
	"Needs submissions:read."

func (s *Server) submissionTools(srv *sdk.Server) {
	addTool(s, srv, &sdk.Tool{Name: "list_submissions", Title: "List a form's archived submissions", Annotations: readOnly,
		Description: "Lists the submissions a form's archive keeps (forms with the archive on), newest first, with their fields, " +
			"attachments and delivery status, as GET /v1/forms/{formId}/submissions does. " + archiveReading},
		func(ctx context.Context, caller application.Session, in listSubmissionsInput) (submissionsOutput, error) {
			q, err := listSubmissionsQuery(in)
			if err != nil {
				return submissionsOutput{}, err
			}
			q.Caller, q.RequestID = caller, requestIDOf(ctx)
			page, err := s.app.Queries.ReadSubmissions.List(ctx, q)
			if err != nil {
				return submissionsOutput{}, err
			}
			out := submissionsOutput{Submissions: make([]portkit.Submission, len(page.Submissions))}
			for i, e := range page.Submissions {
				out.Submissions[i] = portkit.PresentSubmission(q.FormID, e)
			}
			if page.Next != nil {
				out.NextCursor = portkit.EncodeArchiveCursor(*page.Next)
			}
			return out, nil
		})

	addTool(s, srv, &sdk.Tool{Name: "get_submission", Title: "Read an archived submission", Annotations: readOnly,
		Description: "Reads one archived submission of a form with its deliveries, as GET " +
			"/v1/forms/{formId}/submissions/{submissionId} does. " + archiveReading},
		func(ctx context.Context, caller application.Session, in submissionIDInput) (submissionOutput, error) {
			formID, err := idOf(in.FormID)
			if err != nil {
				return submissionOutput{}, err
			}
			submissionID, err := idOf(in.SubmissionID)
			if err != nil {
				return submissionOutput{}, err
			}
			d, err := s.app.Queries.ReadSubmissions.Get(ctx, application.GetSubmission{
				Caller: caller, RequestID: requestIDOf(ctx), FormID: formID, SubmissionID: submissionID})
			if err != nil {
				return submissionOutput{}, err
			}
			out := submissionOutput{Submission: portkit.PresentSubmission(formID, d.ArchivedEntry),
				Deliveries: make([]portkit.Delivery, len(d.Deliveries))}
			for i, r := range d.Deliveries {
				out.Deliveries[i] = portkit.PresentDelivery(r)
			}
			return out, nil
		})
}

// listSubmissionsQuery reads list_submissions' arguments; a limit of 0 is
// the default page, and the use case checks the rest.
func listSubmissionsQuery(in listSubmissionsInput) (application.ListSubmissions, error) {
	q := application.ListSubmissions{Status: in.Status, Email: in.Email, Field: in.Field, Value: in.Value, Limit: in.Limit}
	var err error
	if q.FormID, err = idOf(in.FormID); err != nil {
		return q, err
	}
	if q.From, err = portkit.ArchiveTime("from", in.From); err != nil {
		return q, err
	}
	if q.To, err = portkit.ArchiveTime("to", in.To); err != nil {
		return q, err
	}
	if in.Cursor != "" {
		if q.After, err = portkit.DecodeArchiveCursor(in.Cursor); err != nil {
			return q, err
		}
	}
	return q, nil
}

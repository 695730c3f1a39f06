package mcp

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/ports/portkit"
)

type listSpamInput struct {
	FormID string `json:"formId" jsonschema:"the form's id"`
	Limit  int    `json:"limit,omitempty" jsonschema:"at most this many, 1 to 100 (default 50)"`
	Cursor string `json:"cursor,omitempty" jsonschema:"the nextCursor of the previous page, unchanged"`
}

type spamPageOutput struct {
	Submissions []portkit.HeldSubmission `json:"submissions" jsonschema:"newest first"`
	Total       int                      `json:"total" jsonschema:"how many submissions the Spam folder holds in all"`
	NextCursor  string                   `json:"nextCursor,omitempty" jsonschema:"pass it as cursor for the next page; absent on the last page"`
}

type spamIDInput struct {
	FormID       string `json:"formId" jsonschema:"the form's id"`
	SubmissionID string `json:"submissionId" jsonschema:"the held submission's id, as list_spam gives it"`
}

type reviewSpamInput struct {
	FormID       string `json:"formId" jsonschema:"the form's id"`
	SubmissionID string `json:"submissionId" jsonschema:"the held submission's id, as list_spam gives it"`
	Verdict      string `json:"verdict" jsonschema:"not_spam: release it (its deliveries are queued now) and teach the classifier ham; spam: shred it and teach spam; delete: shred it and teach nothing"`
}

// reviewVerdicts are review_spam's verdicts and the review each one is.
var reviewVerdicts = map[string]string{
	"not_spam": form.ReviewedNotSpam,
	"spam":     form.ReviewedSpam,
	"delete":   form.ReviewedDeleted,
}

// reviews may shred a submission for good (spam, delete) or send it on
// (not_spam), and teach the content classifier: destructive and open.
var reviews = &sdk.ToolAnnotations{DestructiveHint: new(true), OpenWorldHint: new(true)}

// spamReading is what both Spam folder reads tell an agent: reading a held
// submission is reading a submission.
const spamReading = "Each call is recorded in the form's access log, as the archive's reads are, and only the submissions " +
	"returned are decrypted. Needs submissions:read."

func (s *Server) spamTools(srv *sdk.Server) {
	addTool(s, srv, &sdk.Tool{Name: "list_spam", Title: "List a form's Spam folder", Annotations: readOnly,
		Description: "Lists the submissions a form in spam hold mode kept out of its deliveries (its Spam folder), newest " +
			"first, with their fields, the score and reasons that held them and when each is shredded unreviewed, as " +
			"GET /v1/forms/{formId}/spam does. " + spamReading},
		func(ctx context.Context, caller application.Session, in listSpamInput) (spamPageOutput, error) {
			formID, err := idOf(in.FormID)
			if err != nil {
				return spamPageOutput{}, err
			}
			q := application.ListHeld{Caller: caller, RequestID: requestIDOf(ctx), FormID: formID, Limit: in.Limit}
			if in.Cursor != "" {
				if q.After, err = portkit.DecodeArchiveCursor(in.Cursor); err != nil {
					return spamPageOutput{}, err
				}
			}
			page, err := s.app.Commands.SpamFolder.List(ctx, q)
			if err != nil {
				return spamPageOutput{}, err
			}
			out := spamPageOutput{Submissions: make([]portkit.HeldSubmission, len(page.Submissions)), Total: page.Total}
			for i, e := range page.Submissions {
				out.Submissions[i] = portkit.PresentHeld(e)
			}
			if page.Next != nil {
				out.NextCursor = portkit.EncodeArchiveCursor(*page.Next)
			}
			return out, nil
		})

	addTool(s, srv, &sdk.Tool{Name: "get_spam", Title: "Read a held submission", Annotations: readOnly,
		Description: "Reads one submission of a form's Spam folder, as GET /v1/forms/{formId}/spam/{submissionId} does. " + spamReading},
		func(ctx context.Context, caller application.Session, in spamIDInput) (portkit.HeldSubmission, error) {
			formID, err := idOf(in.FormID)
			if err != nil {
				return portkit.HeldSubmission{}, err
			}
			submissionID, err := idOf(in.SubmissionID)
			if err != nil {
				return portkit.HeldSubmission{}, err
			}
			e, err := s.app.Commands.SpamFolder.Get(ctx, caller, requestIDOf(ctx), formID, submissionID)
			if err != nil {
				return portkit.HeldSubmission{}, err
			}
			return portkit.PresentHeld(e), nil
		})

	addTool(s, srv, &sdk.Tool{Name: "review_spam", Title: "Review a held submission", Annotations: reviews,
		Description: "Judges one submission of a form's Spam folder, as the API's review routes do: not_spam releases it " +
			"(POST …/spam/{submissionId}/not-spam: its deliveries are queued now, under the ids the submitter was given), " +
			"spam shreds it (POST …/spam/{submissionId}/spam) and delete shreds it without teaching the classifier " +
			"(DELETE …/spam/{submissionId}). A shredded submission cannot be brought back. Each review is an event of the " +
			"form's history. Needs submissions:delete."},
		func(ctx context.Context, caller application.Session, in reviewSpamInput) (portkit.SpamReview, error) {
			verdict, ok := reviewVerdicts[in.Verdict]
			if !ok {
				return portkit.SpamReview{}, domain.Invalid("verdict", "verdict must be one of not_spam, spam, delete")
			}
			formID, err := idOf(in.FormID)
			if err != nil {
				return portkit.SpamReview{}, err
			}
			submissionID, err := idOf(in.SubmissionID)
			if err != nil {
				return portkit.SpamReview{}, err
			}
			r, err := s.app.Commands.SpamFolder.Review(ctx, application.ReviewHeld{Caller: caller, RequestID: requestIDOf(ctx),
				FormID: formID, SubmissionID: submissionID, Verdict: verdict})
			if err != nil {
				return portkit.SpamReview{}, err
			}
			return portkit.PresentReview(r), nil
		})
}

package mcp

import (
	"context"
	"errors"
	"net"
	"net/http"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/submission"
)

// fieldShape is one submitted field.
type fieldShape struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type dryRunInput struct {
	FormID string       `json:"formId" jsonschema:"the form's id"`
	Fields []fieldShape `json:"fields" jsonschema:"the submission's fields in order, as a website would post them (name and value)"`
	Origin string       `json:"origin,omitempty" jsonschema:"the website the post would come from, such as https://example.com; judged against allowedDomains. Left out, the post is judged as a server-side one, against allowedSenderIps"`
	// SenderIP lets an agent judge a server's post from another address
	// than its own; nothing is stored, so it may name any address.
	SenderIP string `json:"senderIp,omitempty" jsonschema:"the sender's IP address for a server-side post; left out: the address this request came from"`
}

// gateShape is one gate's verdict.
type gateShape struct {
	Gate    string `json:"gate" jsonschema:"the check, such as access_key, recipient_verified, origin, captcha, fields"`
	Outcome string `json:"outcome" jsonschema:"passed, failed or skipped"`
	Message string `json:"message,omitempty" jsonschema:"why it failed, in the words the submitter would get"`
}

type fieldErrorShape struct {
	Field   string `json:"field"`
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

type dryRunValidationShape struct {
	DeliveryQueued    bool     `json:"deliveryQueued" jsonschema:"always false: a dry run queues nothing"`
	FieldNames        []string `json:"fieldNames"`
	RecipientVerified bool     `json:"recipientVerified" jsonschema:"whether a live submission would be delivered now"`
}

// dryRunOutput is the SubmissionResponse of a dry run.
type dryRunOutput struct {
	Success    bool                   `json:"success" jsonschema:"whether every gate accepts the submission"`
	Message    string                 `json:"message"`
	RequestID  string                 `json:"requestId,omitempty"`
	DryRun     bool                   `json:"dryRun"`
	Gates      []gateShape            `json:"gates" jsonschema:"every gate in the order formd checks them, with its verdict"`
	Errors     []fieldErrorShape      `json:"errors,omitempty" jsonschema:"the field rules the submission breaks"`
	Validation *dryRunValidationShape `json:"validation,omitempty"`
}

func (s *Server) dryRunTool(srv *sdk.Server) {
	addTool(s, srv, &sdk.Tool{Name: "dry_run_submission", Title: "Dry-run a submission", Annotations: readOnly,
		Description: "Runs a submission to a form through every gate a live one passes (origin, captcha, field rules, " +
			"quota…) and reports each gate's verdict, without storing or sending anything and without counting against " +
			"the quota. A failing gate is a result (success false), not an error. A dry run does not need the recipient " +
			"verified (that gate is skipped): validation.recipientVerified says whether a live submission would be " +
			"delivered now. Needs forms:read."},
		func(ctx context.Context, caller application.Session, in dryRunInput) (dryRunOutput, error) {
			id, err := idOf(in.FormID)
			if err != nil {
				return dryRunOutput{}, err
			}
			// Submit takes a dry run's form by id on trust (formd keeps only
			// the access key's hash): the caller must be able to see it.
			if err := s.requireVisibleForm(ctx, caller, id); err != nil {
				return dryRunOutput{}, err
			}
			fields := make([]submission.Field, len(in.Fields))
			for i, f := range in.Fields {
				fields[i] = submission.Field{Name: f.Name, Value: f.Value}
			}
			sender := in.SenderIP
			if sender == "" {
				sender = remoteIPOf(ctx)
			} else if net.ParseIP(sender) == nil {
				return dryRunOutput{}, domain.Invalid("senderIp", "senderIp must be an IP address")
			}
			out, err := s.app.Commands.Submit.Handle(ctx, application.Submit{FormID: id, Fields: fields, Origin: in.Origin,
				RemoteIP: sender, DryRun: true, JSONClient: true, RequestID: requestIDOf(ctx)})
			resp := out.Response
			var rejected *application.SubmissionRejected
			switch {
			case errors.As(err, &rejected):
				resp = rejected.Response
			case err != nil:
				return dryRunOutput{}, err
			}
			return presentDryRun(resp), nil
		})
}

// requireVisibleForm refuses a form the caller cannot see (another
// account's, another workspace's) as not found, as ListForms draws the line.
func (s *Server) requireVisibleForm(ctx context.Context, caller application.Session, formID string) error {
	forms, err := s.app.Queries.ListForms.Handle(ctx, application.ListForms{Caller: caller})
	if err != nil {
		return err
	}
	for _, f := range forms {
		if f.ID == formID {
			return nil
		}
	}
	return domain.ErrNotFound
}

func presentDryRun(resp application.SubmissionResponse) dryRunOutput {
	out := dryRunOutput{Success: resp.Success, Message: resp.Message, RequestID: resp.RequestID, DryRun: true,
		Gates: make([]gateShape, len(resp.Gates))}
	for i, g := range resp.Gates {
		out.Gates[i] = gateShape(g)
	}
	for _, e := range resp.Errors {
		out.Errors = append(out.Errors, fieldErrorShape(e))
	}
	if v := resp.Validation; v != nil {
		out.Validation = &dryRunValidationShape{DeliveryQueued: v.DeliveryQueued, FieldNames: v.FieldNames, RecipientVerified: v.RecipientVerified}
	}
	return out
}

type remoteIPKey struct{}

// remoteIPOf is the address the HTTP request came from (the connection's
// peer: X-Forwarded-For is not trusted here).
func remoteIPOf(ctx context.Context) string {
	ip, _ := ctx.Value(remoteIPKey{}).(string)
	return ip
}

// withRemoteIP notes the request's peer address for remoteIPOf.
func withRemoteIP(r *http.Request) *http.Request {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return r.WithContext(context.WithValue(r.Context(), remoteIPKey{}, host))
}

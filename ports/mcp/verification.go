package mcp

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/formd/formd/application"
	"github.com/formd/formd/ports/portkit"
)

type verificationOutput struct {
	Verification portkit.RecipientVerification `json:"verification"`
}

// verificationSteps name the tool that sends a new link.
var verificationSteps = portkit.VerificationSteps{
	NotSent: func(email string) string {
		return "No verification email was sent to " + email + " (too many were sent for this form, to this address or by this account in the last hour); " +
			"call resend_recipient_verification later."
	},
	Sent: func(email string) string {
		return "A person must act: ask " + email + " to open the link in the verification email and press its button. " +
			"No tool can do it; resend_recipient_verification sends a new link."
	},
}

func (s *Server) verificationTools(srv *sdk.Server) {
	addTool(s, srv, &sdk.Tool{Name: "get_recipient_verification", Title: "Read the recipient's verification", Annotations: readOnly,
		Description: "Tells whether a form's recipient has verified their address by following the link formd emailed them. " +
			"Until then live submissions are refused (dry runs still work). Needs forms:read."},
		func(ctx context.Context, caller application.Session, in formIDInput) (verificationOutput, error) {
			id, err := idOf(in.FormID)
			if err != nil {
				return verificationOutput{}, err
			}
			v, err := s.app.Queries.RecipientVerification.Handle(ctx, application.RecipientVerification{Caller: caller, FormID: id})
			if err != nil {
				return verificationOutput{}, err
			}
			return verificationOutput{Verification: portkit.PresentRecipientVerification(id, v, verificationSteps)}, nil
		})

	addTool(s, srv, &sdk.Tool{Name: "resend_recipient_verification", Title: "Resend the recipient's verification email", Annotations: sends,
		Description: "Emails a form's unverified recipient a new verification link. Resends are limited per form and per address " +
			"(a refusal says when to try again); a verified recipient gets nothing. Needs forms:write."},
		func(ctx context.Context, caller application.Session, in formIDInput) (verificationOutput, error) {
			id, err := idOf(in.FormID)
			if err != nil {
				return verificationOutput{}, err
			}
			v, err := s.app.Commands.ResendRecipientVerification.Handle(ctx,
				application.ResendRecipientVerification{Caller: caller, RequestID: requestIDOf(ctx), FormID: id})
			if err != nil {
				return verificationOutput{}, err
			}
			return verificationOutput{Verification: portkit.PresentRecipientVerification(id, v, verificationSteps)}, nil
		})
}

package mcp

import (
	"context"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/formd/formd/application"
)

// verificationShape is a form's recipient verification, as
// GET /v1/forms/{formId}/recipient-verification shows it.
type verificationShape struct {
	FormID         string     `json:"formId"`
	RecipientEmail string     `json:"recipientEmail"`
	Status         string     `json:"status" jsonschema:"pending until the recipient follows the link, then verified"`
	ExpiresAt      *time.Time `json:"expiresAt,omitempty" jsonschema:"when the latest link stops working"`
	DeliveryID     string     `json:"deliveryId,omitempty" jsonschema:"the verification email in the delivery log"`
	NextStep       string     `json:"nextStep" jsonschema:"what has to happen next, and who does it"`
}

type verificationOutput struct {
	Verification verificationShape `json:"verification"`
}

func presentVerification(formID string, v application.VerificationRecord) verificationShape {
	out := verificationShape{FormID: formID, RecipientEmail: v.Email, Status: string(v.Status), DeliveryID: v.DeliveryID}
	if !v.ExpiresAt.IsZero() {
		t := v.ExpiresAt.UTC()
		out.ExpiresAt = &t
	}
	if v.Status == "verified" {
		out.NextStep = "The recipient is verified; live submissions are accepted."
	} else if v.DeliveryID == "" {
		out.NextStep = "No verification email was sent to " + v.Email + " (too many were sent for this form, to this address or by this account in the last hour); " +
			"call resend_recipient_verification later."
	} else {
		out.NextStep = "A person must act: ask " + v.Email + " to open the link in the verification email and press its button. " +
			"No tool can do it; resend_recipient_verification sends a new link."
	}
	return out
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
			return verificationOutput{Verification: presentVerification(id, v)}, nil
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
			return verificationOutput{Verification: presentVerification(id, v)}, nil
		})
}

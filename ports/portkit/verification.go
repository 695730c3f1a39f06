package portkit

import (
	"time"

	"github.com/formd/formd/application"
)

// RecipientVerification is a form's recipient verification, as
// GET /v1/forms/{formId}/recipient-verification and the MCP tools show it.
type RecipientVerification struct {
	FormID         string     `json:"formId"`
	RecipientEmail string     `json:"recipientEmail"`
	Status         string     `json:"status" jsonschema:"pending until the recipient follows the link, then verified"`
	ExpiresAt      *time.Time `json:"expiresAt,omitempty" jsonschema:"when the latest link stops working"`
	DeliveryID     string     `json:"deliveryId,omitempty" jsonschema:"the verification email in the delivery log"`
	NextStep       string     `json:"nextStep" jsonschema:"what has to happen next, and who does it"`
}

// VerificationSteps word the next step of a pending verification in a
// port's own terms, naming its own way to send a new link.
type VerificationSteps struct {
	// NotSent is the step when no email went out to email (too many were
	// sent lately); Sent, when a link is on its way to email.
	NotSent, Sent func(email string) string
}

// PresentRecipientVerification shows a form's recipient verification with
// what has to happen next.
func PresentRecipientVerification(formID string, v application.VerificationRecord, steps VerificationSteps) RecipientVerification {
	out := RecipientVerification{FormID: formID, RecipientEmail: v.Email, Status: string(v.Status), DeliveryID: v.DeliveryID}
	if !v.ExpiresAt.IsZero() {
		t := v.ExpiresAt.UTC()
		out.ExpiresAt = &t
	}
	switch {
	case v.Status == "verified":
		out.NextStep = "The recipient is verified; live submissions are accepted."
	case v.DeliveryID == "":
		out.NextStep = steps.NotSent(v.Email)
	default:
		out.NextStep = steps.Sent(v.Email)
	}
	return out
}

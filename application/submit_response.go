package application

import (
	"errors"
	"time"

	"github.com/formd/formd/domain/submission"
)

// SuccessMessage is the spec's success message.
const SuccessMessage = "Email sent successfully!"

// DryRunMessage answers a dry run that passed every gate.
const DryRunMessage = "Dry run passed: every gate accepts this submission. Nothing was queued."

// SubmissionResponse is the spec's SubmissionResponse.
type SubmissionResponse struct {
	Success                 bool     `json:"success"`
	Message                 string   `json:"message"`
	RequestID               string   `json:"requestId,omitempty"`
	DeliveryID              string   `json:"deliveryId,omitempty"`
	AutoresponderDeliveryID string   `json:"autoresponderDeliveryId,omitempty"`
	WebhookDeliveryIDs      []string `json:"webhookDeliveryIds"`
	NotificationDeliveryIDs []string `json:"notificationDeliveryIds"`
	DryRun                  bool     `json:"dryRun,omitempty"`
	// Test marks a test submission's answer: nothing was sent; the test
	// inbox shows what would have been.
	Test       bool                    `json:"test,omitempty"`
	Errors     []submission.FieldError `json:"errors,omitempty"`
	Validation *DryRunValidation       `json:"validation,omitempty"`
	Gates      []GateResult            `json:"gates,omitempty"`
	Body       ResponseBody            `json:"body"`
}

// GateResult is one gate's outcome as a dry run reports it.
type GateResult struct {
	Gate    string `json:"gate"`
	Outcome string `json:"outcome"`
	Message string `json:"message,omitempty"`
}

// DryRunValidation is SubmissionResponse.validation.
type DryRunValidation struct {
	DeliveryQueued    bool     `json:"deliveryQueued"`
	FieldNames        []string `json:"fieldNames"`
	RecipientVerified bool     `json:"recipientVerified"`
}

// ResponseBody echoes the submitted custom fields.
type ResponseBody struct {
	Data    map[string]string `json:"data"`
	Message string            `json:"message"`
}

// SubmitOutcome is an accepted submission (or a passed dry run).
type SubmitOutcome struct {
	Response SubmissionResponse
	// Redirect is where a plain HTML post goes next; empty means the hosted success page.
	Redirect string
	// Replayed says the response is an earlier request's, answered again
	// for the same Idempotency-Key: this request committed nothing.
	Replayed bool
	// FormID is the form that accepted the submission, whose hosted success
	// page a plain post without a redirect is shown.
	FormID string
}

// SubmissionRejected is a submission refused by a gate. It carries the
// response a JavaScript client gets (400).
type SubmissionRejected struct {
	Gate     string
	Response SubmissionResponse
	// Until is when a refusal that does not depend on the submission ends
	// (the monthly quota's reset: 429 with Retry-After); zero otherwise.
	Until time.Time
	// FormID is the form the submission was routed to, whose hosted error
	// page a plain post is shown; blank when it named no form.
	FormID string
}

func (e *SubmissionRejected) Error() string { return e.Response.Message }

// newResponse is a response with the spec's empty lists and the echo of data.
func newResponse(success bool, msg, requestID string, data []submission.Field) SubmissionResponse {
	return SubmissionResponse{Success: success, Message: msg, RequestID: requestID,
		WebhookDeliveryIDs: []string{}, NotificationDeliveryIDs: []string{},
		Body: ResponseBody{Data: echo(data), Message: msg}}
}

// dryRunResponse reports a dry run's verdict, gate by gate.
func dryRunResponse(cmd Submit, data []submission.Field, v submission.Verdict, recipientVerified bool) SubmissionResponse {
	msg, success := DryRunMessage, true
	var rejected *submission.RejectedError
	if errors.As(v.Err(), &rejected) {
		msg, success = rejected.Message, false
	}
	resp := newResponse(success, msg, cmd.RequestID, data)
	resp.DryRun = true
	resp.Validation = &DryRunValidation{DeliveryQueued: false, FieldNames: fieldNames(data), RecipientVerified: recipientVerified}
	resp.Errors = v.FieldErrors()
	for _, g := range v.Gates() {
		resp.Gates = append(resp.Gates, GateResult{Gate: g.Gate, Outcome: g.Outcome, Message: g.Message})
	}
	return resp
}

// withRoutingTrace adds, for a form with routing rules, where a passed dry
// run's notification would go to its gate trace.
func withRoutingTrace(resp SubmissionResponse, plan submission.Plan) SubmissionResponse {
	if trace := plan.Routing().Trace; trace != "" {
		resp.Gates = append(resp.Gates, GateResult{Gate: submission.GateRouting, Outcome: submission.OutcomePassed, Message: trace})
	}
	return resp
}

// rejection is the error a refused submission returns: a dry run's carries
// the whole trace, a live one the failure and any broken field rules.
func rejection(cmd Submit, data []submission.Field, v submission.Verdict, recipientVerified bool) error {
	var rejected *submission.RejectedError
	if !errors.As(v.Err(), &rejected) {
		return nil
	}
	if cmd.DryRun {
		return &SubmissionRejected{Gate: rejected.Gate, Response: dryRunResponse(cmd, data, v, recipientVerified), Until: rejected.Until}
	}
	resp := newResponse(false, rejected.Message, cmd.RequestID, data)
	resp.Errors = v.FieldErrors()
	return &SubmissionRejected{Gate: rejected.Gate, Response: resp, Until: rejected.Until}
}

func fieldNames(data []submission.Field) []string {
	names := make([]string, len(data))
	for i, f := range data {
		names[i] = f.Name
	}
	return names
}

func echo(data []submission.Field) map[string]string {
	m := make(map[string]string, len(data))
	for _, f := range data {
		m[f.Name] = f.Value
	}
	return m
}

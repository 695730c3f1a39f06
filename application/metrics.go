package application

// SubmissionOutcome is how a /submit request ended, as Metrics counts it.
type SubmissionOutcome string

// Submission outcomes.
const (
	// SubmissionAccepted is a live submission committed (or a dry run that
	// passed every gate).
	SubmissionAccepted SubmissionOutcome = "accepted"
	// SubmissionRefused is a submission a gate refused.
	SubmissionRefused SubmissionOutcome = "refused"
	// SubmissionReplayed is a retry answered with the response of the
	// earlier request with the same Idempotency-Key: nothing new committed.
	SubmissionReplayed SubmissionOutcome = "replayed"
	// SubmissionError is a request that failed for another reason (the
	// database, a mismatched Idempotency-Key): neither accepted nor refused.
	SubmissionError SubmissionOutcome = "error"
	// SubmissionUnavailable is a request refused because the database could
	// not be reached.
	SubmissionUnavailable SubmissionOutcome = "unavailable"
)

// NopMetrics counts nothing: for tests and tools that run use cases without
// a metrics endpoint.
type NopMetrics struct{}

// Submitted implements Metrics.
func (NopMetrics) Submitted(bool, SubmissionOutcome, string) {}

// DeliveryAttempted implements Metrics.
func (NopMetrics) DeliveryAttempted(string, string) {}

// Metrics counts what the use cases do, for operators (Prometheus in
// production). Calls sit on the submission hot path: an implementation must
// be cheap and safe for concurrent use. Every argument comes from a small
// fixed set (gate names, delivery kinds and states), never an id, address or
// key, so it can be a label.
type Metrics interface {
	// Submitted counts one /submit request: a live one or a dry run, its
	// outcome, and for a refusal the gate that refused it.
	Submitted(dryRun bool, outcome SubmissionOutcome, gate string)
	// DeliveryAttempted counts one recorded attempt by delivery kind and the
	// state it left the delivery in: succeeded, retrying or failed.
	DeliveryAttempted(kind, state string)
}

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
)

// NopMetrics counts nothing: for tests and tools that run use cases without
// a metrics endpoint.
type NopMetrics struct{}

// Submitted implements Metrics.
func (NopMetrics) Submitted(bool, SubmissionOutcome, string) {}

// DeliveryAttempted implements Metrics.
func (NopMetrics) DeliveryAttempted(string, string) {}

package application

import "context"

// SubmitCommand handles a post to /submit. NewSubmitHandler returns the use
// case wrapped in the decorators every submission passes through: the
// intake count the delivery workers give way to, and the metrics.
type SubmitCommand interface {
	Handle(ctx context.Context, cmd Submit) (SubmitOutcome, error)
}

// countedIntake counts each submission in progress while the use case
// handles it.
type countedIntake struct {
	next   SubmitCommand
	intake IntakeCounter
}

func (d countedIntake) Handle(ctx context.Context, cmd Submit) (SubmitOutcome, error) {
	d.intake.Begin()
	defer d.intake.End() // deferred: a panic must not leave intake counted saturated
	return d.next.Handle(ctx, cmd)
}

// measuredSubmit counts each submission by its outcome, and a refusal by
// the gate that refused it (Classify).
type measuredSubmit struct {
	next    SubmitCommand
	metrics Metrics
}

func (d measuredSubmit) Handle(ctx context.Context, cmd Submit) (SubmitOutcome, error) {
	out, err := d.next.Handle(ctx, cmd)
	switch {
	case err != nil:
		f := Classify(err)
		d.metrics.Submitted(cmd.DryRun, f.Outcome, f.Gate)
	case out.Replayed:
		d.metrics.Submitted(cmd.DryRun, SubmissionReplayed, "")
	default:
		d.metrics.Submitted(cmd.DryRun, SubmissionAccepted, "")
	}
	return out, err
}

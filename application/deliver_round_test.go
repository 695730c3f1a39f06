package application

import "context"

// DeliverDue asks for one round of delivery: claim up to Limit due
// deliveries and attempt each.
type DeliverDue struct {
	Limit int
}

// Handle runs one round of delivery the way the delivery workers' pipeline
// does, in a row: it claims up to cmd.Limit due deliveries, attempts each
// and records every outcome in one transaction; it returns how many it
// claimed. The tests drive the handler through it.
func (h *DeliverHandler) Handle(ctx context.Context, cmd DeliverDue) (int, error) {
	due, err := h.Claim(ctx, cmd.Limit)
	if err != nil || len(due) == 0 {
		return 0, err
	}
	attempts := make([]Attempt, len(due))
	for i, d := range due {
		if attempts[i], err = h.Attempt(ctx, d); err != nil {
			return 0, err
		}
	}
	return len(due), h.Record(ctx, attempts)
}

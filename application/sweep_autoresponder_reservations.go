package application

import "context"

// AutoresponderReservations forgets the autoresponder's hourly slots once
// their window has passed.
type AutoresponderReservations interface {
	PruneAutoresponderReservations(ctx context.Context) (int64, error)
}

// PruneAutoresponderReservationsHandler deletes the autoresponder
// reservations whose window has passed: they no longer hold anyone back.
// Several processes may run it at once: the delete is idempotent.
type PruneAutoresponderReservationsHandler struct{ reservations AutoresponderReservations }

// NewPruneAutoresponderReservationsHandler builds the handler; reservations is required.
func NewPruneAutoresponderReservationsHandler(reservations AutoresponderReservations) *PruneAutoresponderReservationsHandler {
	if reservations == nil {
		panic("application: nil dependency of PruneAutoresponderReservationsHandler")
	}
	return &PruneAutoresponderReservationsHandler{reservations: reservations}
}

// Handle says how many reservations went.
func (h *PruneAutoresponderReservationsHandler) Handle(ctx context.Context) (int, error) {
	n, err := h.reservations.PruneAutoresponderReservations(ctx)
	return int(n), err
}

package domain

// Stream is the event-sourcing plumbing every aggregate shares: it applies
// and keeps the events a behaviour method records, and rebuilds the
// aggregate from stored events. The aggregate keeps its own apply, which only
// assigns state, and keeps the Stream in an unexported field so nothing
// outside it can record an event that skipped its rules.
type Stream[E any] struct {
	loaded  int
	changes []E
}

// Record applies e and keeps it as a change to save.
func (s *Stream[E]) Record(apply func(E), e E) {
	apply(e)
	s.changes = append(s.changes, e)
}

// Load applies stored events: they are history, not changes. It is not a
// constructor and checks no rules, because the events already happened. No
// events means the aggregate does not exist.
func (s *Stream[E]) Load(apply func(E), events []E) error {
	if len(events) == 0 {
		return ErrNotFound
	}
	for _, e := range events {
		apply(e)
	}
	s.loaded = len(events)
	return nil
}

// Changes are the events recorded since the aggregate was loaded.
func (s *Stream[E]) Changes() []E { return s.changes }

// Version is the number of events the aggregate had when it was loaded: the
// version its changes are appended after.
func (s *Stream[E]) Version() int { return s.loaded }

package application

import "context"

// EventChain is the hash chain of every stream's events (docs/audit.md):
// writers chain their events as they append them; an event whose
// predecessor was not chained yet (stored before the chain existed, or by
// an older formd during an upgrade) is chained later by ChainPending.
type EventChain interface {
	// ChainPending chains, in one transaction, up to limit unchained events
	// in stream order, and returns how many. Another process chaining at
	// the same time makes it return 0 at once.
	ChainPending(ctx context.Context, limit int) (int, error)
	// VerifyChains recomputes every stream's chain from the stored events
	// and calls found with each stream's first event that does not match;
	// it returns how many events it checked and how many are not chained
	// yet.
	VerifyChains(ctx context.Context, found func(ChainFinding)) (ChainTally, error)
}

// ChainFinding is an event whose stored chain does not match, or a
// checkpoint the stored log does not match.
type ChainFinding struct {
	// TreeSize names the checkpoint concerned, when the finding is about
	// one; 0 otherwise.
	TreeSize   uint64
	StreamType string
	StreamID   string
	Version    int
	// Position is the event's position in the log; 0 for an event that is
	// missing.
	Position  int64
	EventType string
	// Problem says what was found, e.g. "its hash does not match its
	// content: its data, metadata or place was changed".
	Problem string
}

// ChainTally is what a verification covered.
type ChainTally struct {
	Streams, Events int
	// Unchained are events the chain job has not chained yet: not a finding
	// while nothing after them in their stream is chained.
	Unchained int
}

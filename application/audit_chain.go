package application

import (
	"context"
	"slices"
)

// chainBatch bounds one transaction of the chain job.
const chainBatch = 2000

// ChainEventsHandler chains the events stored unchained, batch after
// batch. Several processes may run it at once: one chains, the others
// return at once.
type ChainEventsHandler struct {
	chain EventChain
}

// NewChainEventsHandler builds the handler; every dependency is required.
func NewChainEventsHandler(chain EventChain) *ChainEventsHandler {
	if chain == nil {
		panic("application: nil dependency of ChainEventsHandler")
	}
	return &ChainEventsHandler{chain: chain}
}

// Handle chains every pending event and says how many it chained.
func (h *ChainEventsHandler) Handle(ctx context.Context) (int, error) {
	total := 0
	for {
		n, err := h.chain.ChainPending(ctx, chainBatch)
		total += n
		if err != nil || n < chainBatch {
			return total, err
		}
	}
}

// AuditVerification is what `formd audit verify` found.
type AuditVerification struct {
	Tally       ChainTally
	Checkpoints CheckpointTally
	Findings    []ChainFinding
}

// VerifyAuditHandler checks the audit log against the database: every
// stream's chain and every checkpoint (docs/audit.md: Verifying).
type VerifyAuditHandler struct {
	chain  EventChain
	tree   AuditTree
	signer CheckpointSigner
}

// NewVerifyAuditHandler builds the handler; every dependency is required.
func NewVerifyAuditHandler(chain EventChain, tree AuditTree, signer CheckpointSigner) *VerifyAuditHandler {
	if chain == nil || tree == nil || signer == nil {
		panic("application: nil dependency of VerifyAuditHandler")
	}
	return &VerifyAuditHandler{chain: chain, tree: tree, signer: signer}
}

// Handle verifies every chain and checkpoint, writing nothing; findings
// come in log order (missing events, which have no position, and
// checkpoints first).
func (h *VerifyAuditHandler) Handle(ctx context.Context) (AuditVerification, error) {
	var out AuditVerification
	collect := func(f ChainFinding) { out.Findings = append(out.Findings, f) }
	tally, err := h.chain.VerifyChains(ctx, collect)
	out.Tally = tally
	if err == nil {
		out.Checkpoints, err = h.tree.VerifyCheckpoints(ctx, h.signer.OpenCheckpoint, collect)
	}
	slices.SortStableFunc(out.Findings, func(a, b ChainFinding) int {
		switch {
		case a.Position < b.Position:
			return -1
		case a.Position > b.Position:
			return 1
		}
		return 0
	})
	return out, err
}

package application

import (
	"context"
	"errors"
	"fmt"

	"github.com/formd/formd/domain/account"
)

// checkpointBatch bounds the events one checkpoint adds to the tree.
const checkpointBatch = 10000

// CheckpointPublisher hands each new checkpoint to somewhere the operator
// does not control alone, so a later rewrite of history cannot go
// unnoticed (docs/audit.md: Publishing checkpoints).
type CheckpointPublisher interface {
	Publish(ctx context.Context, c Checkpoint) error
}

// CheckpointAuditHandler grows the audit tree over the events committed
// since the last checkpoint and signs a checkpoint per batch. Several
// processes may run it at once: one extends, the others return at once.
type CheckpointAuditHandler struct {
	tree    AuditTree
	signer  CheckpointSigner
	publish CheckpointPublisher
}

// NewCheckpointAuditHandler builds the handler; every dependency is
// required.
func NewCheckpointAuditHandler(tree AuditTree, signer CheckpointSigner, publish CheckpointPublisher) *CheckpointAuditHandler {
	if tree == nil || signer == nil || publish == nil {
		panic("application: nil dependency of CheckpointAuditHandler")
	}
	return &CheckpointAuditHandler{tree: tree, signer: signer, publish: publish}
}

// Handle adds every committed event to the tree and says how many
// checkpoints it signed.
func (h *CheckpointAuditHandler) Handle(ctx context.Context) (int, error) {
	signed := 0
	for {
		cp, grown, err := h.tree.Extend(ctx, checkpointBatch, h.signer.SignCheckpoint)
		if err != nil || !grown {
			return signed, err
		}
		signed++
		if err := h.publish.Publish(ctx, cp); err != nil {
			return signed, fmt.Errorf("publish the checkpoint of %d events: %w", cp.Size, err)
		}
	}
}

// ExportAudit is GET /v1/forms/{formId}/audit/export.
type ExportAudit struct {
	Caller Session
	FormID string
}

// ExportAuditHandler writes the auditor's bundle of a form: its events
// with their hashes and inclusion proofs, the latest checkpoint, and the
// key that signed it.
type ExportAuditHandler struct {
	read       FormHistoryReader
	tree       AuditTree
	signer     CheckpointSigner
	bundles    AuditBundles
	checkpoint *CheckpointAuditHandler
}

// NewExportAuditHandler builds the handler; every dependency is required.
func NewExportAuditHandler(read FormHistoryReader, tree AuditTree, signer CheckpointSigner, bundles AuditBundles, checkpoint *CheckpointAuditHandler) *ExportAuditHandler {
	if read == nil || tree == nil || signer == nil || bundles == nil || checkpoint == nil {
		panic("application: nil dependency of ExportAuditHandler")
	}
	return &ExportAuditHandler{read: read, tree: tree, signer: signer, bundles: bundles, checkpoint: checkpoint}
}

// ErrNothingCheckpointed is an export asked for before any checkpoint
// covers the form (the checkpoint job has not run since it was created,
// and another process is running it now).
var ErrNothingCheckpointed = errors.New("no checkpoint covers this form's events yet: try again in a minute")

// Handle checkpoints what was committed, then writes the bundle of the
// caller's form from the latest checkpoint.
func (h *ExportAuditHandler) Handle(ctx context.Context, q ExportAudit) ([]byte, error) {
	if err := q.Caller.Require(account.ScopeFormsRead); err != nil {
		return nil, err
	}
	if _, err := ownedForm(ctx, h.read, q.Caller, q.FormID); err != nil {
		return nil, err
	}
	if _, err := h.checkpoint.Handle(ctx); err != nil {
		return nil, err
	}
	evidence, err := h.tree.StreamEvidence(ctx, q.FormID)
	if err != nil {
		return nil, err
	}
	if len(evidence.Events) == 0 {
		return nil, ErrNothingCheckpointed
	}
	return h.bundles.Write("form", q.FormID, h.signer.VerifierKey(), evidence)
}

// VerifyAuditBundleHandler checks an auditor's bundle with no database and
// no network.
type VerifyAuditBundleHandler struct {
	bundles AuditBundles
}

// NewVerifyAuditBundleHandler builds the handler; every dependency is
// required.
func NewVerifyAuditBundleHandler(bundles AuditBundles) *VerifyAuditBundleHandler {
	if bundles == nil {
		panic("application: nil dependency of VerifyAuditBundleHandler")
	}
	return &VerifyAuditBundleHandler{bundles: bundles}
}

// Handle verifies the bundle; pinnedKey, when not empty, is the verifier
// key the auditor trusts.
func (h *VerifyAuditBundleHandler) Handle(bundle []byte, pinnedKey string) (BundleReport, error) {
	return h.bundles.Verify(bundle, pinnedKey)
}

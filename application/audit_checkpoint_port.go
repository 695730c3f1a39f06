package application

import "context"

// AuditTree is the RFC 6962 Merkle tree over every event's chain hash in
// log order, and its signed checkpoints (docs/audit.md: Checkpoints).
type AuditTree interface {
	// Extend adds, in one transaction, up to limit events whose
	// transactions, and every transaction begun before them, have ended,
	// and stores the checkpoint of the grown tree signed by sign. It
	// reports false when nothing was added or another process is extending
	// the tree at the same time.
	Extend(ctx context.Context, limit int, sign func(size uint64, root []byte) (string, error)) (Checkpoint, bool, error)
	// VerifyCheckpoints rebuilds the tree from the stored events, checks
	// each checkpoint's signature with open and its root against the
	// rebuilt tree, and calls found with each finding.
	VerifyCheckpoints(ctx context.Context, open func(signed string) (size uint64, root []byte, err error), found func(ChainFinding)) (CheckpointTally, error)
	// StreamEvidence is a stream's events covered by the latest checkpoint,
	// with their inclusion proofs to it.
	StreamEvidence(ctx context.Context, streamID string) (AuditEvidence, error)
}

// CheckpointSigner signs checkpoints and opens them with its public key.
type CheckpointSigner interface {
	SignCheckpoint(size uint64, root []byte) (string, error)
	// OpenCheckpoint checks a signed checkpoint against this signer's
	// public key and returns its size and root.
	OpenCheckpoint(signed string) (size uint64, root []byte, err error)
	// VerifierKey is the public key auditors pin.
	VerifierKey() string
}

// Checkpoint is a signed statement of the tree's size and root.
type Checkpoint struct {
	Size uint64
	Root []byte
	// Signed is the checkpoint in the signed note format.
	Signed string
}

// CheckpointTally is what a checkpoint verification covered.
type CheckpointTally struct {
	Checkpoints int
	// Leaves is the size of the latest checkpoint.
	Leaves uint64
}

// AuditEvidence is what proves a stream's events are in the audit log.
type AuditEvidence struct {
	// Checkpoint is the latest; zero when there is none yet.
	Checkpoint Checkpoint
	Events     []EvidenceEvent
}

// EvidenceEvent is one event with its place in the tree.
type EvidenceEvent struct {
	LeafIndex uint64
	// Canonical is the event's canonical encoding (event_canonical) and
	// Hash its chain hash: the leaf.
	Canonical, Hash []byte
	// Proof is the event's inclusion proof to the checkpoint.
	Proof [][]byte
}

// AuditBundles writes the auditor's bundle and checks one with no database
// and no network (docs/audit.md: The auditor's bundle).
type AuditBundles interface {
	Write(streamType, streamID, verifierKey string, evidence AuditEvidence) ([]byte, error)
	// Verify checks every byte of a bundle; pinnedKey, when not empty, is
	// the verifier key the auditor trusts.
	Verify(bundle []byte, pinnedKey string) (BundleReport, error)
}

// BundleReport is what a bundle that verifies contains.
type BundleReport struct {
	StreamType, StreamID string
	Events               int
	TreeSize             uint64
	// Origin is the log's name in its checkpoint; VerifierKey the key that
	// signed it.
	Origin, VerifierKey string
}

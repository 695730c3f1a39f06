package auditlog

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/audit"
)

// bundleFormat names the bundle's layout; a verifier refuses any other.
const bundleFormat = "formd-audit-bundle/1"

// bundle is the auditor's bundle of one stream (docs/audit.md): its events
// from version 1 with their chain hashes and inclusion proofs, the signed
// checkpoint the proofs lead to, and the key that signed it. It is written
// as compact JSON, and a verifier accepts only that exact encoding, so no
// byte of it can change without the verification failing.
type bundle struct {
	Format      string        `json:"format"`
	StreamType  string        `json:"streamType"`
	StreamID    string        `json:"streamId"`
	VerifierKey string        `json:"verifierKey"`
	Checkpoint  string        `json:"checkpoint"`
	Events      []bundleEvent `json:"events"`
}

// bundleEvent is one event: Canonical is its canonical encoding (a JSON
// array: stream type, stream id, version, type, schema version, data,
// metadata, recorded time), Hash its chain hash.
type bundleEvent struct {
	LeafIndex      uint64   `json:"leafIndex"`
	Canonical      string   `json:"canonical"`
	Hash           []byte   `json:"hash"`
	InclusionProof [][]byte `json:"inclusionProof"`
}

// Bundles implements application.AuditBundles.
type Bundles struct{}

// Write implements application.AuditBundles.
func (Bundles) Write(streamType, streamID, verifierKey string, evidence application.AuditEvidence) ([]byte, error) {
	b := bundle{Format: bundleFormat, StreamType: streamType, StreamID: streamID, VerifierKey: verifierKey,
		Checkpoint: evidence.Checkpoint.Signed, Events: make([]bundleEvent, len(evidence.Events))}
	for i, e := range evidence.Events {
		b.Events[i] = bundleEvent{LeafIndex: e.LeafIndex, Canonical: string(e.Canonical), Hash: e.Hash, InclusionProof: e.Proof}
	}
	out, err := json.Marshal(b)
	if err != nil {
		return nil, err
	}
	out = append(out, '\n')
	if _, err := (Bundles{}).Verify(out, verifierKey); err != nil {
		return nil, fmt.Errorf("auditlog: the bundle written does not verify: %w", err)
	}
	return out, nil
}

// Verify implements application.AuditBundles: the exact encoding, the
// checkpoint's signature, each event's chain link from version 1, and each
// event's inclusion proof to the checkpoint's root.
func (Bundles) Verify(data []byte, pinnedKey string) (application.BundleReport, error) {
	var report application.BundleReport
	var b bundle
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return report, fmt.Errorf("the bundle is not a formd audit bundle: %w", err)
	}
	if again, err := json.Marshal(b); err != nil || !bytes.Equal(append(again, '\n'), data) {
		return report, fmt.Errorf("the bundle is not byte for byte as formd writes it: it was changed")
	}
	if b.Format != bundleFormat {
		return report, fmt.Errorf("the bundle's format is %q, not %q", b.Format, bundleFormat)
	}
	if pinnedKey != "" && pinnedKey != b.VerifierKey {
		return report, fmt.Errorf("the bundle's checkpoint is signed by %s, not by the key you pinned", b.VerifierKey)
	}
	size, root, err := OpenCheckpoint(b.Checkpoint, b.VerifierKey)
	if err != nil {
		return report, fmt.Errorf("the checkpoint: %w", err)
	}
	if len(b.Events) == 0 {
		return report, fmt.Errorf("the bundle has no events")
	}
	prev := []byte{}
	for i, e := range b.Events {
		version := i + 1
		if err := checkNames(e.Canonical, b.StreamType, b.StreamID, version); err != nil {
			return report, fmt.Errorf("event %d: %w", version, err)
		}
		if !bytes.Equal(audit.Link(prev, []byte(e.Canonical)), e.Hash) {
			return report, fmt.Errorf("event %d: its hash does not match its content and the hash of the event before it", version)
		}
		if err := proof.VerifyInclusion(rfc6962.DefaultHasher, e.LeafIndex, size, audit.LeafHash(e.Hash), e.InclusionProof, root); err != nil {
			return report, fmt.Errorf("event %d: its inclusion proof does not lead to the checkpoint's root (leaf %d of %d): %w", version, e.LeafIndex, size, err)
		}
		prev = e.Hash
	}
	origin, _, _ := bytes.Cut([]byte(b.Checkpoint), []byte("\n"))
	return application.BundleReport{StreamType: b.StreamType, StreamID: b.StreamID, Events: len(b.Events), TreeSize: size,
		Origin: string(origin), VerifierKey: b.VerifierKey}, nil
}

// checkNames checks that an event's canonical encoding names the bundle's
// stream and the version its place says.
func checkNames(canonical, streamType, streamID string, version int) error {
	var fields []json.RawMessage
	if err := json.Unmarshal([]byte(canonical), &fields); err != nil || len(fields) != 8 {
		return fmt.Errorf("its canonical encoding is not the eight-field array formd hashes")
	}
	var gotType, gotID string
	var gotVersion int
	if json.Unmarshal(fields[0], &gotType) != nil || json.Unmarshal(fields[1], &gotID) != nil || json.Unmarshal(fields[2], &gotVersion) != nil {
		return fmt.Errorf("its canonical encoding does not start with a stream type, id and version")
	}
	if gotType != streamType || gotID != streamID || gotVersion != version {
		return fmt.Errorf("its canonical encoding is %s %s version %d, not %s %s version %d", gotType, gotID, gotVersion, streamType, streamID, version)
	}
	return nil
}

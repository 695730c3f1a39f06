package auditlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/transparency-dev/merkle/compact"
	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/audit"
)

const streamID = "0b9d6b0e-8f1e-4d3c-9a43-2f1d5c1e7a10"

// testEvidence is a log of seven leaves, three of them the events of one
// form's stream at leaves 1, 3 and 6, signed by a new key.
func testEvidence(t *testing.T) (application.AuditEvidence, *Signer) {
	t.Helper()
	skey, _, err := GenerateKey("forms.example.com/audit")
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ParseSigningKey(skey)
	if err != nil {
		t.Fatal(err)
	}
	hasher := rfc6962.DefaultHasher
	nodes := map[compact.NodeID][]byte{}
	rng := (&compact.RangeFactory{Hash: hasher.HashChildren}).NewEmptyRange(0)
	var events []application.EvidenceEvent
	prev := []byte{}
	for i := range 7 {
		canonical := fmt.Appendf(nil, `["other", "%d", 1, "x.v1", 1, {}, {}, "2026-11-28T00:00:00.000000Z"]`, i)
		hash := audit.Link(nil, canonical)
		if i == 1 || i == 3 || i == 6 {
			canonical = fmt.Appendf(nil, `["form", "%s", %d, "form.updated.v1", 1, {"n": %d}, {"actor": {"type": "account"}}, "2026-11-28T00:00:0%d.000000Z"]`,
				streamID, len(events)+1, i, i)
			hash = audit.Link(prev, canonical)
			prev = hash
			events = append(events, application.EvidenceEvent{LeafIndex: uint64(i), Canonical: canonical, Hash: hash})
		}
		if err := rng.Append(audit.LeafHash(hash), func(id compact.NodeID, h []byte) { nodes[id] = h }); err != nil {
			t.Fatal(err)
		}
	}
	root, err := rng.GetRootHash(nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range events {
		p, err := proof.Inclusion(events[i].LeafIndex, rng.End())
		if err != nil {
			t.Fatal(err)
		}
		hashes := make([][]byte, len(p.IDs))
		for j, id := range p.IDs {
			hashes[j] = nodes[id]
		}
		if events[i].Proof, err = p.Rehash(hashes, hasher.HashChildren); err != nil {
			t.Fatal(err)
		}
	}
	signed, err := signer.SignCheckpoint(rng.End(), root)
	if err != nil {
		t.Fatal(err)
	}
	return application.AuditEvidence{Checkpoint: application.Checkpoint{Size: rng.End(), Root: root, Signed: signed}, Events: events}, signer
}

func TestABundleVerifiesWithItsKeyPinnedAndFailsWithAnother(t *testing.T) {
	evidence, signer := testEvidence(t)
	bundle, err := Bundles{}.Write("form", streamID, signer.VerifierKey(), evidence)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Bundles{}.Verify(bundle, signer.VerifierKey())
	if err != nil || r.Events != 3 || r.TreeSize != 7 || r.StreamID != streamID || r.Origin != "forms.example.com/audit" {
		t.Fatalf("report %+v, %v", r, err)
	}
	_, other, _ := GenerateKey("forms.example.com/audit")
	if _, err := (Bundles{}).Verify(bundle, other); err == nil || !strings.Contains(err.Error(), "not by the key you pinned") {
		t.Fatalf("another pinned key: %v", err)
	}
}

// No byte of a bundle can change without its verification failing.
func TestABundleWithAnyOneByteChangedFails(t *testing.T) {
	evidence, signer := testEvidence(t)
	bundle, err := Bundles{}.Write("form", streamID, signer.VerifierKey(), evidence)
	if err != nil {
		t.Fatal(err)
	}
	reasons := map[string]int{}
	for i := range bundle {
		changed := bytes.Clone(bundle)
		changed[i] ^= 0x01
		_, err := Bundles{}.Verify(changed, "")
		if err == nil {
			t.Fatalf("byte %d changed (%q → %q) still verifies", i, bundle[i], changed[i])
		}
		reason, _, _ := strings.Cut(err.Error(), ":")
		reasons[reason]++
	}
	if len(reasons) < 3 {
		t.Errorf("reasons %v: want the encoding, the checkpoint and the events each to catch some", reasons)
	}
}

// Events that are each well formed but do not belong together fail with a
// reason naming the event.
func TestABundleOfEventsThatDoNotChainFails(t *testing.T) {
	evidence, signer := testEvidence(t)
	for name, c := range map[string]struct {
		change func(*application.AuditEvidence)
		want   string
	}{
		"two events swapped":       {func(e *application.AuditEvidence) { e.Events[0], e.Events[1] = e.Events[1], e.Events[0] }, "event 1: its canonical encoding is form"},
		"an event left out":        {func(e *application.AuditEvidence) { e.Events = append(e.Events[:1], e.Events[2:]...) }, "event 2: its canonical encoding is form"},
		"a proof for another leaf": {func(e *application.AuditEvidence) { e.Events[2].LeafIndex = 5 }, "event 3: its inclusion proof does not lead"},
	} {
		t.Run(name, func(t *testing.T) {
			e := evidence
			e.Events = append([]application.EvidenceEvent(nil), evidence.Events...)
			c.change(&e)
			b := bundle{Format: bundleFormat, StreamType: "form", StreamID: streamID, VerifierKey: signer.VerifierKey(), Checkpoint: e.Checkpoint.Signed}
			for _, x := range e.Events {
				b.Events = append(b.Events, bundleEvent{LeafIndex: x.LeafIndex, Canonical: string(x.Canonical), Hash: x.Hash, InclusionProof: x.Proof})
			}
			data := mustJSON(t, b)
			if _, err := (Bundles{}).Verify(data, ""); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
}

func mustJSON(t *testing.T, b bundle) []byte {
	t.Helper()
	out, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return append(out, '\n')
}

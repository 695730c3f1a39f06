// Package audit is how formd makes its audit log evidence (docs/audit.md).
// Every event's hash chains it to its stream:
//
//	hash(n) = SHA-256(hash(n-1) ‖ canonical(event n))
//
// with hash(0) empty. canonical(event) is what the database function
// event_canonical gives (migrations/00104_event_chain.sql): the event's
// every column — stream type, stream id, version, type, schema version,
// data, metadata, and the time it was recorded (UTC, six fractional
// digits) — as one JSON array in PostgreSQL's jsonb text form, which is one
// byte sequence per event whatever key order or spacing its JSON was
// written with. The events_chain trigger chains each event as it is
// inserted; this package is the same rule for the code that chains or
// checks events outside it. The log's Merkle tree (RFC 6962) has one leaf
// per event: LeafHash of its chain hash.
package audit

import (
	"crypto/sha256"

	"github.com/transparency-dev/merkle/rfc6962"
)

// Link is the chain's hash of an event whose canonical encoding is
// canonical, after the event whose hash is prev (empty for a stream's first
// event).
func Link(prev, canonical []byte) []byte {
	h := sha256.New()
	h.Write(prev)
	h.Write(canonical)
	return h.Sum(nil)
}

// LeafHash is the event's leaf in the log's Merkle tree: the RFC 6962
// leaf hash of its chain hash.
func LeafHash(chainHash []byte) []byte { return rfc6962.DefaultHasher.HashLeaf(chainHash) }

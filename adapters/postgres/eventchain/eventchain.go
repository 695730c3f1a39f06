// Package eventchain is how formd chains each stream's events into
// evidence (docs/audit.md): every event's hash is
//
//	hash(n) = SHA-256(hash(n-1) ‖ SHA-256(canonical(event n)))
//
// with hash(0) empty, where canonical(event) is the RFC 8785 (JSON
// Canonicalization Scheme) encoding of the object
//
//	{"streamType", "streamId", "version", "type", "schemaVersion",
//	 "data", "metadata", "recordedAt"}
//
// recordedAt written as RFC 3339 in UTC with six fractional digits
// (PostgreSQL keeps microseconds). JCS gives one byte sequence per event
// whatever order and spacing its JSON was stored with, so anyone with the
// events (a database, or an exported bundle) and any JCS library recomputes
// the chain. Changing, removing or reordering an event breaks every hash
// from it on.
package eventchain

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"time"

	"github.com/gowebpki/jcs"
)

// Event is what the chain covers of one stored event: all of it.
type Event struct {
	StreamType    string
	StreamID      string
	Version       int
	Type          string
	SchemaVersion int
	Data          json.RawMessage
	Metadata      json.RawMessage
	RecordedAt    time.Time
}

// RecordedAtLayout writes RecordedAt in the canonical encoding.
const RecordedAtLayout = "2006-01-02T15:04:05.000000Z"

// Time is t as the events table stores it: UTC, to the microsecond.
// RecordedAt must be this before it is stored, so the stored time and the
// hashed one are the same instant.
func Time(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// canonicalEvent is the object canonical encodes.
type canonicalEvent struct {
	StreamType    string          `json:"streamType"`
	StreamID      string          `json:"streamId"`
	Version       int             `json:"version"`
	Type          string          `json:"type"`
	SchemaVersion int             `json:"schemaVersion"`
	Data          json.RawMessage `json:"data"`
	Metadata      json.RawMessage `json:"metadata"`
	RecordedAt    string          `json:"recordedAt"`
}

// Canonical is the event's canonical encoding (RFC 8785).
func Canonical(e Event) ([]byte, error) {
	meta := e.Metadata
	if len(bytes.TrimSpace(meta)) == 0 {
		meta = json.RawMessage("{}")
	}
	raw, err := json.Marshal(canonicalEvent{StreamType: e.StreamType, StreamID: e.StreamID, Version: e.Version, Type: e.Type,
		SchemaVersion: max(e.SchemaVersion, 1), Data: e.Data, Metadata: meta, RecordedAt: Time(e.RecordedAt).Format(RecordedAtLayout)})
	if err != nil {
		return nil, fmt.Errorf("eventchain: %s %s v%d: %w", e.StreamType, e.StreamID, e.Version, err)
	}
	out, err := jcs.Transform(raw)
	if err != nil {
		return nil, fmt.Errorf("eventchain: canonical encoding of %s v%d: %w", e.StreamID, e.Version, err)
	}
	return out, nil
}

// Digest is SHA-256 of the event's canonical encoding: what a writer puts
// in the hash column for the database to chain (the events_chain trigger).
func Digest(e Event) ([]byte, error) {
	c, err := Canonical(e)
	if err != nil {
		return nil, err
	}
	d := sha256.Sum256(c)
	return d[:], nil
}

// Link is the chain's hash of an event whose digest is digest, after the
// event whose hash is prev (nil for a stream's first event).
func Link(prev, digest []byte) []byte {
	h := sha256.New()
	h.Write(prev)
	h.Write(digest)
	return h.Sum(nil)
}

package eventchain

import (
	"encoding/hex"
	"encoding/json"
	"testing"
	"time"
)

func event(data, meta string) Event {
	return Event{StreamType: "form", StreamID: "0b4f0f3e-8c1a-4a57-9d51-2f4a8f0c9b11", Version: 2, Type: "form.settings_changed.v1",
		SchemaVersion: 1, Data: json.RawMessage(data), Metadata: json.RawMessage(meta),
		RecordedAt: time.Date(2026, 3, 1, 12, 30, 0, 123456789, time.UTC)}
}

// The canonical encoding is RFC 8785's: keys sorted, no spaces, the time to
// the microsecond; JSON stored with another key order or spacing (as
// PostgreSQL's jsonb gives it back) encodes the same.
func TestTheCanonicalEncodingIgnoresHowTheJSONWasWritten(t *testing.T) {
	a, err := Canonical(event(`{"name":"Contact","count":2,"tags":["a","é"]}`, `{"actor":{"type":"token","id":"t1"}}`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Canonical(event(`{"tags": ["a", "\u00e9"], "count": 2.0, "name": "Contact"}`, `{"actor": {"id": "t1", "type": "token"}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"data":{"count":2,"name":"Contact","tags":["a","é"]},"metadata":{"actor":{"id":"t1","type":"token"}},` +
		`"recordedAt":"2026-03-01T12:30:00.123456Z","schemaVersion":1,"streamId":"0b4f0f3e-8c1a-4a57-9d51-2f4a8f0c9b11",` +
		`"streamType":"form","type":"form.settings_changed.v1","version":2}`
	if string(a) != want || string(b) != want {
		t.Fatalf("canonical\n%s\n%s\nwant\n%s", a, b, want)
	}
}

func TestTheChainLinksEachEventToTheOneBefore(t *testing.T) {
	d, err := Digest(event(`{}`, `{}`))
	if err != nil {
		t.Fatal(err)
	}
	first, second := Link(nil, d), Link(Link(nil, d), d)
	if hex.EncodeToString(first) == hex.EncodeToString(second) || len(first) != 32 {
		t.Fatalf("links %x %x", first, second)
	}
	if _, err := Digest(event(`{"broken"`, `{}`)); err == nil {
		t.Fatal("broken JSON must not hash")
	}
}

package audit

import (
	"crypto/sha256"
	"testing"
)

func TestALinkCoversThePreviousHashAndTheEvent(t *testing.T) {
	first := Link(nil, []byte(`["form", "f1", 1]`))
	if want := sha256.Sum256([]byte(`["form", "f1", 1]`)); string(first) != string(want[:]) {
		t.Fatalf("a stream's first link is SHA-256 of the event alone: %x", first)
	}
	second := Link(first, []byte(`["form", "f1", 2]`))
	if want := sha256.Sum256(append(append([]byte{}, first...), `["form", "f1", 2]`...)); string(second) != string(want[:]) {
		t.Fatalf("a link is SHA-256 of the previous hash and the event: %x", second)
	}
}

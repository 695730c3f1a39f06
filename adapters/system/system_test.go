package system

import (
	"testing"

	"github.com/google/uuid"
)

func TestIDsAreTimeOrderedUUIDv7(t *testing.T) {
	var ids UUIDs
	prev := ids.New()
	for range 1000 {
		id := ids.New()
		u, err := uuid.Parse(id)
		if err != nil || u.Version() != 7 || u.Variant() != uuid.RFC4122 {
			t.Fatalf("%s: version %d, variant %v, %v", id, u.Version(), u.Variant(), err)
		}
		if id <= prev {
			t.Fatalf("ids made one after another must sort in order: %s after %s", id, prev)
		}
		prev = id
	}
}

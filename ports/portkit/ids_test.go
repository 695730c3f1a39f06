package portkit

import (
	"testing"
	"time"

	"github.com/formd/formd/application"
)

func TestIDIsACanonicalUUID(t *testing.T) {
	const id = "5d1e9a2b-8c4f-4d6e-b1a7-3c2e9f0d4b22"
	for in, want := range map[string]string{id: id, "5D1E9A2B-8C4F-4D6E-B1A7-3C2E9F0D4B22": id} {
		if got, ok := ID(in); !ok || got != want {
			t.Errorf("ID(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "x", "urn:uuid:" + id, "{" + id + "}", "5d1e9a2b8c4f4d6eb1a73c2e9f0d4b22", id + " "} {
		if got, ok := ID(in); ok {
			t.Errorf("ID(%q) = %q, want no id", in, got)
		}
	}
}

// A cursor carries an id the database compares: only a canonical one is a
// cursor formd gave out.
func TestADeliveryCursorCarriesACanonicalID(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 123, time.UTC)
	c := application.DeliveryCursor{CreatedAt: at, ID: "5d1e9a2b-8c4f-4d6e-b1a7-3c2e9f0d4b22"}
	got, err := DecodeDeliveryCursor(EncodeDeliveryCursor(c))
	if err != nil || !got.CreatedAt.Equal(at) || got.ID != c.ID {
		t.Fatalf("round trip: %+v, %v", got, err)
	}
	forged := EncodeDeliveryCursor(application.DeliveryCursor{CreatedAt: at, ID: "urn:uuid:" + c.ID})
	if _, err := DecodeDeliveryCursor(forged); err == nil {
		t.Error("a cursor with a urn:uuid: id was taken")
	}
	if _, err := DecodeDeliveryCursor("not base64!"); err == nil {
		t.Error("garbage was taken for a cursor")
	}
}

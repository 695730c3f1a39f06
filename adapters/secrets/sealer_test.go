package secrets_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/formd/formd/adapters/secrets"
	"github.com/formd/formd/application"
)

func key(b byte) secrets.Key { return bytes.Repeat([]byte{b}, 32) }

// ring is the keyring of a formd run with current as FORMD_SECRET_KEY and
// old as FORMD_SECRET_KEYS_OLD.
func ring(t *testing.T, current secrets.Key, old ...secrets.Key) secrets.Keyring {
	t.Helper()
	r, err := secrets.NewKeyring(current, old...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func newSealer(t *testing.T, k secrets.Key, old ...secrets.Key) *secrets.Sealer {
	t.Helper()
	s, err := secrets.NewSealer(ring(t, k, old...))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSealerRoundTrip(t *testing.T) {
	s := newSealer(t, key(1))
	plain := []byte(`{"email":"a@example.com","message":"héllo"}`)
	p, err := s.Seal("sub-1", plain)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(p.Ciphertext, []byte("example.com")) || bytes.Contains(p.WrappedKey, []byte("example.com")) {
		t.Fatal("the sealed payload shows its plaintext")
	}
	got, err := newSealer(t, key(1)).Open("sub-1", p) // another process with the same secret
	if err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("Open = %q, %v; want %q", got, err, plain)
	}
	again, err := s.Seal("sub-1", plain)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(again.Ciphertext, p.Ciphertext) || bytes.Equal(again.WrappedKey, p.WrappedKey) {
		t.Fatal("two seals of one payload are identical: data key or nonce is not random")
	}
}

func TestSealerRefuses(t *testing.T) {
	s := newSealer(t, key(1))
	p, err := s.Seal("sub-1", []byte("secret value"))
	if err != nil {
		t.Fatal(err)
	}
	flip := func(b []byte, i int) []byte {
		c := bytes.Clone(b)
		c[i] ^= 1
		return c
	}
	tests := []struct {
		name   string
		sealer *secrets.Sealer
		id     string
		p      application.SealedPayload
	}{
		{"wrong server key", newSealer(t, key(2)), "sub-1", p},
		{"payload moved to another submission", s, "sub-2", p},
		{"tampered ciphertext", s, "sub-1", application.SealedPayload{WrappedKey: p.WrappedKey, Ciphertext: flip(p.Ciphertext, len(p.Ciphertext)-1)}},
		{"tampered nonce", s, "sub-1", application.SealedPayload{WrappedKey: p.WrappedKey, Ciphertext: flip(p.Ciphertext, 0)}},
		{"tampered wrapped key", s, "sub-1", application.SealedPayload{WrappedKey: flip(p.WrappedKey, 20), Ciphertext: p.Ciphertext}},
		{"truncated ciphertext", s, "sub-1", application.SealedPayload{WrappedKey: p.WrappedKey, Ciphertext: p.Ciphertext[:5]}},
		{"deleted key", s, "sub-1", application.SealedPayload{KeyID: p.KeyID, Ciphertext: p.Ciphertext}},
		{"key id of another key", s, "sub-1", application.SealedPayload{KeyID: key(2).ID(), WrappedKey: p.WrappedKey, Ciphertext: p.Ciphertext}},
		{"no key id, wrong server key", newSealer(t, key(2), key(3)), "sub-1", application.SealedPayload{WrappedKey: p.WrappedKey, Ciphertext: p.Ciphertext}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, err := tt.sealer.Open(tt.id, tt.p); err == nil {
				t.Fatalf("Open succeeded with %q", got)
			}
		})
	}
}

// Key rotation: a payload names the key that sealed it, and a formd whose
// current key is another one opens it while the old key is listed.
func TestSealerOpensUnderAnOldKeyAfterRotation(t *testing.T) {
	plain := []byte(`{"message":"sealed before the rotation"}`)
	before, err := newSealer(t, key(1)).Seal("sub-1", plain)
	if err != nil {
		t.Fatal(err)
	}
	if before.KeyID != key(1).ID() {
		t.Fatalf("payload key id %q, want the sealing key's id %q", before.KeyID, key(1).ID())
	}
	rotated := newSealer(t, key(2), key(1))
	if got, err := rotated.Open("sub-1", before); err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("after rotation, Open = %q, %v; want the payload", got, err)
	}
	after, err := rotated.Seal("sub-2", plain)
	if err != nil || after.KeyID != key(2).ID() {
		t.Fatalf("a rotated formd seals under key id %q (%v), want the current key's %q", after.KeyID, err, key(2).ID())
	}
	// A payload sealed before key ids existed is read under any accepted key.
	legacy := before
	legacy.KeyID = ""
	if got, err := rotated.Open("sub-1", legacy); err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("a payload without a key id: Open = %q, %v; want the payload", got, err)
	}
	// Without the old key, the error names the missing key by its id only.
	_, err = newSealer(t, key(2)).Open("sub-1", before)
	if err == nil || !strings.Contains(err.Error(), key(1).ID()) || !strings.Contains(err.Error(), "FORMD_SECRET_KEYS_OLD") {
		t.Fatalf("Open without the sealing key: %v; want an error naming key %s and FORMD_SECRET_KEYS_OLD", err, key(1).ID())
	}
	if strings.Contains(err.Error(), hex.EncodeToString(key(1))) || strings.Contains(err.Error(), hex.EncodeToString(key(2))) {
		t.Fatalf("an error shows a key: %v", err)
	}
}

// A value's hash is HMAC-SHA256 under the derived key of the form id, the
// field and the value, each but the last followed by a zero byte: hashes
// stored by an earlier formd stay comparable, however the hasher computes
// them, and from many goroutines at once.
func TestValueHashesAreHMACsOfTheirParts(t *testing.T) {
	r := ring(t, key(1))
	h := secrets.NewValueHasher(r)
	want := func(form, field, value string) string {
		mac := hmac.New(sha256.New, r.Current.Derive("value-hashes"))
		mac.Write([]byte(form + "\x00" + field + "\x00" + value))
		return hex.EncodeToString(mac.Sum(nil)[:16])
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				form, value := fmt.Sprint("form-", g), strings.Repeat("v", i*37)
				if got, w := h.HashValue(form, "email", value), want(form, "email", value); got != w {
					t.Errorf("HashValue(%s, email, %d bytes) = %s, want %s", form, len(value), got, w)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestValueHasher(t *testing.T) {
	h := secrets.NewValueHasher(ring(t, key(1)))
	a := h.HashValue("form-1", "email", "a@example.com")
	if len(a) != 32 || a != secrets.NewValueHasher(ring(t, key(1), key(3))).HashValue("form-1", "email", "a@example.com") {
		t.Fatalf("hash %q is not 128 bits of hex or not stable", a)
	}
	for _, other := range []string{
		h.HashValue("form-2", "email", "a@example.com"),
		h.HashValue("form-1", "mail", "a@example.com"),
		h.HashValue("form-1", "email", "b@example.com"),
		h.HashValue("form-1", "emai", "la@example.com"), // field and value are separated
		// A rotation changes every hash (README: Key rotation).
		secrets.NewValueHasher(ring(t, key(2), key(1))).HashValue("form-1", "email", "a@example.com"),
	} {
		if other == a {
			t.Errorf("a different input hashed to %s too", a)
		}
	}
}

func TestValueHasherFindsHashesMadeBeforeARotation(t *testing.T) {
	before := secrets.NewValueHasher(ring(t, key(1))).HashValue("form-1", "email", "a@example.com")
	after := secrets.NewValueHasher(ring(t, key(2), key(1)))
	got := after.HashValueUnderEveryKey("form-1", "email", "a@example.com")
	want := []string{after.HashValue("form-1", "email", "a@example.com"), before}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("HashValueUnderEveryKey = %v, want the current key's hash then the old key's %v", got, want)
	}
	if dropped := secrets.NewValueHasher(ring(t, key(2))).HashValueUnderEveryKey("form-1", "email", "a@example.com"); len(dropped) != 1 {
		t.Fatalf("without old keys: %v, want the current key's hash only", dropped)
	}
}

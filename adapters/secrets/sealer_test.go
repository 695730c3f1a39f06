package secrets_test

import (
	"bytes"
	"testing"

	"github.com/formd/formd/adapters/secrets"
	"github.com/formd/formd/application"
)

func key(b byte) secrets.Key { return bytes.Repeat([]byte{b}, 32) }

func newSealer(t *testing.T, k secrets.Key) *secrets.Sealer {
	t.Helper()
	s, err := secrets.NewSealer(k)
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
		{"deleted key", s, "sub-1", application.SealedPayload{Ciphertext: p.Ciphertext}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, err := tt.sealer.Open(tt.id, tt.p); err == nil {
				t.Fatalf("Open succeeded with %q", got)
			}
		})
	}
}

func TestValueHasher(t *testing.T) {
	h := secrets.NewValueHasher(key(1))
	a := h.HashValue("form-1", "email", "a@example.com")
	if len(a) != 32 || a != secrets.NewValueHasher(key(1)).HashValue("form-1", "email", "a@example.com") {
		t.Fatalf("hash %q is not 128 bits of hex or not stable", a)
	}
	for _, other := range []string{
		h.HashValue("form-2", "email", "a@example.com"),
		h.HashValue("form-1", "mail", "a@example.com"),
		h.HashValue("form-1", "email", "b@example.com"),
		h.HashValue("form-1", "emai", "la@example.com"), // field and value are separated
		secrets.NewValueHasher(key(2)).HashValue("form-1", "email", "a@example.com"),
	} {
		if other == a {
			t.Errorf("a different input hashed to %s too", a)
		}
	}
}

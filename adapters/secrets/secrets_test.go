package secrets_test

import (
	"encoding/hex"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/formd/formd/adapters/secrets"
)

func TestArgon2HashAndVerify(t *testing.T) {
	var a secrets.Argon2
	encoded, err := a.Hash("correct horse battery staple")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(encoded, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Fatalf("hash %q does not carry the OWASP minimum parameters", encoded)
	}
	if ok, err := a.Verify("correct horse battery staple", encoded); err != nil || !ok {
		t.Fatalf("Verify(right password) = %v, %v", ok, err)
	}
	if ok, err := a.Verify("correct horse battery stapler", encoded); err != nil || ok {
		t.Fatalf("Verify(wrong password) = %v, %v; want false", ok, err)
	}
	if again, _ := a.Hash("correct horse battery staple"); again == encoded {
		t.Fatal("two hashes of one password are equal: the salt is not random")
	}
	// Parameters are read from the hash, so older hashes keep verifying
	// when the defaults are raised.
	parts := strings.Split(encoded, "$")
	if ok, err := a.Verify("x", strings.Join(append(parts[:3:3], "m=8,t=1,p=1", parts[4], parts[5]), "$")); err != nil || ok {
		t.Fatalf("Verify with other parameters = %v, %v; want a clean false", ok, err)
	}
	for _, bad := range []string{"", "plain", "$2a$10$bcrypt", "$argon2id$v=19$m=x$salt$hash", "$argon2id$v=19$m=8,t=1,p=1$!!$!!"} {
		if ok, err := a.Verify("x", bad); err == nil || ok {
			t.Errorf("Verify(%q) = %v, %v; want an error", bad, ok, err)
		}
	}
}

func TestLinkTokens(t *testing.T) {
	a := secrets.NewLinkTokens(key(1)).Token("v-1")
	if a != secrets.NewLinkTokens(key(1)).Token("v-1") {
		t.Fatal("a link token is not derived deterministically from the secret")
	}
	if a == secrets.NewLinkTokens(key(1)).Token("v-2") || a == secrets.NewLinkTokens(key(2)).Token("v-1") {
		t.Fatal("link tokens of different verifications or secrets collide")
	}
	if key(1).Derive("a") == nil || string(key(1).Derive("a")) == string(key(1).Derive("b")) {
		t.Fatal("keys derived for different purposes are equal")
	}
}

func TestLoadKey(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	want := strings.Repeat("ab", 32)
	k, err := secrets.LoadKey(want, "", log)
	if err != nil || hex.EncodeToString(k) != want {
		t.Fatalf("LoadKey(configured) = %x, %v", k, err)
	}
	for _, bad := range []string{"abcd", strings.Repeat("zz", 32), strings.Repeat("ab", 33)} {
		if _, err := secrets.LoadKey(bad, "", log); err == nil {
			t.Errorf("LoadKey(%q) accepted a malformed key", bad)
		}
	}
	dir := filepath.Join(t.TempDir(), "data")
	first, err := secrets.LoadKey("", dir, log)
	if err != nil || len(first) != 32 {
		t.Fatalf("generated key %x, %v", first, err)
	}
	info, err := os.Stat(filepath.Join(dir, "secret.key"))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("secret.key: %v, mode %v; want 0600", err, info.Mode())
	}
	second, err := secrets.LoadKey("", dir, log)
	if err != nil || string(second) != string(first) {
		t.Fatalf("the development key changed between starts: %x then %x (%v)", first, second, err)
	}
}

package secrets_test

import (
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"slices"
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
	a := secrets.NewLinkTokens(ring(t, key(1))).Token("v-1")
	if a != secrets.NewLinkTokens(ring(t, key(1))).Token("v-1") {
		t.Fatal("a link token is not derived deterministically from the secret")
	}
	if a == secrets.NewLinkTokens(ring(t, key(1))).Token("v-2") || a == secrets.NewLinkTokens(ring(t, key(2))).Token("v-1") {
		t.Fatal("link tokens of different verifications or secrets collide")
	}
	if key(1).Derive("a") == nil || string(key(1).Derive("a")) == string(key(1).Derive("b")) {
		t.Fatal("keys derived for different purposes are equal")
	}
	if !strings.HasPrefix(a, key(1).ID()+".") || url.PathEscape(a) != a {
		t.Fatalf("token %q does not start with its key id %s. or needs escaping in a URL path", a, key(1).ID())
	}
}

// Key rotation: a link issued under the old key verifies while that key is
// listed in FORMD_SECRET_KEYS_OLD, and no longer once it is dropped.
func TestLinkTokensAfterRotation(t *testing.T) {
	old := secrets.NewLinkTokens(ring(t, key(1))).Token("v-1")
	rotated := secrets.NewLinkTokens(ring(t, key(2), key(1)))
	if !rotated.Verify("v-1", old) {
		t.Fatal("a link issued under the old key does not verify after rotation")
	}
	if !rotated.Verify("v-1", rotated.Token("v-1")) || !strings.HasPrefix(rotated.Token("v-1"), key(2).ID()+".") {
		t.Fatalf("a rotated formd's own token %q does not verify or does not carry the current key id", rotated.Token("v-1"))
	}
	if rotated.Verify("v-2", old) {
		t.Fatal("a token verified for another verification")
	}
	if secrets.NewLinkTokens(ring(t, key(2))).Verify("v-1", old) {
		t.Fatal("a link of a key no longer listed still verifies")
	}
	// Tokens issued before key ids existed: base64url of the MAC alone.
	_, legacy, _ := strings.Cut(old, ".")
	if !rotated.Verify("v-1", legacy) || rotated.Verify("v-1", legacy[1:]) {
		t.Fatal("a token without a key id is not checked against the accepted keys")
	}
	// The mailer finds the token a verification was requested with among
	// these, so a mail sent after a rotation carries the link that works.
	tokens := rotated.Tokens("v-1")
	if tokens[0] != rotated.Token("v-1") || !slices.Contains(tokens, old) || !slices.Contains(tokens, legacy) {
		t.Fatalf("Tokens = %q; want the current token first, then the old key's, with and without key id", tokens)
	}
}

func TestKeyIDs(t *testing.T) {
	id := key(1).ID()
	if len(id) != 8 || id == key(2).ID() || strings.Contains(hex.EncodeToString(key(1)), id) {
		t.Fatalf("key id %q: want 8 hex digits, distinct per key, not a piece of the key", id)
	}
	if _, err := secrets.NewKeyring(key(1), key(2), key(1)); err == nil {
		t.Fatal("a keyring listing one key twice was accepted")
	}
}

func TestLoadKeys(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	want := strings.Repeat("ab", 32)
	oldHex := strings.Repeat("cd", 32)
	r, err := secrets.LoadKeys(want, []string{oldHex, " "}, "", false, log)
	if err != nil || hex.EncodeToString(r.Current) != want || len(r.Old) != 1 || hex.EncodeToString(r.Old[0]) != oldHex {
		t.Fatalf("LoadKeys(configured) = %x, %x, %v", r.Current, r.Old, err)
	}
	for _, bad := range []string{"abcd", strings.Repeat("zz", 32), strings.Repeat("ab", 33)} {
		if _, err := secrets.LoadKeys(bad, nil, "", false, log); err == nil {
			t.Errorf("LoadKeys(%q) accepted a malformed key", bad)
		}
		if _, err := secrets.LoadKeys(want, []string{bad}, "", false, log); err == nil || !strings.Contains(err.Error(), "FORMD_SECRET_KEYS_OLD") {
			t.Errorf("LoadKeys(old %q) = %v; want an error naming FORMD_SECRET_KEYS_OLD", bad, err)
		}
	}
	if _, err := secrets.LoadKeys(want, []string{want}, "", false, log); err == nil {
		t.Error("the current key listed as old too was accepted")
	}

	// Outside development mode a missing key is refused, and nothing is generated.
	dir := filepath.Join(t.TempDir(), "data")
	if _, err := secrets.LoadKeys("", nil, dir, false, log); !errors.Is(err, secrets.ErrNoKey) {
		t.Fatalf("LoadKeys without a key and without FORMD_DEV = %v; want ErrNoKey", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("a refused start wrote %s: %v", dir, err)
	}

	first, err := secrets.LoadKeys("", nil, dir, true, log)
	if err != nil || len(first.Current) != 32 {
		t.Fatalf("generated key %x, %v", first.Current, err)
	}
	info, err := os.Stat(filepath.Join(dir, "secret.key"))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("secret.key: %v, mode %v; want 0600", err, info.Mode())
	}
	second, err := secrets.LoadKeys("", nil, dir, true, log)
	if err != nil || string(second.Current) != string(first.Current) {
		t.Fatalf("the development key changed between starts: %x then %x (%v)", first.Current, second.Current, err)
	}
}

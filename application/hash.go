package application

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
)

// HashSecret is the stored form of a high-entropy secret (session token,
// access key, link token): its SHA-256. Such secrets need no slow hash.
func HashSecret(secret string) []byte {
	sum := sha256.Sum256([]byte(secret))
	return sum[:]
}

// CredentialID names a credential in audit metadata without revealing it.
func CredentialID(hash []byte) string { return hex.EncodeToString(hash[:6]) }

// NewSecret returns 256 random bits, base64url-encoded, with a prefix naming its kind.
func NewSecret(prefix string) string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	return prefix + base64.RawURLEncoding.EncodeToString(b[:])
}

func hexHash(secret string) string { return hex.EncodeToString(HashSecret(secret)) }

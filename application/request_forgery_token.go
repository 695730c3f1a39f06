package application

import (
	"crypto/subtle"
	"encoding/hex"
	"strings"
)

// RequestForgeryTokenHandler makes and checks the dashboard's CSRF tokens. A
// token belongs to one session: a keyed hash (the server key, through
// ValueHasher) of the session token's hash, so it needs no storage, is the
// same on every formd process, and ends with its session. Another site can
// make the browser send the session cookie but cannot read a page to learn
// the token.
type RequestForgeryTokenHandler struct {
	hasher ValueHasher
}

// NewRequestForgeryTokenHandler builds the handler; every dependency is required.
func NewRequestForgeryTokenHandler(hasher ValueHasher) *RequestForgeryTokenHandler {
	if hasher == nil {
		panic("application: nil dependency of RequestForgeryTokenHandler")
	}
	return &RequestForgeryTokenHandler{hasher: hasher}
}

// csrfScope keeps these hashes apart from the value hashes of submissions
// (which are scoped by a form id, never empty).
const csrfScope = "dashboard.csrf"

// Token is the CSRF token of the session whose token is sessionToken.
func (h *RequestForgeryTokenHandler) Token(sessionToken string) string {
	return h.hasher.HashValue("", csrfScope, hex.EncodeToString(HashSecret(strings.TrimSpace(sessionToken))))
}

// Valid reports, in constant time, whether token is the session's CSRF token.
// An empty session or token is never valid.
func (h *RequestForgeryTokenHandler) Valid(sessionToken, token string) bool {
	if strings.TrimSpace(sessionToken) == "" || token == "" {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(h.Token(sessionToken)), []byte(token)) == 1
}

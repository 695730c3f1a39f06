package domain

import (
	"net/mail"
	"strings"
	"unicode"
)

// MaxEmailBytes is the longest address accepted (the RFC 5321 path limit).
const MaxEmailBytes = 254

// IsEmailAddress is the domain's one rule for an email address, used for
// recipients, account emails, reply-to and CC addresses and the "email"
// field rule alike, so no two places can judge the same string differently.
// An address is bare (a@example.com): at most MaxEmailBytes, no whitespace of
// any kind, exactly one '@' after a non-empty local part, a domain with a dot,
// and accepted by net/mail as exactly that address (no display name, angle
// brackets, comments or quoting). It judges s as given: callers that accept
// surrounding blanks trim first.
func IsEmailAddress(s string) bool {
	if s == "" || len(s) > MaxEmailBytes || strings.Count(s, "@") != 1 {
		return false
	}
	if strings.IndexFunc(s, unicode.IsSpace) >= 0 || strings.ContainsAny(s, "<>") {
		return false
	}
	local, host, _ := strings.Cut(s, "@")
	if local == "" || !strings.Contains(host, ".") {
		return false
	}
	a, err := mail.ParseAddress(s)
	return err == nil && a.Name == "" && a.Address == s
}

package domain

import "unicode/utf8"

// Truncate cuts s to at most n bytes on a character boundary: a cut inside
// a UTF-8 sequence would leave text that PostgreSQL refuses to store and a
// reader sees as a broken character.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n = max(n, 0)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

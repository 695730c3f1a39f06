package postgres

import (
	"unicode/utf8"
)

// truncate cuts s to at most n bytes on a character boundary: PostgreSQL
// refuses text that ends inside a UTF-8 sequence.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

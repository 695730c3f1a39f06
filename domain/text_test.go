package domain_test

import (
	"testing"
	"unicode/utf8"

	"github.com/formd/formd/domain"
)

func TestTruncateCutsOnACharacterBoundary(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly", 7, "exactly"},
		{"abcdef", 3, "abc"},
		{"naïve", 3, "na"}, // ï is two bytes: cutting after its first would split it
		{"naïve", 4, "naï"},
		{"€uro", 2, ""}, // € is three bytes
		{"anything", 0, ""},
		{"anything", -1, ""},
	} {
		got := domain.Truncate(tc.s, tc.n)
		if got != tc.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

func FuzzTruncate(f *testing.F) {
	f.Add("naïve €uro 😀", 7)
	f.Fuzz(func(t *testing.T, s string, n int) {
		got := domain.Truncate(s, n)
		if len(got) > max(n, 0) && got != s {
			t.Fatalf("Truncate(%q, %d) = %q: longer than %d bytes", s, n, got, n)
		}
		if len(s) > len(got) && s[:len(got)] != got {
			t.Fatalf("Truncate(%q, %d) = %q: not a prefix", s, n, got)
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("Truncate(%q, %d) = %q: splits a character", s, n, got)
		}
		if utf8.ValidString(s) && len(got) < len(s) && len(got)+utf8.UTFMax <= max(n, 0) {
			t.Fatalf("Truncate(%q, %d) = %q: cut more than one character short", s, n, got)
		}
	})
}

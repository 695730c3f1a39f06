package saferegex

import (
	"strings"
	"testing"
	"unicode"
)

func TestCompileAccepts(t *testing.T) {
	tests := []struct {
		pattern string
		match   []string
		noMatch []string
	}{
		{`^[A-Z]{2}\d{4}$`, []string{"AB1234"}, []string{"ab1234", "AB123", "AB12345", "A1234"}},
		{`^\+?[0-9 ]{7,15}$`, []string{"+49 123 4567", "1234567"}, []string{"+49-123-4567", "123", "++1234567"}},
		{`[a-z]+@example\.com`, []string{"bob@example.com", "x bob@example.com y"}, []string{"bob@exampleXcom", "@example.com"}},
		{``, []string{"", "anything"}, nil},
		{`^a.b$`, []string{"axb", "a b", "aéb"}, []string{"a\nb", "a\rb", "a\u2028b", "ab"}},
		{`^\s$`, []string{" ", "\t", "\v", "\u00a0", "\ufeff", "\u3000"}, []string{"a", "\u200b"}},
		{`^[^\S]$`, []string{" ", "\v"}, []string{"a"}},
		{`^[\S]+$`, []string{"abc", "é😀"}, []string{"a b", "\v"}},
		{`^\u00e9\x41$`, []string{"éA"}, []string{"eA"}},
		{`^[\u0041-\u005A]+$`, []string{"ABC"}, []string{"abc"}},
		{`^\/path\/[\w\-.]+$`, []string{"/path/a-b.c"}, []string{"path/a"}},
		{`^a{2,}?b{0,100}$`, []string{"aa", "aaab"}, []string{"ab"}},
		{`^a+?b*?c??$`, []string{"ab", "abbbc"}, []string{"b"}},
		{`\bword\B`, []string{"a wordy"}, []string{"a word "}},
		{`^[-a]$`, []string{"-", "a"}, []string{"b"}},
		{`^[a-]$`, []string{"-", "a"}, []string{"b"}},
		{`^[[]$`, []string{"["}, []string{"]"}},
		{`^[[:a]+$`, []string{"[:a"}, []string{"b"}},
		{`^[\]\\^]+$`, []string{`]\^`}, []string{"a"}},
		{`^[^a-z]$`, []string{"A"}, []string{"q"}},
		{`^\t\n\r\f\v$`, []string{"\t\n\r\f\v"}, nil},
		{`^a{01}$`, []string{"a"}, []string{"aa"}},
		{`^ü+$`, []string{"üü"}, []string{"u"}},
		{`^\$\^\*\{\}\(\)\|\?$`, []string{"$^*{}()|?"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			re, err := Compile(tt.pattern)
			if err != nil {
				t.Fatalf("Compile(%q) = %v, want nil", tt.pattern, err)
			}
			for _, s := range tt.match {
				if !re.MatchString(s) {
					t.Errorf("%q (Go %q) does not match %q", tt.pattern, re.String(), s)
				}
			}
			for _, s := range tt.noMatch {
				if re.MatchString(s) {
					t.Errorf("%q (Go %q) matches %q", tt.pattern, re.String(), s)
				}
			}
		})
	}
}

func TestCompileRejects(t *testing.T) {
	tests := []struct {
		pattern string
		want    string
	}{
		{`(abc)`, "groups are not allowed"},
		{`(?:abc)`, "groups are not allowed"},
		{`(?<name>a)`, "groups are not allowed"},
		{`abc)`, "groups are not allowed"},
		{`a(?=b)`, "lookarounds are not allowed"},
		{`a(?!b)`, "lookarounds are not allowed"},
		{`(?<=a)b`, "lookarounds are not allowed"},
		{`(?<!a)b`, "lookarounds are not allowed"},
		{`a|b`, "alternation"},
		{`[a-z]+|`, "alternation"},
		{`\1`, "backreferences are not allowed"},
		{`a\9`, "backreferences are not allowed"},
		{`\k<name>`, "backreferences are not allowed"},
		{`.*`, "wildcard repetition"},
		{`^.+$`, "wildcard repetition"},
		{`a.{2,}`, "wildcard repetition"},
		{`.?`, "wildcard repetition"},
		{`.{3}`, "wildcard repetition"},
		{`a**`, "cannot follow each other"},
		{`a+{2}`, "cannot follow each other"},
		{`a+??`, "cannot follow each other"},
		{`a{2}*`, "cannot follow each other"},
		{`*a`, "nothing to repeat"},
		{`+`, "nothing to repeat"},
		{`?`, "nothing to repeat"},
		{`{2}`, "nothing to repeat"},
		{`^*`, "nothing to repeat"},
		{`a$+`, "nothing to repeat"},
		{`\b+`, "nothing to repeat"},
		{`[abc`, "unterminated character class"},
		{`[a\]`, "unterminated character class"},
		{`abc\`, "unfinished escape"},
		{`[a\`, "unfinished escape"},
		{`[]`, "empty character classes"},
		{`[^]`, "empty character classes"},
		{`a{`, "{ must start a quantifier"},
		{`a{x}`, "{ must start a quantifier"},
		{`a{,5}`, "{ must start a quantifier"},
		{`a{2,x}`, "{ must start a quantifier"},
		{`a{2`, "{ must start a quantifier"},
		{`a}`, "unexpected }"},
		{`a]`, "unexpected ]"},
		{`a{1001}`, "above 1000"},
		{`a{1,1001}`, "above 1000"},
		{`a{99999999999999999999999}`, "above 1000"},
		{`a{5,2}`, "minimum above its maximum"},
		{`[z-a]`, "out of order"},
		{`[\d-z]`, "class escape"},
		{`[a-\w]`, "class escape"},
		{`[\b]`, "not allowed inside a character class"},
		{`\u12`, "exactly 4 hex digits"},
		{`\u{1F600}`, "exactly 4 hex digits"},
		{`\xZZ`, "exactly 2 hex digits"},
		{`\uD83D\uDE00`, "surrogates"},
		{`\p{L}`, "not supported"},
		{`\cA`, "not supported"},
		{`\0`, "not supported"},
		{`\k`, "not supported"},
		{`\é`, "not supported"},
		{"\xff", "valid UTF-8"},
		{strings.Repeat("a", 513), "at most 512 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			re, err := Compile(tt.pattern)
			if err == nil {
				t.Fatalf("Compile(%q) = %q, nil; want error containing %q", tt.pattern, re.String(), tt.want)
			}
			if re != nil {
				t.Errorf("Compile(%q) returned a regexp with error %v", tt.pattern, err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Compile(%q) error = %q, want it to contain %q", tt.pattern, err, tt.want)
			}
		})
	}
}

func TestCompileLengthLimit(t *testing.T) {
	if _, err := Compile(strings.Repeat("a", 512)); err != nil {
		t.Fatalf("512 bytes must be accepted: %v", err)
	}
	if _, err := Compile(strings.Repeat(`\w{1000}`, 64)); err == nil || !strings.Contains(err.Error(), "too complex") {
		t.Fatalf("a pattern whose matching cost is huge must be refused as too complex, got %v", err)
	}
	if _, err := Compile(`^[A-Z0-9]{1,200}$`); err != nil {
		t.Fatalf("a realistic bounded pattern must compile: %v", err)
	}
}

func TestCompileErrorPosition(t *testing.T) {
	_, err := Compile(`ab|c`)
	if err == nil || !strings.Contains(err.Error(), "position 3") {
		t.Fatalf("error = %v, want it to name position 3", err)
	}
	_, err = Compile(`éé(`)
	if err == nil || !strings.Contains(err.Error(), "position 3") {
		t.Fatalf("error = %v, want a character (not byte) position 3", err)
	}
}

// TestSpaceTables checks the \s and \S tables against JavaScript's
// definition of white space (WhiteSpace and LineTerminator) for every code point.
func TestSpaceTables(t *testing.T) {
	space, err := Compile(`^\s$`)
	if err != nil {
		t.Fatal(err)
	}
	nonSpace, err := Compile(`^[\S]$`)
	if err != nil {
		t.Fatal(err)
	}
	jsSpace := func(r rune) bool {
		switch r {
		case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
			return true
		}
		return 0x2000 <= r && r <= 0x200A
	}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if 0xD800 <= r && r <= 0xDFFF {
			continue // not representable in a Go string
		}
		s := string(r)
		if got, want := space.MatchString(s), jsSpace(r); got != want {
			t.Fatalf(`\s on U+%04X = %v, want %v`, r, got, want)
		}
		if got, want := nonSpace.MatchString(s), !jsSpace(r); got != want {
			t.Fatalf(`[\S] on U+%04X = %v, want %v`, r, got, want)
		}
	}
}

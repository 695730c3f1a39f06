package saferegex

import (
	"regexp/syntax"
	"testing"
	"unicode/utf8"
)

// FuzzCompile checks Compile never panics, that an accepted
// pattern yields a usable regexp, and that what it hands to Go really is in the
// safe subset: no groups, no alternation and no nested repetition. (A class
// such as [\s\S] may still match any character; classes are allowed.)
func FuzzCompile(f *testing.F) {
	for _, seed := range [][2]string{
		{`^[A-Z]{2}\d{4}$`, "AB1234"},
		{`^\+?[0-9 ]{7,15}$`, "+49 1234567"},
		{`[a-z]+@example\.com`, "bob@example.com"},
		{`^\s*[\S]+?\u00e9\/$`, " x\u00e9/"},
		{`(a|b)*`, "ab"},
		{`.*`, "x"},
		{`a**`, "aa"},
		{`\1`, ""},
		{`[z-a`, ""},
		{`a{1001}`, ""},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, pattern, input string) {
		re, err := Compile(pattern)
		if err != nil {
			if re != nil {
				t.Fatalf("Compile(%q) returned both a regexp and %v", pattern, err)
			}
			if err.Error() == "" {
				t.Fatalf("Compile(%q) returned an empty error message", pattern)
			}
			return
		}
		if re == nil {
			t.Fatalf("Compile(%q) returned nil, nil", pattern)
		}
		if len(pattern) > maxBytes || !utf8.ValidString(pattern) {
			t.Fatalf("Compile accepted an over-long or invalid pattern %q", pattern)
		}
		re.MatchString(input)
		tree, err := syntax.Parse(re.String(), syntax.Perl)
		if err != nil {
			t.Fatalf("translated pattern %q does not parse: %v", re.String(), err)
		}
		fuzzCheckTree(t, pattern, tree, false)
	})
}

func fuzzCheckTree(t *testing.T, pattern string, re *syntax.Regexp, inRepeat bool) {
	t.Helper()
	switch re.Op {
	case syntax.OpCapture, syntax.OpAlternate:
		t.Fatalf("Compile(%q) let through %v", pattern, re.Op)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		if inRepeat {
			t.Fatalf("Compile(%q) let through a nested repetition", pattern)
		}
		inRepeat = true
	}
	for _, sub := range re.Sub {
		fuzzCheckTree(t, pattern, sub, inRepeat)
	}
}

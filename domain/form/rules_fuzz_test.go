package form

import (
	"regexp/syntax"
	"testing"
	"unicode/utf8"
)

// FuzzCompileSafeRegex checks CompileSafeRegex never panics, that an accepted
// pattern yields a usable regexp, and that what it hands to Go really is in the
// safe subset: no groups, no alternation and no nested repetition. (A class
// such as [\s\S] may still match any character; classes are allowed.)
func FuzzCompileSafeRegex(f *testing.F) {
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
		re, err := CompileSafeRegex(pattern)
		if err != nil {
			if re != nil {
				t.Fatalf("CompileSafeRegex(%q) returned both a regexp and %v", pattern, err)
			}
			if err.Error() == "" {
				t.Fatalf("CompileSafeRegex(%q) returned an empty error message", pattern)
			}
			return
		}
		if re == nil {
			t.Fatalf("CompileSafeRegex(%q) returned nil, nil", pattern)
		}
		if len(pattern) > safeRegexMaxBytes || !utf8.ValidString(pattern) {
			t.Fatalf("CompileSafeRegex accepted an over-long or invalid pattern %q", pattern)
		}
		re.MatchString(input)
		tree, err := syntax.Parse(re.String(), syntax.Perl)
		if err != nil {
			t.Fatalf("translated pattern %q does not parse: %v", re.String(), err)
		}
		safeRegexFuzzCheckTree(t, pattern, tree, false)
	})
}

func safeRegexFuzzCheckTree(t *testing.T, pattern string, re *syntax.Regexp, inRepeat bool) {
	t.Helper()
	switch re.Op {
	case syntax.OpCapture, syntax.OpAlternate:
		t.Fatalf("CompileSafeRegex(%q) let through %v", pattern, re.Op)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		if inRepeat {
			t.Fatalf("CompileSafeRegex(%q) let through a nested repetition", pattern)
		}
		inRepeat = true
	}
	for _, sub := range re.Sub {
		safeRegexFuzzCheckTree(t, pattern, sub, inRepeat)
	}
}

// Package saferegex is the safe subset of JavaScript regular expressions that
// a form's regex rules may use: checked when a form is saved, compiled to Go
// (RE2) when a submission is judged, and behaving the same in both places.
package saferegex

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The safe regex subset: a small, hand-checked slice of JavaScript regular
// expressions that behaves the same in a browser and in Go's RE2 engine.
// Groups, alternation, backreferences, lookarounds and wildcard repetition are
// rejected. Characters are matched as Unicode code points (like the JavaScript
// "u"/"v" flags the HTML pattern attribute uses).
const (
	maxBytes  = 512
	maxRepeat = 1000
)

// JavaScript's \s (WhiteSpace and LineTerminator) and its complement, as
// Go class ranges; Go's own \s is only [\t\n\f\r ].
const (
	spaceRanges    = `\x{9}-\x{D}\x{20}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}`
	nonSpaceRanges = `\x{0}-\x{8}\x{E}-\x{1F}\x{21}-\x{9F}\x{A1}-\x{167F}\x{1681}-\x{1FFF}\x{200B}-\x{2027}\x{202A}-\x{202E}\x{2030}-\x{205E}\x{2060}-\x{2FFF}\x{3001}-\x{FEFE}\x{FF00}-\x{10FFFF}`
	// JavaScript's '.' matches anything but a line terminator.
	dot = `[^\n\r\x{2028}\x{2029}]`
)

// What the previous token was, which decides whether a quantifier may follow.
type lastToken int

const (
	prevNothing    lastToken = iota // start of pattern or an anchor
	prevAtom                        // literal, escape or class
	prevWildcard                    // '.'
	prevQuantifier                  // a quantifier; a lazy '?' may follow
	prevLazy                        // a quantifier's lazy '?'
)

// Compile checks that pattern is in the safe subset of JavaScript
// regular expressions accepted in regex rules, translates it to Go (RE2)
// syntax and returns the compiled regexp. The error message is readable by the
// form's owner, e.g. "groups are not allowed in regex rules (at position 3)".
func Compile(pattern string) (*regexp.Regexp, error) {
	re, _, err := CompileSized(pattern)
	return re, err
}

// CompileSized is Compile that also returns the compiled program's size in
// steps: matching a value costs up to (its length x size) steps, which the
// callers count against a budget.
func CompileSized(pattern string) (*regexp.Regexp, int, error) {
	goPattern, err := translate(pattern)
	if err != nil {
		return nil, 0, err
	}
	parsed, err := syntax.Parse(goPattern, syntax.Perl)
	if err != nil {
		return nil, 0, fmt.Errorf("regex cannot be compiled: %v", err)
	}
	// Matching costs up to (value length x program size) steps on every
	// submission, so large counted repetitions are refused up front.
	prog, err := syntax.Compile(parsed.Simplify())
	if err != nil || len(prog.Inst) > MaxProgram {
		return nil, 0, fmt.Errorf("regex is too complex: use smaller repetition counts (at most %d compiled steps)", MaxProgram)
	}
	re, err := regexp.Compile(goPattern)
	if err != nil {
		return nil, 0, fmt.Errorf("regex cannot be compiled: %v", err)
	}
	return re, len(prog.Inst), nil
}

// MaxProgram caps the compiled size of a regex rule, bounding the
// CPU one submission can cost: a 32 KiB value against the largest allowed
// program takes milliseconds, not seconds.
const MaxProgram = 600

// fail builds an error pointing at byte offset i of p (reported as a
// 1-based character position).
func fail(p string, i int, format string, args ...any) error {
	pos := utf8.RuneCountInString(p[:min(i, len(p))]) + 1
	return fmt.Errorf(format+" (at position %d)", append(args, pos)...)
}

// translate validates a JavaScript pattern against the safe subset and
// returns the equivalent Go pattern.
func translate(p string) (string, error) {
	if len(p) > maxBytes {
		return "", fmt.Errorf("regex must be at most %d bytes long, got %d", maxBytes, len(p))
	}
	if !utf8.ValidString(p) {
		return "", fmt.Errorf("regex must be valid UTF-8 text")
	}
	var b strings.Builder
	b.Grow(len(p) + 16)
	prev := prevNothing
	for i := 0; i < len(p); {
		c := p[i]
		switch c {
		case '(':
			rest := p[i:]
			if strings.HasPrefix(rest, "(?=") || strings.HasPrefix(rest, "(?!") ||
				strings.HasPrefix(rest, "(?<=") || strings.HasPrefix(rest, "(?<!") {
				return "", fail(p, i, "lookarounds are not allowed in regex rules")
			}
			return "", fail(p, i, "groups are not allowed in regex rules")
		case ')':
			return "", fail(p, i, "groups are not allowed in regex rules")
		case '|':
			return "", fail(p, i, "alternation (|) is not allowed in regex rules")
		case '*', '+', '?', '{':
			if c == '?' && prev == prevQuantifier {
				b.WriteByte('?') // lazy
				prev = prevLazy
				i++
				continue
			}
			q, n := string(c), 1
			if c == '{' {
				var err error
				if q, n, err = braces(p, i); err != nil {
					return "", err
				}
			}
			switch prev {
			case prevWildcard:
				return "", fail(p, i, "wildcard repetition (like .* or .+) is not allowed in regex rules; use a character class such as [a-z]+ instead")
			case prevQuantifier, prevLazy:
				return "", fail(p, i, "quantifiers cannot follow each other in regex rules")
			case prevNothing:
				return "", fail(p, i, "quantifier %s has nothing to repeat", p[i:i+n])
			}
			b.WriteString(q)
			prev = prevQuantifier
			i += n
		case '}':
			return "", fail(p, i, "unexpected }; write \\} to match a brace")
		case ']':
			return "", fail(p, i, "unexpected ]; write \\] to match a bracket")
		case '^', '$':
			b.WriteByte(c)
			prev = prevNothing
			i++
		case '.':
			b.WriteString(dot)
			prev = prevWildcard
			i++
		case '[':
			n, err := class(p, i, &b)
			if err != nil {
				return "", err
			}
			prev = prevAtom
			i += n
		case '\\':
			e, err := escape(p, i, false)
			if err != nil {
				return "", err
			}
			b.WriteString(e.text)
			prev = prevAtom
			if e.anchor {
				prev = prevNothing
			}
			i += e.n
		default:
			r, size := utf8.DecodeRuneInString(p[i:])
			writeLiteral(&b, r)
			prev = prevAtom
			i += size
		}
	}
	return b.String(), nil
}

// braces parses a {n}, {n,} or {n,m} quantifier starting at p[i] ==
// '{' and returns it normalized for Go and its length in p.
func braces(p string, i int) (string, int, error) {
	j := i + 1
	lo, j, okLo := number(p, j)
	if !okLo {
		return "", 0, fail(p, i, "{ must start a quantifier like {2}, {2,} or {2,5}; write \\{ to match a brace")
	}
	if lo > maxRepeat {
		return "", 0, fail(p, i, "repetition counts above %d are not allowed", maxRepeat)
	}
	if j < len(p) && p[j] == '}' {
		return "{" + strconv.Itoa(lo) + "}", j + 1 - i, nil
	}
	if j >= len(p) || p[j] != ',' {
		return "", 0, fail(p, i, "{ must start a quantifier like {2}, {2,} or {2,5}; write \\{ to match a brace")
	}
	j++
	if j < len(p) && p[j] == '}' {
		return "{" + strconv.Itoa(lo) + ",}", j + 1 - i, nil
	}
	hi, j, okHi := number(p, j)
	if !okHi || j >= len(p) || p[j] != '}' {
		return "", 0, fail(p, i, "{ must start a quantifier like {2}, {2,} or {2,5}; write \\{ to match a brace")
	}
	if hi > maxRepeat {
		return "", 0, fail(p, i, "repetition counts above %d are not allowed", maxRepeat)
	}
	if lo > hi {
		return "", 0, fail(p, i, "quantifier {%d,%d} has its minimum above its maximum", lo, hi)
	}
	return "{" + strconv.Itoa(lo) + "," + strconv.Itoa(hi) + "}", j + 1 - i, nil
}

// number reads decimal digits at p[j:]. Values are capped just above
// maxRepeat so long digit runs cannot overflow.
func number(p string, j int) (int, int, bool) {
	start, n := j, 0
	for j < len(p) && '0' <= p[j] && p[j] <= '9' {
		if n <= maxRepeat {
			n = n*10 + int(p[j]-'0')
		}
		j++
	}
	return n, j, j > start
}

// escaped is one translated escape sequence.
type escaped struct {
	text   string // Go syntax
	char   rune   // the single character it stands for, or -1 (class escape, anchor)
	anchor bool   // \b or \B
	n      int    // bytes consumed from the pattern
}

// escape translates the escape sequence starting at p[i] == '\\'.
func escape(p string, i int, inClass bool) (escaped, error) {
	if i+1 >= len(p) {
		return escaped{}, fail(p, i, "regex ends with an unfinished escape (\\)")
	}
	c := p[i+1]
	switch c {
	case 'd', 'D', 'w', 'W':
		return escaped{text: p[i : i+2], char: -1, n: 2}, nil
	case 's', 'S':
		ranges := spaceRanges
		if c == 'S' {
			ranges = nonSpaceRanges
		}
		if !inClass {
			ranges = "[" + ranges + "]"
		}
		return escaped{text: ranges, char: -1, n: 2}, nil
	case 'b', 'B':
		if inClass {
			return escaped{}, fail(p, i, "\\%c is not allowed inside a character class", c)
		}
		return escaped{text: p[i : i+2], char: -1, anchor: true, n: 2}, nil
	case 'n', 't', 'r', 'f', 'v':
		return char(rune("\t\n\v\f\r"[strings.IndexByte("tnvfr", c)]), 2), nil
	case 'u', 'x':
		digits := 4
		if c == 'x' {
			digits = 2
		}
		end := i + 2 + digits
		if end > len(p) || !isHex(p[i+2:end]) {
			return escaped{}, fail(p, i, "\\%c must be followed by exactly %d hex digits", c, digits)
		}
		v, _ := strconv.ParseUint(p[i+2:end], 16, 32)
		if 0xD800 <= v && v <= 0xDFFF {
			return escaped{}, fail(p, i, "\\u escapes of surrogates (D800-DFFF) are not allowed; write the character itself")
		}
		return char(rune(v), end-i), nil
	case '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return escaped{}, fail(p, i, "backreferences are not allowed in regex rules")
	case 'k':
		if i+2 < len(p) && p[i+2] == '<' {
			return escaped{}, fail(p, i, "backreferences are not allowed in regex rules")
		}
	}
	if c > ' ' && c < utf8.RuneSelf && !isAlnum(c) && c != 0x7f {
		return char(rune(c), 2), nil // escaped punctuation, e.g. \. \/ \-
	}
	r, _ := utf8.DecodeRuneInString(p[i+1:])
	return escaped{}, fail(p, i, "escape \\%c is not supported in regex rules", r)
}

func char(r rune, n int) escaped {
	var b strings.Builder
	writeLiteral(&b, r)
	return escaped{text: b.String(), char: r, n: n}
}

// class translates the character class starting at p[i] == '[' into b
// and returns its length in p.
func class(p string, i int, b *strings.Builder) (int, error) {
	start := i
	i++
	b.WriteByte('[')
	if i < len(p) && p[i] == '^' {
		b.WriteByte('^')
		i++
	}
	if i < len(p) && p[i] == ']' {
		return 0, fail(p, start, "empty character classes ([] or [^]) are not allowed in regex rules")
	}
	for {
		if i >= len(p) {
			return 0, fail(p, start, "unterminated character class; add a closing ]")
		}
		if p[i] == ']' {
			b.WriteByte(']')
			return i + 1 - start, nil
		}
		lo, err := classAtom(p, i)
		if err != nil {
			return 0, err
		}
		i += lo.n
		if i+1 < len(p) && p[i] == '-' && p[i+1] != ']' {
			hi, err := classAtom(p, i+1)
			if err != nil {
				return 0, err
			}
			if lo.char < 0 || hi.char < 0 {
				return 0, fail(p, i, "a character class range cannot start or end with a class escape like \\d")
			}
			if lo.char > hi.char {
				return 0, fail(p, i, "character class range %s-%s is out of order", strconv.QuoteRune(lo.char), strconv.QuoteRune(hi.char))
			}
			b.WriteString(lo.text)
			b.WriteByte('-')
			b.WriteString(hi.text)
			i += 1 + hi.n
			continue
		}
		b.WriteString(lo.text)
	}
}

// classAtom reads one character or class escape inside a class.
func classAtom(p string, i int) (escaped, error) {
	if p[i] == '\\' {
		return escape(p, i, true)
	}
	r, size := utf8.DecodeRuneInString(p[i:])
	return char(r, size), nil
}

// writeLiteral writes r so Go matches exactly that character, inside
// or outside a class: ASCII punctuation is escaped, control and other
// non-printing characters are written as \x{...}.
func writeLiteral(b *strings.Builder, r rune) {
	switch {
	case r < utf8.RuneSelf && isAlnum(byte(r)):
		b.WriteByte(byte(r))
	case r > ' ' && r < 0x7f:
		b.WriteByte('\\')
		b.WriteByte(byte(r))
	case r > 0x7f && strconv.IsPrint(r):
		b.WriteRune(r)
	default:
		b.WriteString(`\x{`)
		b.WriteString(strconv.FormatInt(int64(r), 16))
		b.WriteByte('}')
	}
}

func isAlnum(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

package export

import (
	"unicode"
	"unicode/utf8"
)

// formulaStart reports whether a spreadsheet program may take a cell
// starting with r for a formula (the package doc: CSV injection).
func formulaStart(r rune) bool {
	switch r {
	case '=', '+', '-', '@', '\t', '\r', 0,
		'＝', '＋', '－', '＠':
		return true
	}
	return false
}

// startsFormula reports whether a cell made of these parts, in order, would
// start a formula: its first character after any leading white space is a
// formula start, or it starts with a tab or carriage return. The parts are
// a cell's values; what separates them is white space too.
func startsFormula(parts ...string) bool {
	for _, s := range parts {
		for _, r := range s {
			if formulaStart(r) {
				return true
			}
			if !unicode.IsSpace(r) {
				return false
			}
		}
	}
	return false
}

// bare reports whether a cell can be written unquoted: made only of ASCII
// letters, digits, '.', '_', ':' and '-' (the package doc: CSV).
func bare(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == ':' || c == '-') {
			return false
		}
	}
	return true
}

// validText is s with each byte that is not valid UTF-8 replaced by
// U+FFFD, as encoding/json writes it.
func validText(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return string([]rune(s))
}

// validUTF8 reports whether every part is valid UTF-8, the common case, so
// only a cell with invalid bytes pays for replacing them.
func validUTF8(parts []string) bool {
	for _, s := range parts {
		if !utf8.ValidString(s) {
			return false
		}
	}
	return true
}

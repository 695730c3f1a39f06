package export

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// maxNameBytes bounds the form name's part of a file name, so the name a
// browser saves stays well inside every file system's limit.
const maxNameBytes = 60

// Filename is an export's file name, ASCII only: the form's name in lower
// case, every run of other characters than letters and digits made one
// '-', then the day in UTC and the format's extension, as in
// "contact-us-2026-11-27.csv". A name with no ASCII letter or digit is
// "submissions".
func Filename(formName string, day time.Time, f Format) string {
	return stem(formName, asciiSafe) + "-" + day.UTC().Format(time.DateOnly) + "." + string(f)
}

// ContentDisposition is the Content-Disposition header that has a browser
// save an export: Filename as filename, and, where the form's name has
// other than ASCII letters and digits worth keeping, the name in UTF-8 as
// filename* (RFC 6266, RFC 8187), which browsers prefer.
func ContentDisposition(formName string, day time.Time, f Format) string {
	h := `attachment; filename="` + Filename(formName, day, f) + `"`
	unicodeName := stem(formName, unicodeSafe) + "-" + day.UTC().Format(time.DateOnly) + "." + string(f)
	if unicodeName != Filename(formName, day, f) {
		h += "; filename*=UTF-8''" + percentEncode(unicodeName)
	}
	return h
}

func asciiSafe(r rune) bool {
	return 'a' <= r && r <= 'z' || '0' <= r && r <= '9'
}

// unicodeSafe keeps letters and digits of any script: what a file name may
// hold everywhere, with no separator, quote or control character.
func unicodeSafe(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// stem is a form's name lower-cased, the runes keep refuses made '-' (one
// for each run), trimmed of '-' and bounded to maxNameBytes whole runes.
func stem(name string, keep func(rune) bool) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if !keep(r) {
			dash = b.Len() > 0
			continue
		}
		if dash {
			b.WriteByte('-')
			dash = false
		}
		if b.Len()+utf8.RuneLen(r) > maxNameBytes {
			break
		}
		b.WriteRune(r)
	}
	if b.Len() == 0 {
		return "submissions"
	}
	return strings.TrimSuffix(b.String(), "-")
}

// percentEncode writes s as RFC 8187's value-chars: attr-chars as they are,
// every other byte as %XX.
func percentEncode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$&+-.^_`|~", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte("0123456789ABCDEF"[c>>4])
		b.WriteByte("0123456789ABCDEF"[c&0xf])
	}
	return b.String()
}

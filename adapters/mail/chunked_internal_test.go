package mail

import (
	"bytes"
	"testing"
)

// A chunk's size is announced before it is sent, so the line endings that
// writeCRLF mends must be counted exactly by crlfSize.
func TestChunkLinesEndInCRLFAndTheirSizeIsCountedFirst(t *testing.T) {
	for in, want := range map[string]string{
		"":                      "",
		"one\r\ntwo\r\n":        "one\r\ntwo\r\n",
		"one\ntwo\n":            "one\r\ntwo\r\n",
		"mixed\r\nbare\n\nlast": "mixed\r\nbare\r\n\r\nlast\r\n",
		"\n":                    "\r\n",
		"no line break":         "no line break\r\n",
		"cr alone\r":            "cr alone\r\r\n",
		".dot\n..dots\r\n.\r\n": ".dot\r\n..dots\r\n.\r\n",
	} {
		var out bytes.Buffer
		writeCRLF(&out, []byte(in))
		if out.String() != want {
			t.Errorf("writeCRLF(%q) = %q, want %q", in, out.String(), want)
		}
		if size := crlfSize([]byte(in)); size != len(want) {
			t.Errorf("counted %d bytes for %q, it is written as %d", size, in, len(want))
		}
	}
}

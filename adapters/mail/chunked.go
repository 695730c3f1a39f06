package mail

import (
	"bytes"
	"errors"
	"strconv"
	"sync"

	gomail "github.com/wneessen/go-mail"
	"github.com/wneessen/go-mail/smtp"
)

// transactChunked sends msg to its one recipient in a single round trip:
// MAIL FROM, RCPT TO, "BDAT <size> LAST" and the content in one write, then
// the three replies. The content goes as it is, with no dot-stuffing.
//
// With one recipient, no refusal can leave a mail delivered to part of its
// envelope: a refused sender or recipient leaves BDAT without a recipient,
// and the server refuses it too. The content has been sent by then, though,
// and a server is trusted to discard a refused chunk only so far: after any
// refusal the connection is dropped rather than reset, so no line of a
// submitter's text can ever be read as a command.
func transactChunked(conn *smtp.Client, commands []string, msg *gomail.Msg) (usable bool, err error) {
	content := contentBuffers.Get().(*bytes.Buffer)
	defer putContentBuffer(content)
	content.Reset()
	if _, err := msg.WriteTo(content); err != nil {
		return true, err
	}
	out := contentBuffers.Get().(*bytes.Buffer)
	defer putContentBuffer(out)
	out.Reset()
	for _, c := range commands {
		out.WriteString(c)
		out.WriteString("\r\n")
	}
	body := content.Bytes()
	size := crlfSize(body)
	out.WriteString("BDAT ")
	out.WriteString(strconv.Itoa(size))
	out.WriteString(" LAST\r\n")
	start := out.Len()
	writeCRLF(out, body)
	if out.Len()-start != size {
		return true, errors.New("smtp: the chunk's size was miscounted")
	}
	// One write: bufio passes a write larger than its buffer straight
	// through, and flushes a smaller one at once.
	w := conn.Text.W
	if _, err := w.Write(out.Bytes()); err != nil {
		return false, err
	}
	if err := w.Flush(); err != nil {
		return false, err
	}
	var first error
	for _, c := range append(commands, "BDAT") {
		if _, _, err := conn.Text.ReadResponse(expectedReply(c)); err != nil {
			broken, err := refusalOf(verb(c), err)
			if broken {
				return false, err
			}
			if first == nil {
				first = err
			}
		}
	}
	return first == nil, first
}

// offers says whether the server announced the extension in its EHLO reply.
func offers(conn *smtp.Client, extension string) bool {
	ok, _ := conn.Extension(extension)
	return ok
}

// crlfSize is how many bytes writeCRLF writes for b.
func crlfSize(b []byte) int {
	n := len(b) + bareLineFeeds(b)
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n += 2
	}
	return n
}

// bareLineFeeds counts the line feeds in b not preceded by a carriage
// return: each becomes CRLF on the wire.
func bareLineFeeds(b []byte) int {
	n := 0
	for i := bytes.IndexByte(b, '\n'); i >= 0; {
		if i == 0 || b[i-1] != '\r' {
			n++
		}
		next := bytes.IndexByte(b[i+1:], '\n')
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return n
}

// writeCRLF writes b with every bare line feed as CRLF, ending it with a
// line break if it has none: RFC 5321 lines end in CRLF, and BDAT, unlike
// DATA, has no dot-writer to mend them.
func writeCRLF(out *bytes.Buffer, b []byte) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out.Write(b)
			out.WriteString("\r\n")
			return
		}
		line := b[:i]
		if len(line) > 0 && line[len(line)-1] == '\r' {
			line = line[:len(line)-1]
		}
		out.Write(line)
		out.WriteString("\r\n")
		b = b[i+1:]
	}
}

// contentBuffers hold rendered mails between sends; one larger than
// maxPooledContent (a mail with attachments) is left to the collector.
var contentBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const maxPooledContent = 64 << 10

func putContentBuffer(b *bytes.Buffer) {
	if b.Cap() <= maxPooledContent {
		contentBuffers.Put(b)
	}
}

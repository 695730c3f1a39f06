package postgres_test

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// commitCutter is a loopback TCP proxy in front of PostgreSQL that can
// break a connection the moment the server has committed: once armed, it
// cuts both directions of the first connection on which it sees the
// server's ReadyForQuery for a commit, and forwards nothing of it. A commit
// is a Sync that ended executed statements (a pipeline's implicit
// transaction commits at that Sync), or, when cutting explicit
// transactions, a COMMIT statement. When the database is to stay away, it
// also refuses every connection from then on, until healed.
type commitCutter struct {
	ln       net.Listener
	target   string
	explicit atomic.Bool // cut at COMMIT statements rather than Syncs
	armed    atomic.Bool
	away     atomic.Bool // refuse connections once cut
	refusing atomic.Bool
	cut      chan struct{}
}

func newCommitCutter(t *testing.T, target string) *commitCutter {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &commitCutter{ln: ln, target: target, cut: make(chan struct{})}
	t.Cleanup(func() { _ = ln.Close() })
	go c.serve()
	return c
}

// arm has the next commit seen cut; stayAway keeps the database away
// afterwards.
func (c *commitCutter) arm(stayAway bool) {
	c.away.Store(stayAway)
	c.armed.Store(true)
}

// heal lets connections through again.
func (c *commitCutter) heal() { c.refusing.Store(false) }

func (c *commitCutter) serve() {
	for {
		client, err := c.ln.Accept()
		if err != nil {
			return
		}
		if c.refusing.Load() {
			_ = client.Close()
			continue
		}
		server, err := net.Dial("tcp", c.target)
		if err != nil {
			_ = client.Close()
			continue
		}
		p := &proxiedConn{cutter: c, client: client, server: server}
		go p.fromClient()
		go p.fromServer()
	}
}

// proxiedConn is one connection through the cutter. expected lists, for
// each Sync or simple query the client sent, whether it ended executed
// statements; the server answers each with one ReadyForQuery, in order.
type proxiedConn struct {
	cutter         *commitCutter
	client, server net.Conn
	mu             sync.Mutex
	expected       []bool
}

func (p *proxiedConn) close() {
	_ = p.client.Close()
	_ = p.server.Close()
}

// fromClient forwards the client's messages: the untyped startup message,
// then typed ones (1 type byte and an int32 length that counts itself).
func (p *proxiedConn) fromClient() {
	defer p.close()
	var head [4]byte
	if _, err := io.ReadFull(p.client, head[:]); err != nil {
		return
	}
	startup := make([]byte, binary.BigEndian.Uint32(head[:])-4)
	if _, err := io.ReadFull(p.client, startup); err != nil || p.write(p.server, head[:], startup) != nil {
		return
	}
	executed := false
	for {
		kind, body, err := readMessage(p.client)
		if err != nil {
			return
		}
		switch kind {
		case 'E':
			executed = true
		case 'S', 'Q':
			commit := executed && kind == 'S'
			if p.cutter.explicit.Load() {
				commit = kind == 'Q' && strings.EqualFold(strings.TrimRight(string(body[4:]), "\x00; "), "commit")
			}
			p.mu.Lock()
			p.expected = append(p.expected, commit)
			p.mu.Unlock()
			executed = false
		}
		if p.write(p.server, []byte{kind}, body) != nil {
			return
		}
	}
}

// fromServer forwards the server's messages, and cuts the connection at
// the ReadyForQuery of an armed commit. The first ReadyForQuery ends the
// startup and answers no Sync.
func (p *proxiedConn) fromServer() {
	defer p.close()
	started := false
	for {
		kind, body, err := readMessage(p.server)
		if err != nil {
			return
		}
		if kind == 'Z' && started {
			p.mu.Lock()
			commit := len(p.expected) > 0 && p.expected[0]
			if len(p.expected) > 0 {
				p.expected = p.expected[1:]
			}
			p.mu.Unlock()
			if commit && p.cutter.armed.CompareAndSwap(true, false) {
				p.cutter.refusing.Store(p.cutter.away.Load())
				close(p.cutter.cut)
				return
			}
		}
		started = started || kind == 'Z'
		if p.write(p.client, []byte{kind}, body) != nil {
			return
		}
	}
}

// readMessage reads one typed message; body keeps its length prefix.
func readMessage(r io.Reader) (byte, []byte, error) {
	var head [5]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(head[1:])
	if n < 4 {
		return 0, nil, errors.New("malformed message length")
	}
	body := make([]byte, n)
	copy(body, head[1:])
	_, err := io.ReadFull(r, body[4:])
	return head[0], body, err
}

func (p *proxiedConn) write(w net.Conn, parts ...[]byte) error {
	for _, b := range parts {
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// Package clamav scans objects with ClamAV's daemon, clamd, speaking its
// protocol itself: a z-command (NUL-terminated) on a fresh connection,
// INSTREAM with the bytes in length-prefixed chunks, and one NUL-terminated
// reply. clamd listens on TCP or on a unix socket; the address is operator
// configuration (FORMD_CLAMD_ADDR).
package clamav

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/formd/formd/application"
)

// Defaults for Options left zero.
const (
	// DefaultDialTimeout bounds connecting: clamd is local or on the
	// private network, so a slow connect means it is down.
	DefaultDialTimeout = 5 * time.Second
	// DefaultIOTimeout bounds each write of a chunk and the wait for the
	// verdict once the stream is sent (a large archive takes clamd a while).
	DefaultIOTimeout = 60 * time.Second
)

// chunkSize is how many bytes go in one INSTREAM chunk; clamd accepts any
// size up to its StreamMaxLength, 64 KiB keeps the buffer small.
const chunkSize = 64 << 10

// maxReply bounds the reply read: a verdict is one short line.
const maxReply = 4 << 10

// ErrScan wraps every failure to get a verdict, so callers can tell "could
// not scan" apart from a verdict. Its messages never hold the object's bytes.
var ErrScan = errors.New("clamav: could not scan")

// Options tune a Scanner; zero values take the defaults.
type Options struct {
	DialTimeout time.Duration
	IOTimeout   time.Duration
}

// Scanner implements application.MalwareScanner against one clamd.
type Scanner struct {
	network, address string
	dialTimeout      time.Duration
	ioTimeout        time.Duration
}

var _ application.MalwareScanner = (*Scanner)(nil)

// ParseAddr reads a clamd address: tcp://host:port, unix:///path, or bare
// host:port or /path. It returns the network ("tcp" or "unix") and address
// for net.Dial. Its errors do not repeat the address (the caller decides
// whether it may be shown).
func ParseAddr(raw string) (network, address string, err error) {
	raw = strings.TrimSpace(raw)
	switch {
	case raw == "":
		return "", "", errors.New("the clamd address is empty")
	case strings.HasPrefix(raw, "unix://"):
		network, address = "unix", strings.TrimPrefix(raw, "unix://")
	case strings.HasPrefix(raw, "tcp://"):
		network, address = "tcp", strings.TrimPrefix(raw, "tcp://")
	case strings.HasPrefix(raw, "/"):
		network, address = "unix", raw
	case strings.Contains(raw, "://"):
		return "", "", errors.New("the scheme must be tcp:// or unix://")
	default:
		network, address = "tcp", raw
	}
	if network == "unix" {
		if !strings.HasPrefix(address, "/") || len(address) < 2 {
			return "", "", errors.New("a unix socket needs an absolute path, such as unix:///run/clamav/clamd.ctl")
		}
		return network, address, nil
	}
	host, port, err := net.SplitHostPort(address)
	if err != nil || host == "" || strings.ContainsAny(host, " /?#@") {
		return "", "", errors.New("a TCP address must be host:port, such as tcp://127.0.0.1:3310")
	}
	if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
		return "", "", errors.New("the port must be a number from 1 to 65535")
	}
	return network, address, nil
}

// New builds a scanner for the clamd at addr (see ParseAddr). It does not
// connect: Ping does.
func New(addr string, o Options) (*Scanner, error) {
	network, address, err := ParseAddr(addr)
	if err != nil {
		return nil, fmt.Errorf("clamav: %w", err)
	}
	s := &Scanner{network: network, address: address, dialTimeout: o.DialTimeout, ioTimeout: o.IOTimeout}
	if s.dialTimeout <= 0 {
		s.dialTimeout = DefaultDialTimeout
	}
	if s.ioTimeout <= 0 {
		s.ioTimeout = DefaultIOTimeout
	}
	return s, nil
}

// Ping asks clamd whether it is up (zPING, answered PONG): a readiness check.
func (s *Scanner) Ping(ctx context.Context) error {
	conn, stop, err := s.dial(ctx)
	if err != nil {
		return fmt.Errorf("%w: PING: %v", ErrScan, err)
	}
	defer stop()
	if err := s.write(ctx, conn, []byte("zPING\x00")); err != nil {
		return fmt.Errorf("%w: PING: %v", ErrScan, s.fail(ctx, "sending PING", err))
	}
	reply, err := s.readReply(ctx, conn)
	if err != nil {
		return fmt.Errorf("%w: PING: %v", ErrScan, s.fail(ctx, "reading the reply", err))
	}
	if reply != "PONG" {
		return fmt.Errorf("%w: clamd at %s answered PING with %q", ErrScan, s.address, reply)
	}
	return nil
}

// Scan streams r to clamd with INSTREAM and returns its verdict. Any
// failure (clamd unreachable, a timeout, ctx done, clamd's size limit or
// another clamd ERROR) is an error wrapping ErrScan: no verdict.
func (s *Scanner) Scan(ctx context.Context, name string, r io.Reader) (application.ScanVerdict, error) {
	conn, stop, err := s.dial(ctx)
	if err != nil {
		return application.ScanVerdict{}, fmt.Errorf("%w %q: %v", ErrScan, name, err)
	}
	defer stop()
	if err := s.stream(ctx, conn, r); err != nil {
		// clamd answers a stream over StreamMaxLength and closes the
		// connection while we still write: its reply says why.
		if ctx.Err() == nil && !errors.Is(err, errRead) {
			if reply, rerr := s.readReply(ctx, conn); rerr == nil && reply != "" {
				return application.ScanVerdict{}, fmt.Errorf("%w %q: clamd: %s", ErrScan, name, reply)
			}
		}
		return application.ScanVerdict{}, fmt.Errorf("%w %q: %v", ErrScan, name, s.fail(ctx, "sending the stream", err))
	}
	reply, err := s.readReply(ctx, conn)
	if err != nil {
		return application.ScanVerdict{}, fmt.Errorf("%w %q: %v", ErrScan, name, s.fail(ctx, "reading the verdict", err))
	}
	v, err := parseVerdict(reply)
	if err != nil {
		return application.ScanVerdict{}, fmt.Errorf("%w %q: %v", ErrScan, name, err)
	}
	return v, nil
}

// errRead marks a failure reading the object (not clamd's doing).
var errRead = errors.New("reading the object")

// stream sends zINSTREAM, the object in chunks and the zero-length end.
func (s *Scanner) stream(ctx context.Context, conn net.Conn, r io.Reader) error {
	if err := s.write(ctx, conn, []byte("zINSTREAM\x00")); err != nil {
		return err
	}
	buf := make([]byte, 4+chunkSize)
	for {
		n, rerr := io.ReadFull(r, buf[4:])
		if n > 0 {
			binary.BigEndian.PutUint32(buf[:4], uint32(n))
			if err := s.write(ctx, conn, buf[:4+n]); err != nil {
				return err
			}
		}
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			break
		}
		if rerr != nil {
			return fmt.Errorf("%w: %v", errRead, rerr)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return s.write(ctx, conn, []byte{0, 0, 0, 0})
}

// dial connects within the dial timeout and ties the connection to ctx:
// when ctx ends, every blocked read or write returns at once. stop closes
// the connection and unties it.
func (s *Scanner) dial(ctx context.Context) (net.Conn, func(), error) {
	d := net.Dialer{Timeout: s.dialTimeout}
	conn, err := d.DialContext(ctx, s.network, s.address)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		return nil, nil, fmt.Errorf("cannot reach clamd at %s: %v", s.address, cause(err))
	}
	untie := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	return conn, func() { untie(); _ = conn.Close() }, nil
}

func (s *Scanner) write(ctx context.Context, conn net.Conn, b []byte) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	_ = conn.SetWriteDeadline(time.Now().Add(s.ioTimeout))
	_, err := conn.Write(b)
	return err
}

// readReply reads one NUL-terminated reply (or up to EOF), bounded.
func (s *Scanner) readReply(ctx context.Context, conn net.Conn) (string, error) {
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	_ = conn.SetReadDeadline(time.Now().Add(s.ioTimeout))
	var out []byte
	buf := make([]byte, 512)
	for len(out) < maxReply {
		n, err := conn.Read(buf)
		out = append(out, buf[:n]...)
		if i := bytes.IndexByte(out, 0); i >= 0 {
			return strings.TrimSpace(string(out[:i])), nil
		}
		if err == io.EOF && len(out) > 0 {
			return strings.TrimSpace(string(out)), nil
		}
		if err != nil {
			return "", err
		}
	}
	return "", fmt.Errorf("the reply is longer than %d bytes", maxReply)
}

// fail explains a connection failure: ctx's end when that caused it.
func (s *Scanner) fail(ctx context.Context, doing string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%s: %v", doing, ctx.Err())
	}
	if errors.Is(err, errRead) {
		return err
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("%s: clamd at %s did not answer within %s", doing, s.address, s.ioTimeout)
	}
	return fmt.Errorf("%s: clamd at %s: %v", doing, s.address, cause(err))
}

// parseVerdict reads an INSTREAM reply: "stream: OK", "stream: <name>
// FOUND", or "<reason> ERROR".
func parseVerdict(reply string) (application.ScanVerdict, error) {
	body := strings.TrimPrefix(reply, "stream: ")
	switch {
	case body == "OK":
		return application.ScanClean, nil
	case strings.HasSuffix(body, " FOUND"):
		sig := strings.TrimSpace(strings.TrimSuffix(body, " FOUND"))
		if sig == "" {
			return application.ScanVerdict{}, errors.New("clamd found something it did not name")
		}
		return application.ScanInfected(sig), nil
	case strings.HasSuffix(body, "ERROR"):
		return application.ScanVerdict{}, fmt.Errorf("clamd: %s", body)
	}
	return application.ScanVerdict{}, fmt.Errorf("clamd answered something unexpected: %q", reply)
}

// cause drops net.OpError's repetition of the address.
func cause(err error) error {
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		return oe.Err
	}
	return err
}

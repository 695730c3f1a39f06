package clamav_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/formd/formd/adapters/clamav"
	"github.com/formd/formd/application"
)

func TestScanAgainstRealClamd(t *testing.T) {
	c := startClamd(t)
	for _, tr := range []struct{ name, addr string }{{"tcp", c.TCP}, {"unix socket", c.Unix}} {
		t.Run(tr.name, func(t *testing.T) {
			s, err := clamav.New(tr.addr, clamav.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()

			t.Run("EICAR is infected, with the signature's name", func(t *testing.T) {
				v, err := s.Scan(ctx, "eicar.com", strings.NewReader(eicar))
				if err != nil {
					t.Fatalf("scan: %v", err)
				}
				t.Logf("clamd found %q", v.Signature)
				if !v.Infected || !strings.HasPrefix(v.Signature, "Eicar-Test-Signature") {
					t.Fatalf("verdict = %+v, want infected with Eicar-Test-Signature", v)
				}
			})

			t.Run("a clean file is clean", func(t *testing.T) {
				// Larger than one chunk, so several chunks are sent.
				clean := bytes.Repeat([]byte("a harmless line of a report\n"), 10_000)
				v, err := s.Scan(ctx, "report.txt", bytes.NewReader(clean))
				if err != nil {
					t.Fatalf("scan: %v", err)
				}
				if v != application.ScanClean {
					t.Fatalf("verdict = %+v, want clean", v)
				}
			})

			t.Run("an empty file is clean", func(t *testing.T) {
				v, err := s.Scan(ctx, "empty.txt", strings.NewReader(""))
				if err != nil || v != application.ScanClean {
					t.Fatalf("verdict = %+v, %v; want clean", v, err)
				}
			})

			t.Run("a stream over StreamMaxLength is an error, not a verdict", func(t *testing.T) {
				big := bytes.Repeat([]byte{'x'}, 3*streamMaxLength)
				v, err := s.Scan(ctx, "big.bin", bytes.NewReader(big))
				if err == nil {
					t.Fatalf("verdict = %+v, want an error", v)
				}
				if !errors.Is(err, clamav.ErrScan) {
					t.Fatalf("error %v does not wrap ErrScan", err)
				}
				if strings.Contains(err.Error(), "xxxx") {
					t.Fatalf("the error holds the file's bytes: %v", err)
				}
				t.Logf("over the limit: %v", err)
			})

			t.Run("Ping answers", func(t *testing.T) {
				if err := s.Ping(ctx); err != nil {
					t.Fatal(err)
				}
			})
		})
	}
}

func TestScanOfAnUnreachableClamdIsAnError(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there any more
	for _, a := range []string{"tcp://" + addr, "unix://" + filepath.Join(t.TempDir(), "none.sock")} {
		s, err := clamav.New(a, clamav.Options{DialTimeout: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		v, err := s.Scan(context.Background(), "x.txt", strings.NewReader(eicar))
		if err == nil || !errors.Is(err, clamav.ErrScan) {
			t.Fatalf("%s: verdict %+v, error %v; want an ErrScan error", a, v, err)
		}
		if strings.Contains(err.Error(), "EICAR") {
			t.Fatalf("the error holds the file's bytes: %v", err)
		}
		t.Logf("unreachable: %v", err)
		if err := s.Ping(context.Background()); err == nil {
			t.Fatalf("%s: Ping succeeded", a)
		}
	}
}

// A clamd that accepts and never answers: the caller's ctx ends the scan.
func TestScanEndsWithItsContext(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	streamed := make(chan struct{}, 1)
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				// Read the whole stream (up to its zero-length end), then
				// say so and stay silent: the scan waits for a verdict.
				want := len("zINSTREAM\x00") + 4 + len("hello") + 4
				buf := make([]byte, want)
				if _, err := io.ReadFull(conn, buf); err == nil {
					streamed <- struct{}{}
				}
				_, _ = io.Copy(io.Discard, conn)
			}()
		}
	}()
	s, err := clamav.New("tcp://"+l.Addr().String(), clamav.Options{IOTimeout: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := s.Scan(ctx, "x.txt", strings.NewReader("hello"))
		done <- err
	}()
	<-streamed
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, clamav.ErrScan) {
			t.Fatalf("error %v does not wrap ErrScan", err)
		}
	case <-time.After(10 * time.Second): // a hang, not a speed measure
		t.Fatal("Scan did not return after its context was cancelled")
	}
}

// An endless reader stops when ctx ends, too (the object, not clamd, is slow).
func TestScanOfASlowObjectEndsWithItsContext(t *testing.T) {
	c := startClampless(t)
	s, _ := clamav.New(c, clamav.Options{IOTimeout: time.Hour})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := s.Scan(ctx, "slow.bin", blockingReader{ctx})
	if !errors.Is(err, clamav.ErrScan) {
		t.Fatalf("error %v does not wrap ErrScan", err)
	}
}

type blockingReader struct{ ctx context.Context }

func (b blockingReader) Read([]byte) (int, error) {
	<-b.ctx.Done()
	return 0, b.ctx.Err()
}

// startClampless is a listener that reads and never answers.
func startClampless(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			go func() { _, _ = io.Copy(io.Discard, conn); conn.Close() }()
		}
	}()
	return "tcp://" + l.Addr().String()
}

func TestParseAddr(t *testing.T) {
	for _, tc := range []struct{ raw, network, address string }{
		{"tcp://127.0.0.1:3310", "tcp", "127.0.0.1:3310"},
		{"clamd.internal:3310", "tcp", "clamd.internal:3310"},
		{"[::1]:3310", "tcp", "[::1]:3310"},
		{"unix:///run/clamav/clamd.ctl", "unix", "/run/clamav/clamd.ctl"},
		{"/run/clamav/clamd.ctl", "unix", "/run/clamav/clamd.ctl"},
	} {
		n, a, err := clamav.ParseAddr(tc.raw)
		if err != nil || n != tc.network || a != tc.address {
			t.Errorf("ParseAddr(%q) = %q, %q, %v; want %q, %q", tc.raw, n, a, err, tc.network, tc.address)
		}
	}
	for _, bad := range []string{"", "http://x:3310", "unix://relative.sock", "unix://", "clamd", "tcp://:3310", "tcp://h:0", "tcp://h:99999", "tcp://h:port"} {
		if _, _, err := clamav.ParseAddr(bad); err == nil {
			t.Errorf("ParseAddr(%q) accepted it", bad)
		}
	}
}

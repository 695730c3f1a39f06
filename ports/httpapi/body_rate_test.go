package httpapi

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
)

// bodyRateServer answers with the status of reading the whole body, as the
// decoders do (a 408 when the body came too slowly).
func bodyRateServer(t *testing.T, bytesPerSecond int64, window, writeTimeout time.Duration) string {
	t.Helper()
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	r.POST("/", minBodyRate(bytesPerSecond, window), func(c *gin.Context) {
		_, err := readAll(c.Request.Body)
		if de, ok := err.(*decodeError); ok {
			c.String(de.status, de.message)
			return
		}
		c.String(http.StatusOK, "read")
	})
	srv := httptest.NewUnstartedServer(r)
	// The server's own read timeout would end a stalled body too: only the
	// minimum rate may end it here, well before.
	srv.Config.ReadTimeout = time.Minute
	srv.Config.WriteTimeout = writeTimeout
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}

// send writes a request whose body arrives as chunks, each after pause,
// and returns the status line it got. Unless complete, the body's last byte
// never comes.
func send(t *testing.T, addr string, chunks int, chunk string, pause time.Duration, complete bool) string {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	length := chunks * len(chunk)
	if !complete {
		length++
	}
	fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n", length)
	go func() {
		for range chunks {
			time.Sleep(pause)
			if _, err := io.WriteString(conn, chunk); err != nil {
				return
			}
		}
	}()
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	return strings.TrimSpace(line)
}

// A body that trickles is cut off one window after it fell below the rate,
// with 408; while it keeps the rate, it is read however long it takes.
func TestABodyBelowTheMinimumRateIsCutOff(t *testing.T) {
	addr := bodyRateServer(t, 1000, 300*time.Millisecond, time.Minute) // 300 bytes a window
	// Without the rate, only the server's one-minute read timeout would
	// answer, long after send stops waiting.
	if got := send(t, addr, 1, "x", 0, false); !strings.Contains(got, "408") {
		t.Fatalf("a stalled body: %q", got)
	}

	// 400 bytes every 200 ms keeps the rate for ten windows (2 s, beyond
	// any single window), then the body stalls.
	start := time.Now()
	if got := send(t, addr, 10, strings.Repeat("y", 400), 200*time.Millisecond, false); !strings.Contains(got, "408") {
		t.Fatalf("a body that kept the rate, then stalled: %q", got)
	}
	if read := time.Since(start); read < 2*time.Second {
		t.Fatalf("a body that kept the rate was cut off after %v", read)
	}
}

// The server's write timeout counts from a request's headers: a body that
// keeps the rate for longer than it still gets its answer.
func TestAnUploadLongerThanTheWriteTimeoutIsAnswered(t *testing.T) {
	addr := bodyRateServer(t, 1000, 300*time.Millisecond, 500*time.Millisecond)
	if got := send(t, addr, 8, strings.Repeat("z", 400), 200*time.Millisecond, true); !strings.Contains(got, "200") {
		t.Fatalf("a steady body of 1.6 s under a 0.5 s write timeout: %q", got)
	}
}

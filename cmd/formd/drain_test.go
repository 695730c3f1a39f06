package main

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/formd/formd/ports/httpapi"
)

// drainingServer serves ok on a loopback listener as serve does, and a raw
// keep-alive connection to it that has had one answer.
func drainingServer(t *testing.T) (*http.Server, net.Listener, *connections, *closingWhileDraining, net.Conn, *bufio.Reader) {
	t.Helper()
	bound, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := &onceListener{Listener: bound}
	conns := newConnections()
	handler := &closingWhileDraining{drain: httpapi.NewDrain(),
		next: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })}
	srv := &http.Server{Handler: handler, ConnState: conns.track, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	r := bufio.NewReader(conn)
	if resp := get(t, conn, r); resp.Close {
		t.Fatal("the first answer closes the connection; want keep-alive")
	}
	return srv, ln, conns, handler, conn, r
}

func get(t *testing.T, conn net.Conn, r *bufio.Reader) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, "http://formd.test/", nil)
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	if err := req.Write(conn); err != nil {
		t.Fatalf("write: %v", err)
	}
	resp, err := http.ReadResponse(r, req)
	if err != nil {
		t.Fatalf("a request on a keep-alive connection during the drain: %v", err)
	}
	_ = resp.Body.Close()
	return resp
}

func TestDrainAnswersARequestOnAConnectionIdleAtTheSignalAndTellsItToClose(t *testing.T) {
	srv, ln, conns, handler, conn, r := drainingServer(t)
	handler.drain.Start()
	drained := make(chan httpDrain, 1)
	go func() { drained <- drainHTTP(context.Background(), srv, ln, conns, handler, 10*time.Second) }()

	time.Sleep(drainQuiet / 5) // the client pauses between its requests
	if resp := get(t, conn, r); resp.StatusCode != http.StatusOK || !resp.Close {
		t.Errorf("answer during the drain: %d, close %v; want 200 with Connection: close", resp.StatusCode, resp.Close)
	}
	if _, err := net.Dial("tcp", ln.Addr().String()); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("a new connection during the drain: %v; want refused", err)
	}
	select {
	case d := <-drained:
		if d.timedOut || d.open != 1 {
			t.Errorf("drain %+v; want one connection, drained in time", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the drain did not end once its one connection closed")
	}
}

func TestDrainClosesConnectionsLeftIdleOnceNoRequestIsInFlight(t *testing.T) {
	srv, ln, conns, handler, conn, _ := drainingServer(t)
	handler.drain.Start()
	began := time.Now()
	d := drainHTTP(context.Background(), srv, ln, conns, handler, 10*time.Second)
	took := time.Since(began)
	if d.timedOut || took < drainQuiet || took > drainQuiet+2*time.Second {
		t.Errorf("drain %+v took %s; want it to close the idle connection after %s, long before the idle wait", d, took, drainQuiet)
	}
	_ = conn.SetReadDeadline(time.Now().Add(2 * time.Second))
	if _, err := conn.Read(make([]byte, 1)); err == nil {
		t.Error("the idle connection is still open after the drain")
	}
}

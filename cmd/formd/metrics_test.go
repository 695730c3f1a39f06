package main

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestMetricsAreServedOnTheirOwnListener(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if _, err := serveMetrics(addr, http.NotFoundHandler(), slog.New(slog.DiscardHandler)); err == nil ||
		!strings.Contains(err.Error(), "FORMD_METRICS_ADDR") {
		t.Errorf("an address in use: err %v, want one naming FORMD_METRICS_ADDR", err)
	}
	ln.Close()

	metrics := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "formd_up 1\n") })
	stop, err := serveMetrics(addr, metrics, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Timeout: 5 * time.Second}
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := client.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if code, body := get("/metrics"); code != http.StatusOK || body != "formd_up 1\n" {
		t.Errorf("GET /metrics: %d %q", code, body)
	}
	if code, _ := get("/debug/pprof/"); code != http.StatusNotFound {
		t.Errorf("GET /debug/pprof/ on the metrics listener: %d, want 404", code)
	}
	stop()
	client.CloseIdleConnections()
	if _, err := client.Get("http://" + addr + "/metrics"); err == nil {
		t.Error("the metrics listener still answers after stop")
	}
}

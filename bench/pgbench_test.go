package main

import (
	"slices"
	"testing"
	"time"
)

// A pgbench -l log line carries the latency in µs in its third field; a
// skipped transaction (rate-limited runs with a latency limit) and a torn
// line are left out.
func TestPgbenchLogLatenciesReadsTheThirdFieldInMicroseconds(t *testing.T) {
	raw := []byte("0 0 1532 0 1764000000 123456 210\n" +
		"1 0 48210 0 1764000000 124000 15000\n" +
		"2 0 skipped 0 1764000000 125000 0\n" +
		"3 0 900\n" +
		"\n")
	got := pgbenchLogLatencies(raw)
	if want := (Histogram{1532 * time.Microsecond, 48210 * time.Microsecond}); !slices.Equal(got, want) {
		t.Errorf("latencies = %v, want %v", got, want)
	}
}

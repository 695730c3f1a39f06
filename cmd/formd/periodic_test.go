package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"
)

// handTicker ticks when the test says so.
type handTicker struct {
	c       chan time.Time
	stopped chan struct{}
}

func (t *handTicker) C() <-chan time.Time { return t.c }
func (t *handTicker) Stop()               { close(t.stopped) }

// syncBuffer is a log sink the job's goroutine and the test may share.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// lines are the logged records, decoded.
func (b *syncBuffer) lines(t *testing.T) []map[string]any {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []map[string]any
	for _, l := range bytes.Split(bytes.TrimSpace(b.buf.Bytes()), []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatal(err)
		}
		delete(m, "time")
		out = append(out, m)
	}
	return out
}

// runnerUnderTest runs jobs with a hand ticker, logging into the returned buffer.
func runnerUnderTest(hand *handTicker, every *time.Duration) (periodicRunner, *syncBuffer) {
	logs := &syncBuffer{}
	log := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	return periodicRunner{log: log, newTicker: func(d time.Duration) ticker { *every = d; return hand }}, logs
}

// within fails the test rather than hang it when ch never delivers.
func within[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("%s never happened", what)
		panic("unreachable")
	}
}

func TestPeriodicJobRunsAtOnceThenOnEveryTickUntilStopped(t *testing.T) {
	ticker := &handTicker{c: make(chan time.Time), stopped: make(chan struct{})}
	var every time.Duration
	r, logs := runnerUnderTest(ticker, &every)
	ran := make(chan string)
	step := func(name string, n int, err error) task {
		return task{run: func(context.Context) (int, error) { ran <- name; return n, err },
			failed: name + " failed", done: name + " done", level: slog.LevelInfo, attrs: []any{"topic", name}}
	}
	ctx, cancel := context.WithCancel(context.Background())
	wait := r.start(ctx, periodicJob{name: "test", every: time.Minute, tasks: []task{
		step("first", 2, nil), step("second", 0, errors.New("database away")), step("third", 0, nil),
	}})
	for round := range 3 {
		for _, want := range []string{"first", "second", "third"} {
			if got := within(t, ran, want); got != want {
				t.Fatalf("round %d ran %s, want %s: tasks run in order", round, got, want)
			}
		}
		if round < 2 {
			ticker.c <- time.Now() // taken only once the round is over: the job waits on it
		}
	}
	cancel()
	stopped := make(chan struct{})
	go func() { wait(); close(stopped) }()
	within(t, stopped, "the job stopping with its context")
	within(t, ticker.stopped, "the ticker stopping")
	if every != time.Minute {
		t.Errorf("ticker interval %s, want the job's 1m", every)
	}
	got := logs.lines(t)
	if len(got) != 6 {
		t.Fatalf("logged %v; want a count and a failure per round", got)
	}
	for i := 0; i < 6; i += 2 {
		done, failed := got[i], got[i+1]
		if done["msg"] != "first done" || done["level"] != "INFO" || done["count"] != 2.0 || done["topic"] != "first" {
			t.Errorf("count line %v", done)
		}
		if failed["msg"] != "second failed" || failed["level"] != "WARN" || failed["err"] != "database away" || failed["topic"] != "second" {
			t.Errorf("failure line %v", failed)
		}
	}
}

func TestPeriodicJobDoesNotLogTheFailuresOfItsStop(t *testing.T) {
	ticker := &handTicker{c: make(chan time.Time), stopped: make(chan struct{})}
	var every time.Duration
	r, logs := runnerUnderTest(ticker, &every)
	ctx, cancel := context.WithCancel(context.Background())
	ranAfter := false
	r.run(ctx, periodicJob{name: "test", every: time.Hour, tasks: []task{
		{run: func(context.Context) (int, error) { cancel(); return 0, context.Canceled }, failed: "stopping failed"},
		{run: func(context.Context) (int, error) { ranAfter = true; return 0, nil }, failed: "next failed"},
	}})
	if got := logs.lines(t); len(got) != 0 {
		t.Errorf("logged %v while stopping", got)
	}
	if !ranAfter {
		t.Error("a failed task must not keep the job's next task from running")
	}
}

func TestPeriodicJobLogsNoZeroCountAndNoCountWithoutAMessage(t *testing.T) {
	ticker := &handTicker{c: make(chan time.Time), stopped: make(chan struct{})}
	var every time.Duration
	r, logs := runnerUnderTest(ticker, &every)
	ctx, cancel := context.WithCancel(context.Background())
	r.run(ctx, periodicJob{name: "test", every: time.Hour, tasks: []task{
		{run: func(context.Context) (int, error) { return 0, nil }, failed: "zero failed", done: "zero done", level: slog.LevelInfo},
		{run: func(context.Context) (int, error) { cancel(); return 5, nil }, failed: "silent failed"},
	}})
	if got := logs.lines(t); len(got) != 0 {
		t.Errorf("logged %v", got)
	}
}

package events

import (
	"context"
	"testing"
	"time"
)

// t0 is an arbitrary start for the samples' clock.
var t0 = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

// inProgress brings l's count to n.
func inProgress(l *IntakeLoad, n int64) {
	for l.InProgress() < n {
		l.Begin()
	}
	for l.InProgress() > n {
		l.End()
	}
}

func TestSaturationIsTheAverageInProgressAtTheThreshold(t *testing.T) {
	l := NewIntakeLoad(32)
	inProgress(l, 31)
	if l.saturated(t0) {
		t.Fatal("saturated at 31 in progress; the threshold is 32")
	}
	inProgress(l, 32)
	// 1 ms after the count reached the threshold, the average has barely moved.
	if l.saturated(t0.Add(time.Millisecond)) {
		t.Fatal("saturated 1 ms after the count reached the threshold; the average had not")
	}
	for at := t0; at.Before(t0.Add(2 * time.Second)); at = at.Add(10 * time.Millisecond) {
		inProgress(l, 40)
		l.saturated(at)
	}
	if !l.saturated(t0.Add(2 * time.Second)) {
		t.Fatal("not saturated after two seconds at 40 in progress")
	}
}

// The count swings with every group commit: a commit answers a whole group
// at once. Saturation follows the average, not each swing.
func TestSaturationFollowsTheAverageThroughTheSwingsOfGroupCommits(t *testing.T) {
	l := NewIntakeLoad(32)
	at := t0
	for i := range 1000 { // 64 clients: all in progress, then a group of 40 answered
		inProgress(l, []int64{64, 24}[i%2])
		l.saturated(at)
		at = at.Add(2 * time.Millisecond)
	}
	inProgress(l, 24)
	if !l.saturated(at) {
		t.Fatal("not saturated while the count swung between 24 and 64 (an average of 44)")
	}
	// A stall of the database that piles submissions up for 100 ms is not
	// saturation.
	l = NewIntakeLoad(32)
	at = t0
	for range 1000 {
		inProgress(l, 8)
		l.saturated(at)
		at = at.Add(2 * time.Millisecond)
	}
	for range 50 {
		inProgress(l, 100)
		if l.saturated(at) {
			t.Fatal("saturated during a 100 ms pile-up from an average of 8")
		}
		at = at.Add(2 * time.Millisecond)
	}
}

func TestASampleAfterAPauseIsTheAverageAndAnEarlierClockReadingCountsAsNow(t *testing.T) {
	l := NewIntakeLoad(32)
	inProgress(l, 0)
	l.saturated(t0)
	inProgress(l, 40)
	if !l.saturated(t0.Add(time.Minute)) {
		t.Fatal("a sample a minute later did not stand for the average")
	}
	before := l.average
	inProgress(l, 0)
	l.saturated(t0.Add(time.Minute - time.Second))
	if l.average != before || !l.sampled.Equal(t0.Add(time.Minute)) {
		t.Fatalf("a sample read before the last one moved the average from %v to %v, or its time to %v",
			before, l.average, l.sampled)
	}
}

func TestNoThresholdNeverGivesWay(t *testing.T) {
	l := NewIntakeLoad(0)
	inProgress(l, 1000)
	l.GiveWay(context.Background(), time.Hour)
	if l.saturated(t0) || l.GaveWay() != 0 {
		t.Fatal("gave way with the threshold off")
	}
	l.GiveWayAt(100)
	l.GiveWay(context.Background(), time.Millisecond)
	if l.GaveWay() != 1 {
		t.Fatalf("did not give way (counted %d) to 1,000 in progress once the threshold was set to 100", l.GaveWay())
	}
}

func TestGivingWayEndsAtItsBoundOrWithItsContext(t *testing.T) {
	l := NewIntakeLoad(1)
	inProgress(l, 5)
	l.GiveWay(context.Background(), 10*time.Millisecond)
	if l.GaveWay() != 1 {
		t.Fatal("did not give way while saturated")
	}
	ctx, cancel := context.WithCancel(context.Background())
	gave := make(chan struct{})
	go func() {
		l.GiveWay(ctx, time.Hour)
		close(gave)
	}()
	cancel()
	select {
	case <-gave:
		if l.GaveWay() != 2 {
			t.Fatal("counted no wait while saturated")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("giving way went on after its context ended")
	}
}

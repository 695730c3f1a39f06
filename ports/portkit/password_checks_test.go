package portkit

import (
	"context"
	"testing"
	"time"
)

func TestPasswordCheckSlotsBoundConcurrency(t *testing.T) {
	slots := NewPasswordCheckSlots(2)
	ctx := context.Background()
	if !slots.Acquire(ctx, time.Millisecond) || !slots.Acquire(ctx, time.Millisecond) {
		t.Fatal("two slots must be free")
	}
	if slots.Acquire(ctx, 20*time.Millisecond) {
		t.Fatal("a third check ran while two were running")
	}
	released := make(chan struct{})
	go func() {
		time.Sleep(10 * time.Millisecond)
		slots.Release()
		close(released)
	}()
	if !slots.Acquire(ctx, 5*time.Second) {
		t.Fatal("a waiting check must get the slot another gives back")
	}
	<-released
}

func TestAFreeSlotIsTakenHoweverShortTheWait(t *testing.T) {
	slots := NewPasswordCheckSlots(1)
	for i := 0; i < 200; i++ {
		if !slots.Acquire(context.Background(), 0) {
			t.Fatalf("attempt %d: a free slot was refused", i)
		}
		slots.Release()
	}
}

func TestAWaitingCheckGivesUpWithItsRequest(t *testing.T) {
	slots := NewPasswordCheckSlots(1)
	ctx, cancel := context.WithCancel(context.Background())
	slots.Acquire(ctx, time.Millisecond)
	cancel()
	if slots.Acquire(ctx, 5*time.Second) {
		t.Fatal("a check whose request is gone took a slot")
	}
}

package application

import (
	"context"
	"errors"
	"testing"
	"time"
)

// archiveBacklog is an ArchivedPayloads holding left expired payloads.
type archiveBacklog struct {
	left, calls int
	failOn      int // the call that fails; 0: none
}

func (b *archiveBacklog) ShredArchivedPayloads(_ context.Context, _ time.Time, limit int) (int, error) {
	b.calls++
	if b.calls == b.failOn {
		return 0, errors.New("database away")
	}
	n := min(limit, b.left)
	b.left -= n
	return n, nil
}

func TestTheArchiveSweepShredsInBatchesUntilNoneIsLeft(t *testing.T) {
	backlog := &archiveBacklog{left: 2*archiveShredBatch + 7}
	n, err := NewShredArchivedPayloadsHandler(backlog, fixedClock{}).Handle(context.Background())
	if err != nil || n != 2*archiveShredBatch+7 || backlog.left != 0 || backlog.calls != 3 {
		t.Fatalf("shredded %d in %d calls (%v), %d left", n, backlog.calls, err, backlog.left)
	}
	backlog = &archiveBacklog{left: 3 * archiveShredBatch, failOn: 2}
	n, err = NewShredArchivedPayloadsHandler(backlog, fixedClock{}).Handle(context.Background())
	if err == nil || n != archiveShredBatch || backlog.calls != 2 {
		t.Fatalf("a failed batch stops the sweep until its next run: %d shredded in %d calls, %v", n, backlog.calls, err)
	}
}

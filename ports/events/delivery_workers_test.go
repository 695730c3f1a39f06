package events

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/delivery"
)

// rounds stands in for the application's delivery steps, so these tests see
// what the pipeline asks of them: how often it claims and how much, which
// deliveries it attempts, and how it groups the records.
type rounds struct {
	mu        sync.Mutex
	queue     []string // due, not yet claimed
	claims    []int    // rows returned by each claim
	claimErr  error
	attempted []string
	records   [][]string
	out, most int             // claimed and not yet recorded; its highest value
	attempt   func(id string) // called inside Attempt, outside the lock
	record    func(n int)     // called inside Record, outside the lock, with the call's number
	// recordErr, when set, is the outcome of the Record call with that
	// number; a failed record records nothing.
	recordErr func(n int) error
	// freeAtRecord is the hand-off's free slots at each Record call, with
	// how many were claimed and not yet recorded then.
	freeAtRecord [][2]int
	// refuse names a delivery whose outcome every record refuses, with
	// refuseErr, as a database would an outcome at fault.
	refuse     string
	refuseErr  error
	recordings int
	handOff    *DeliveryHandOff
}

func newRounds(n int) *rounds {
	return &rounds{queue: ids(n), handOff: NewDeliveryHandOff(DefaultGiveWayAt)}
}

func (r *rounds) Claim(_ context.Context, limit int) ([]application.DueDelivery, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.claimErr != nil {
		r.claims = append(r.claims, 0)
		return nil, r.claimErr
	}
	k := min(limit, len(r.queue))
	var out []application.DueDelivery
	for _, id := range r.queue[:k] {
		out = append(out, application.DueDelivery{ClaimedDelivery: application.ClaimedDelivery{
			Queued: delivery.Queued{DeliveryID: id, Kind: delivery.KindEmail}}})
	}
	r.queue = r.queue[k:]
	r.claims = append(r.claims, k)
	r.out += k
	r.most = max(r.most, r.out)
	return out, nil
}

func (r *rounds) Attempt(_ context.Context, d application.DueDelivery) (application.Attempt, error) {
	if r.attempt != nil {
		r.attempt(d.DeliveryID)
	}
	r.mu.Lock()
	r.attempted = append(r.attempted, d.DeliveryID)
	r.mu.Unlock()
	return application.Attempt{Queued: d.Queued, Number: 1}, nil
}

func (r *rounds) Record(_ context.Context, attempts []application.Attempt) error {
	r.mu.Lock()
	r.recordings++
	n := r.recordings
	r.mu.Unlock()
	if r.record != nil {
		r.record(n)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.freeAtRecord = append(r.freeAtRecord, [2]int{r.handOff.Free(), r.out})
	if r.recordErr != nil {
		if err := r.recordErr(n); err != nil {
			return err
		}
	}
	for _, a := range attempts {
		if r.refuse != "" && a.Queued.DeliveryID == r.refuse {
			return r.refuseErr
		}
	}
	var ids []string
	for _, a := range attempts {
		ids = append(ids, a.Queued.DeliveryID)
	}
	r.records = append(r.records, ids)
	r.out -= len(attempts)
	return nil
}

func (r *rounds) recorded() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.recordedLocked()
}

// wakes is a DeliveriesDue that the test wakes by hand.
type wakes struct {
	mu sync.Mutex
	ch chan struct{}
}

func newWakes() *wakes { return &wakes{ch: make(chan struct{})} }

func (w *wakes) due() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.ch
}

func (w *wakes) wake() {
	w.mu.Lock()
	close(w.ch)
	w.ch = make(chan struct{})
	w.mu.Unlock()
}

func quietLog() *slog.Logger { return slog.New(slog.DiscardHandler) }

// run starts the pipeline and returns a stop that cancels it and waits for
// it to return.
func run(t *testing.T, r *rounds, w *wakes, n int) (stop func()) {
	t.Helper()
	// Only the test's wake-ups make the pipeline look again.
	before := idleWait
	idleWait = time.Hour
	t.Cleanup(func() { idleWait = before })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		runDeliveryPipeline(ctx, r, r.handOff, w.due, n, time.Second, quietLog())
	}()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("the pipeline did not return after its context ended")
		}
	}
	t.Cleanup(stop)
	return stop
}

// ids names n deliveries d00, d01, …
func ids(n int) []string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf("d%02d", i))
	}
	return out
}

// A wake-up makes one claim however many attempts the process makes at
// once. The workers this replaced each claimed on every wake-up: the first
// took what was due and the others ran empty claims.
func TestAWakeUpMakesOneClaimWhateverTheNumberOfSenders(t *testing.T) {
	r, w := newRounds(10), newWakes()
	run(t, r, w, 4)
	waitFor(t, "ten deliveries recorded", func() bool { return len(r.recorded()) == 10 })
	r.mu.Lock()
	r.queue = append(r.queue, "d10", "d11", "d12")
	r.mu.Unlock()
	w.wake()
	waitFor(t, "three more recorded", func() bool { return len(r.recorded()) == 13 })
	time.Sleep(50 * time.Millisecond) // room for a stray claim to show
	r.mu.Lock()
	defer r.mu.Unlock()
	if !slices.Equal(r.claims, []int{10, 3}) {
		t.Fatalf("%d claims returned %v rows; want one claim of 10 at the start and one of 3 after the wake-up",
			len(r.claims), r.claims[:min(len(r.claims), 8)])
	}
}

// Outcomes that finish while the recorder is recording wait and are
// recorded together in the next transaction, not one each.
func TestOutcomesThatFinishDuringARecordAreRecordedTogether(t *testing.T) {
	r, w := newRounds(8), newWakes()
	recording, release := make(chan struct{}), make(chan struct{})
	r.attempt = func(id string) {
		if id != "d00" { // the others finish once the first outcome is being recorded
			<-recording
		}
	}
	r.record = func(n int) {
		if n == 1 {
			close(recording)
			<-release
		}
	}
	run(t, r, w, 8)
	waitFor(t, "every delivery attempted", func() bool { r.mu.Lock(); defer r.mu.Unlock(); return len(r.attempted) == 8 })
	time.Sleep(100 * time.Millisecond) // the senders hand their outcomes over
	close(release)
	waitFor(t, "every delivery recorded", func() bool { return len(r.recorded()) == 8 })
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.records) != 2 || len(r.records[0]) != 1 || len(r.records[1]) != 7 {
		t.Fatalf("records %v; want the first outcome alone and the seven that finished meanwhile in one", r.records)
	}
	if !slices.Equal(r.recordedLocked(), ids(8)) {
		t.Fatalf("recorded %v, want each delivery once", r.recordedLocked())
	}
}

// recordedLocked is recorded for a caller that holds r.mu.
func (r *rounds) recordedLocked() []string {
	var all []string
	for _, ids := range r.records {
		all = append(all, ids...)
	}
	slices.Sort(all)
	return all
}

// A process holds no more claimed and unrecorded deliveries than its senders
// have room for (16 each), however long the backlog: the rest stay for other
// processes to claim.
func TestTheClaimerHoldsNoMoreThanTheSendersHaveRoomFor(t *testing.T) {
	r, w := newRounds(70), newWakes()
	r.record = func(int) { time.Sleep(time.Millisecond) }
	run(t, r, w, 2)
	waitFor(t, "the backlog delivered", func() bool { return len(r.recorded()) == 70 })
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.most > 2*claimPerSender {
		t.Fatalf("held %d claimed deliveries at once; room is %d", r.most, 2*claimPerSender)
	}
	if r.claims[0] != 2*claimPerSender {
		t.Fatalf("first claim took %d; want the whole room, %d", r.claims[0], 2*claimPerSender)
	}
	if !slices.Equal(r.recordedLocked(), ids(70)) {
		t.Fatalf("recorded %v, want each of the 70 once", r.recordedLocked())
	}
}

// At shutdown an attempt under way finishes and is recorded (the message
// was sent: dropping its record would send it again), and nothing claimed
// but not yet started is attempted.
func TestShuttingDownFinishesAndRecordsTheAttemptsUnderWay(t *testing.T) {
	r, w := newRounds(5), newWakes()
	started, release := make(chan struct{}), make(chan struct{})
	r.attempt = func(id string) {
		if id == "d00" {
			close(started)
			<-release
		}
	}
	stop := run(t, r, w, 1)
	<-started
	go func() {
		time.Sleep(20 * time.Millisecond)
		close(release)
	}()
	stop()
	r.mu.Lock()
	defer r.mu.Unlock()
	if !slices.Equal(r.attempted, []string{"d00"}) {
		t.Fatalf("attempted %v after shutdown began; want only d00, the one under way", r.attempted)
	}
	if !slices.Equal(r.recordedLocked(), []string{"d00"}) {
		t.Fatalf("recorded %v; want d00, whose attempt was under way", r.recordedLocked())
	}
}

// A failing claim (the database is away) is tried again after idleWait or a
// wake-up, not in a tight loop.
// (run sets idleWait to an hour, so only the wake-up makes a second claim.)
func TestAFailingClaimIsNotRetriedInATightLoop(t *testing.T) {
	r, w := newRounds(0), newWakes()
	r.claimErr = errors.New("connection refused")
	run(t, r, w, 4)
	time.Sleep(200 * time.Millisecond)
	r.mu.Lock()
	n := len(r.claims)
	r.mu.Unlock()
	if n != 1 {
		t.Fatalf("%d claims in 200 ms with the database away; want 1 (the next after %v or a wake-up)", n, idleWait)
	}
	w.wake()
	waitFor(t, "a claim after the wake-up", func() bool { r.mu.Lock(); defer r.mu.Unlock(); return len(r.claims) == 2 })
}

// A submission's deliveries that its commit handed off are attempted and
// recorded with no claim and no wake-up.
func TestHandedOffDeliveriesAreAttemptedWithoutAClaim(t *testing.T) {
	r, w := newRounds(0), newWakes()
	run(t, r, w, 2)
	waitFor(t, "the first claim", func() bool { r.mu.Lock(); defer r.mu.Unlock(); return len(r.claims) == 1 })
	if !r.handOff.Reserve(3) {
		t.Fatal("an idle pipeline refused to reserve 3 of its 32 slots")
	}
	var due []application.DueDelivery
	for _, id := range []string{"h0", "h1", "h2"} {
		due = append(due, application.DueDelivery{ClaimedDelivery: application.ClaimedDelivery{
			Queued: delivery.Queued{DeliveryID: id, Kind: delivery.KindEmail}}})
	}
	r.handOff.Hand(due...)
	waitFor(t, "the handed-off deliveries recorded", func() bool { return len(r.recorded()) == 3 })
	time.Sleep(50 * time.Millisecond) // room for a stray claim to show
	r.mu.Lock()
	defer r.mu.Unlock()
	if !slices.Equal(r.recordedLocked(), []string{"h0", "h1", "h2"}) || len(r.claims) != 1 {
		t.Fatalf("recorded %v after %d claims; want h0-h2 after only the first, empty claim", r.recordedLocked(), len(r.claims))
	}
	if free := r.handOff.Free(); free != 2*claimPerSender {
		t.Fatalf("%d slots free after the records; want all %d back", free, 2*claimPerSender)
	}
}

// A submission is handed off only into slots that are free: while the
// senders' slots are all out, its deliveries are left for a claim, and once
// outcomes are recorded there is room again.
func TestNoSubmissionIsHandedOffPastTheSendersRoom(t *testing.T) {
	r, w := newRounds(claimPerSender), newWakes()
	release := make(chan struct{})
	r.attempt = func(string) { <-release }
	run(t, r, w, 1)
	waitFor(t, "the backlog claimed", func() bool { r.mu.Lock(); defer r.mu.Unlock(); return r.out == claimPerSender })
	if r.handOff.Reserve(1) {
		t.Fatal("reserved a slot while all of them were out")
	}
	close(release)
	waitFor(t, "the backlog recorded", func() bool { return len(r.recorded()) == claimPerSender })
	waitFor(t, "a slot reserved once the outcomes are recorded", func() bool {
		if r.handOff.Reserve(1) {
			r.handOff.Release(1)
			return true
		}
		return false
	})
}

// lingerFor sets recordLinger for the test.
func lingerFor(t *testing.T, d time.Duration) {
	before := recordLinger
	recordLinger = d
	t.Cleanup(func() { recordLinger = before })
}

// Outcomes that finish one after another within recordLinger are recorded
// together: a record costs PostgreSQL about the same for one outcome as for
// several, and at 1,000 deliveries/s the recorder had made records of about
// two.
func TestOutcomesFinishingWithinTheLingerAreRecordedTogether(t *testing.T) {
	lingerFor(t, time.Second)
	r, w := newRounds(3), newWakes()
	var order sync.Mutex
	r.attempt = func(id string) {
		order.Lock() // one at a time, 20 ms apart: never two outcomes waiting at once
		defer order.Unlock()
		time.Sleep(20 * time.Millisecond)
	}
	run(t, r, w, 3)
	waitFor(t, "every delivery recorded", func() bool { return len(r.recorded()) == 3 })
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.records) != 1 {
		t.Fatalf("records %v; want the three outcomes, 20 ms apart, in one record", r.records)
	}
}

// A group of a quarter of the slots is recorded at once: the linger never
// holds more slots than that from new work.
func TestAGroupOfAQuarterOfTheSlotsIsRecordedWithoutLingering(t *testing.T) {
	lingerFor(t, time.Hour)
	quarter := claimPerSender / 4 // one sender
	r, w := newRounds(quarter), newWakes()
	run(t, r, w, 1)
	waitFor(t, "the group recorded", func() bool { return len(r.recorded()) == quarter })
}

// Shutting down ends the linger: the outcome waiting for company is
// recorded and the pipeline returns.
func TestShuttingDownRecordsAnOutcomeThatIsLingering(t *testing.T) {
	lingerFor(t, time.Hour)
	r, w := newRounds(1), newWakes()
	stop := run(t, r, w, 1)
	waitFor(t, "the delivery attempted", func() bool { r.mu.Lock(); defer r.mu.Unlock(); return len(r.attempted) == 1 })
	stop()
	if got := r.recorded(); !slices.Equal(got, []string{"d00"}) {
		t.Fatalf("recorded %v at shutdown; want d00, whose outcome was lingering", got)
	}
}

// giveWayFor sets giveWayAtMost for the test.
func giveWayFor(t *testing.T, d time.Duration) {
	before := giveWayAtMost
	giveWayAtMost = d
	t.Cleanup(func() { giveWayAtMost = before })
}

// saturate brings the hand-off's intake to n submissions in progress, with
// a threshold of n.
func saturate(r *rounds, n int) {
	intake := r.handOff.Intake()
	intake.GiveWayAt(n)
	for range n {
		intake.Begin()
	}
}

// While this process's intake is saturated, senders give way before each
// attempt: with a bound of an hour, nothing is attempted, and what they
// hold when the process stops is left for Leave to release.
func TestSendersGiveWayToSaturatedIntake(t *testing.T) {
	giveWayFor(t, time.Hour)
	r, w := newRounds(3), newWakes()
	saturate(r, 2)
	stop := run(t, r, w, 2)
	waitFor(t, "the backlog claimed", func() bool { r.mu.Lock(); defer r.mu.Unlock(); return len(r.claims) > 0 && r.claims[0] == 3 })
	time.Sleep(50 * time.Millisecond) // room for an attempt that should not start
	gaveWay := r.handOff.Intake().GaveWay()
	stop()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.attempted) != 0 || gaveWay != 2 {
		t.Fatalf("attempted %v, gave way %d times, while intake was saturated; want no attempt, and both senders giving way",
			r.attempted, gaveWay)
	}
}

// However long intake stays saturated, deliveries go on: each sender makes
// an attempt every giveWayAtMost.
func TestSendersGiveWayNoLongerThanTheirBound(t *testing.T) {
	giveWayFor(t, 20*time.Millisecond)
	r, w := newRounds(3), newWakes()
	saturate(r, 1)
	run(t, r, w, 1)
	waitFor(t, "the backlog recorded while intake stayed saturated", func() bool { return len(r.recorded()) == 3 })
	if r.handOff.Intake().GaveWay() != 3 {
		t.Fatalf("gave way %d times before 3 attempts; want once before each", r.handOff.Intake().GaveWay())
	}
}

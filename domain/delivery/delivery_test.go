package delivery_test

import (
	"errors"
	"testing"
	"time"

	"github.com/formd/formd/domain/delivery"
)

func TestAnAttemptDecidesRetryFinalFailureOrSuccess(t *testing.T) {
	now := time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)
	// Mail's schedule; webhooks have their own (TestWebhooksRetryOnTheStandardWebhooksSchedule).
	q := delivery.Queued{DeliveryID: "d1", SubmissionID: "s1", FormID: "f1", Kind: delivery.KindEmail, At: now}
	tests := []struct {
		name      string
		before    int // attempts made before this one
		failure   string
		permanent bool
		jitter    float64
		want      delivery.Event
	}{
		{name: "first try succeeds", before: 0,
			want: delivery.Succeeded{Attempt: 1, At: now}},
		{name: "a late try succeeds", before: delivery.MaxAttempts - 1,
			want: delivery.Succeeded{Attempt: delivery.MaxAttempts, At: now}},
		{name: "a first failure waits 30s", before: 0, failure: "timeout",
			want: delivery.AttemptFailed{Attempt: 1, Reason: "timeout", NextAt: now.Add(30 * time.Second), At: now}},
		{name: "jitter adds up to a fifth of the wait", before: 2, failure: "503", jitter: 0.5,
			want: delivery.AttemptFailed{Attempt: 3, Reason: "503", NextAt: now.Add(2*time.Minute + 12*time.Second), At: now}},
		{name: "the last allowed attempt gives up", before: delivery.MaxAttempts - 1, failure: "503",
			want: delivery.GaveUp{Attempts: delivery.MaxAttempts, Reason: "503", At: now}},
		{name: "a permanent failure gives up at once", before: 0, failure: "410 Gone", permanent: true,
			want: delivery.GaveUp{Attempts: 1, Reason: "410 Gone", At: now}},
		{name: "an attempt past the limit gives up", before: delivery.MaxAttempts + 3, failure: "503",
			want: delivery.GaveUp{Attempts: delivery.MaxAttempts + 4, Reason: "503", At: now}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := delivery.Resume(q, tt.before)
			var got delivery.Event
			var err error
			if tt.failure == "" {
				got, err = d.Succeed(now)
			} else {
				got, err = d.Fail(tt.failure, tt.permanent, now, tt.jitter)
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("outcome %#v, want %#v", got, tt.want)
			}
			if d.Outcome() != got || d.Attempts() != tt.before+1 || d.Final() != delivery.Final(tt.want) {
				t.Errorf("after the attempt: outcome %#v, attempts %d, final %v", d.Outcome(), d.Attempts(), d.Final())
			}
			if d.ID() != "d1" || d.Kind() != delivery.KindEmail || d.Queued() != q {
				t.Errorf("identity changed: %s %s %+v", d.ID(), d.Kind(), d.Queued())
			}
		})
	}
}

func TestAFinalDeliveryRecordsNoMoreAttempts(t *testing.T) {
	now := time.Now()
	for name, end := range map[string]func(*delivery.Delivery) error{
		"succeeded": func(d *delivery.Delivery) error { _, err := d.Succeed(now); return err },
		"gave up":   func(d *delivery.Delivery) error { _, err := d.Fail("gone", true, now, 0); return err },
	} {
		d := delivery.Resume(delivery.Queued{DeliveryID: "d1"}, 0)
		if err := end(d); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := d.Succeed(now); !errors.Is(err, delivery.ErrFinal) {
			t.Errorf("%s, then Succeed: %v, want ErrFinal", name, err)
		}
		if _, err := d.Fail("again", false, now, 0); !errors.Is(err, delivery.ErrFinal) {
			t.Errorf("%s, then Fail: %v, want ErrFinal", name, err)
		}
		if d.Attempts() != 1 {
			t.Errorf("%s: attempts %d after refused records, want 1", name, d.Attempts())
		}
	}
}

func TestJitterOutsideItsRangeIsRefused(t *testing.T) {
	for _, j := range []float64{-0.1, 1, 2} {
		d := delivery.Resume(delivery.Queued{DeliveryID: "d1"}, 0)
		if _, err := d.Fail("x", false, time.Now(), j); err == nil {
			t.Errorf("jitter %v accepted", j)
		}
		if d.Attempts() != 0 || d.Outcome() != nil {
			t.Errorf("jitter %v: a refused attempt was recorded", j)
		}
	}
}

func TestAFailureAfterARetryIsStillRetried(t *testing.T) {
	now := time.Now()
	d := delivery.Resume(delivery.Queued{DeliveryID: "d1"}, 0)
	first, _ := d.Fail("timeout", false, now, 0)
	second, err := d.Fail("timeout", false, now, 0)
	if err != nil || delivery.Final(first) || delivery.Final(second) {
		t.Fatalf("two transient failures: %#v, %#v, %v", first, second, err)
	}
	if second.(delivery.AttemptFailed).Attempt != 2 || second.(delivery.AttemptFailed).NextAt != now.Add(time.Minute) {
		t.Errorf("second failure %#v, want attempt 2 retried after 1m", second)
	}
}

// A delivery whose payload formd cannot open (its key is missing) waits and
// is retried however many attempts that takes: giving up would redact the
// payload, and the submission would be lost for a fault of formd's own.
func TestAPostponedDeliveryNeverGivesUp(t *testing.T) {
	now := time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)
	for _, before := range []int{0, delivery.MaxAttempts - 1, delivery.MaxAttempts + 5} {
		d := delivery.Resume(delivery.Queued{DeliveryID: "d1"}, before)
		got, err := d.Postpone("sealing key missing", now, 0)
		want := delivery.AttemptFailed{Attempt: before + 1, Reason: "sealing key missing", NextAt: now.Add(delivery.Backoff(before + 1)), At: now}
		if err != nil || got != want || d.Final() {
			t.Errorf("after %d attempts, Postpone = %#v, %v (final %v); want %#v", before, got, err, d.Final(), want)
		}
		if _, err := d.Succeed(now); err != nil {
			t.Errorf("after %d attempts and a postponement, the key is back: Succeed = %v", before, err)
		}
	}
	done := delivery.Resume(delivery.Queued{DeliveryID: "d1"}, 0)
	_, _ = done.Succeed(now)
	if _, err := done.Postpone("x", now, 0); !errors.Is(err, delivery.ErrFinal) {
		t.Errorf("Postpone after success: %v, want ErrFinal", err)
	}
	if _, err := delivery.Resume(delivery.Queued{DeliveryID: "d1"}, 0).Postpone("x", now, 1); err == nil {
		t.Error("jitter 1 accepted")
	}
}

// A failing webhook is retried 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h,
// 20 h and 24 h after each failure, then fails: driven by the time given to
// each attempt, never by waiting.
func TestWebhooksRetryOnTheStandardWebhooksSchedule(t *testing.T) {
	clock := time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)
	q := delivery.Queued{DeliveryID: "d1", SubmissionID: "s1", FormID: "f1", Kind: delivery.KindWebhook, At: clock}
	waits := []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour,
		10 * time.Hour, 14 * time.Hour, 20 * time.Hour, 24 * time.Hour}
	for attempt := 1; attempt <= len(waits)+1; attempt++ {
		d := delivery.Resume(q, attempt-1)
		got, err := d.Fail("503", false, clock, 0)
		if err != nil {
			t.Fatal(err)
		}
		if attempt == len(waits)+1 {
			if want := (delivery.GaveUp{Attempts: attempt, Reason: "503", At: clock}); got != want {
				t.Fatalf("attempt %d: %#v, want %#v (the tenth attempt is the last)", attempt, got, want)
			}
			break
		}
		want := delivery.AttemptFailed{Attempt: attempt, Reason: "503", NextAt: clock.Add(waits[attempt-1]), At: clock}
		if got != want {
			t.Fatalf("attempt %d: %#v, want %#v", attempt, got, want)
		}
		clock = want.NextAt // the next attempt is made when it is due
	}
	if total := clock.Sub(q.At); total != 75*time.Hour+35*time.Minute+5*time.Second {
		t.Errorf("the schedule spans %v", total)
	}
	d := delivery.Resume(q, 3)
	got, _ := d.Fail("503", false, clock, 0.5)
	if want := clock.Add(2*time.Hour + 12*time.Minute); got.(delivery.AttemptFailed).NextAt != want {
		t.Errorf("jitter: next at %v, want %v (a tenth more with jitter 0.5)", got.(delivery.AttemptFailed).NextAt, want)
	}
	if n := delivery.ScheduleFor(delivery.KindEmail).MaxAttempts(); n != delivery.MaxAttempts {
		t.Errorf("mail makes %d attempts, want %d", n, delivery.MaxAttempts)
	}
	// Slack and Discord posts go out like webhooks, so they retry alike.
	for _, kind := range []string{delivery.KindSlack, delivery.KindDiscord, delivery.KindTelegram, delivery.KindGoogleSheets} {
		s := delivery.ScheduleFor(kind)
		if s.MaxAttempts() != len(waits)+1 || s.Wait(1) != 5*time.Second || s.Wait(len(waits)) != 24*time.Hour {
			t.Errorf("%s: %d attempts, first wait %v, last %v; want the webhook schedule", kind, s.MaxAttempts(), s.Wait(1), s.Wait(len(waits)))
		}
	}
}

// A receiver answering 429 or 503 with Retry-After is not called again
// before the time it asked for, unless the schedule waits longer anyway;
// what it may ask is capped at MaxRetryAfter, and the attempt counts.
func TestARetryAfterDelaysTheNextAttemptWithinACap(t *testing.T) {
	now := time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)
	last := delivery.ScheduleFor(delivery.KindWebhook).MaxAttempts() - 1 // attempts before the last one
	tests := []struct {
		name      string
		kind      string
		before    int
		notBefore time.Time
		jitter    float64
		want      delivery.Event
	}{
		{name: "a shorter ask keeps the schedule's 5 s", kind: delivery.KindWebhook, notBefore: now.Add(2 * time.Second),
			want: delivery.AttemptFailed{Attempt: 1, Reason: "r", NextAt: now.Add(5 * time.Second), At: now}},
		{name: "a longer ask wins, without jitter on it", kind: delivery.KindWebhook, notBefore: now.Add(2 * time.Minute), jitter: 0.5,
			want: delivery.AttemptFailed{Attempt: 1, Reason: "r", NextAt: now.Add(2 * time.Minute), At: now}},
		{name: "the schedule with jitter wins over a nearer ask", kind: delivery.KindWebhook, before: 3,
			notBefore: now.Add(2*time.Hour + 5*time.Minute), jitter: 0.5,
			want: delivery.AttemptFailed{Attempt: 4, Reason: "r", NextAt: now.Add(2*time.Hour + 12*time.Minute), At: now}},
		{name: "an ask of exactly the cap is honoured", kind: delivery.KindWebhook, notBefore: now.Add(24 * time.Hour),
			want: delivery.AttemptFailed{Attempt: 1, Reason: "r", NextAt: now.Add(24 * time.Hour), At: now}},
		{name: "an ask beyond the cap waits the cap", kind: delivery.KindWebhook, notBefore: now.Add(365 * 24 * time.Hour),
			want: delivery.AttemptFailed{Attempt: 1, Reason: "r", NextAt: now.Add(delivery.MaxRetryAfter), At: now}},
		{name: "past the cap, the schedule's own longer wait still applies", kind: delivery.KindWebhook, before: last - 1,
			notBefore: now.Add(48 * time.Hour), jitter: 0.5,
			want: delivery.AttemptFailed{Attempt: last, Reason: "r", NextAt: now.Add(26*time.Hour + 24*time.Minute), At: now}},
		{name: "a time in the past is the schedule", kind: delivery.KindWebhook, notBefore: now.Add(-time.Hour),
			want: delivery.AttemptFailed{Attempt: 1, Reason: "r", NextAt: now.Add(5 * time.Second), At: now}},
		{name: "no time is the schedule", kind: delivery.KindWebhook,
			want: delivery.AttemptFailed{Attempt: 1, Reason: "r", NextAt: now.Add(5 * time.Second), At: now}},
		{name: "the last attempt gives up whatever the receiver asks", kind: delivery.KindWebhook, before: last,
			notBefore: now.Add(time.Minute),
			want:      delivery.GaveUp{Attempts: last + 1, Reason: "r", At: now}},
		{name: "mail follows its own schedule alike", kind: delivery.KindEmail, notBefore: now.Add(10 * time.Minute),
			want: delivery.AttemptFailed{Attempt: 1, Reason: "r", NextAt: now.Add(10 * time.Minute), At: now}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := delivery.Resume(delivery.Queued{DeliveryID: "d1", Kind: tt.kind}, tt.before)
			got, err := d.FailNotBefore("r", tt.notBefore, now, tt.jitter)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("outcome %#v, want %#v", got, tt.want)
			}
			if d.Attempts() != tt.before+1 {
				t.Errorf("attempts %d, want %d: a Retry-After counts as an attempt", d.Attempts(), tt.before+1)
			}
		})
	}
	done := delivery.Resume(delivery.Queued{DeliveryID: "d1"}, 0)
	_, _ = done.Succeed(now)
	if _, err := done.FailNotBefore("r", now.Add(time.Minute), now, 0); !errors.Is(err, delivery.ErrFinal) {
		t.Errorf("FailNotBefore after success: %v, want ErrFinal", err)
	}
	if _, err := delivery.Resume(delivery.Queued{DeliveryID: "d1"}, 0).FailNotBefore("r", now, now, 1); err == nil {
		t.Error("jitter 1 accepted")
	}
}

package main

import (
	"net/smtp"
	"testing"
	"time"
)

// The sink is what the delivery figures rest on: a redelivered mail (same
// Message-ID) must count once, at its first arrival.
func TestSMTPSinkCountsAMessageIDOnce(t *testing.T) {
	sink, err := startSMTPSink()
	if err != nil {
		t.Fatal(err)
	}
	defer sink.Close()
	send := func(id string) {
		t.Helper()
		msg := "From: a@example.com\r\nTo: b@example.com\r\nMessage-ID: <" + id + ">\r\nSubject: x\r\n\r\nhello\r\n"
		if err := smtp.SendMail(sink.Addr, nil, "a@example.com", []string{"b@example.com"}, []byte(msg)); err != nil {
			t.Fatal(err)
		}
	}
	send("d1@formd")
	first, _, _ := sink.arrivals()
	t1 := first["d1"]
	send("d1@formd")
	send("d2@formd")
	send("unrelated@example.com")

	first, dups, other := sink.arrivals()
	if len(first) != 2 || dups != 1 || other != 1 {
		t.Fatalf("arrivals %v, duplicates %d, foreign %d; want d1 and d2, 1, 1", first, dups, other)
	}
	if !first["d1"].Equal(t1) {
		t.Errorf("d1 stamped %v after its redelivery, want its first arrival %v", first["d1"], t1)
	}
	if n := sink.missing(map[string]time.Time{"d1": {}, "d2": {}, "d3": {}}); n != 1 {
		t.Errorf("missing = %d, want 1 (d3)", n)
	}
}

func TestBacklogTrend(t *testing.T) {
	start := time.Now()
	end := start.Add(10 * time.Second)
	series := func(perSecond int) []backlogSnapshot {
		var s []backlogSnapshot
		for i := 0; i <= 10; i++ {
			s = append(s, backlogSnapshot{at: start.Add(time.Duration(i) * time.Second), n: 100 + perSecond*i})
		}
		return s
	}
	if slope, growing := backlogTrend(series(0), start, end, 1000); growing || slope != 0 {
		t.Errorf("flat backlog: slope %v growing %v", slope, growing)
	}
	if slope, growing := backlogTrend(series(300), start, end, 600); !growing || slope < 299 || slope > 301 {
		t.Errorf("backlog +300/s at 600/s: slope %v growing %v, want 300 and growing", slope, growing)
	}
	if _, growing := backlogTrend(series(5), start, end, 600); growing {
		t.Error("+5/s at 600/s (under 2%) counted as growing")
	}
}

// The delivery phase runs at half of the closed loop's peak unless formd
// delivered less than that meanwhile (its senders gave way to saturated
// intake): then at the rate it delivered.
func TestTheDeliveryPhaseRunsAtNoMoreThanTheClosedLoopDelivered(t *testing.T) {
	rep := &Report{ClosedLoop: ClosedReport{MaxAcceptedPerSecond: 10_000}, Deliveries: []PhaseDeliveries{
		{Phase: "open loop", DeliveredPerSecond: 1_000},
		{Phase: closedLoopPhase, DeliveredPerSecond: 2_200},
	}}
	if rate, _ := deliveryPhaseRate(rep); rate != 2_200 {
		t.Fatalf("rate %v; want the closed loop's 2,200 delivered/s, below half of its 10,000 accepted/s", rate)
	}
	rep.Deliveries[1].DeliveredPerSecond = 6_000
	if rate, _ := deliveryPhaseRate(rep); rate != 5_000 {
		t.Fatalf("rate %v; want half of the closed loop's 10,000 accepted/s", rate)
	}
}

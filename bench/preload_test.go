package main

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/adapters/postgres/pgtest"
	"github.com/formd/formd/application"
	accountdomain "github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/form"
	"github.com/formd/formd/domain/verification"
)

func TestPreloadCountsAtFullScale(t *testing.T) {
	got := fullPreload.Counts()
	// 10,000 × 6 + 100,000 × 6 = 660,000 events of accounts and forms;
	// 340,000 more take 113,334 submissions of 3 events each (rounded up).
	want := PreloadCounts{Accounts: 10_000, Forms: 100_000, Submissions: 113_334, Events: 1_000_002,
		Deliveries: 223_334, Verifications: 110_000}
	if got != want {
		t.Fatalf("full scale counts %+v, want %+v", got, want)
	}
}

func TestPreloadCountsRoundSubmissionsUpAndNeverBelowZero(t *testing.T) {
	// 2 accounts and 2 forms write 24 events: 4 more need two whole submissions.
	if c := (PreloadScale{Accounts: 2, FormsPerAccount: 1, Events: 28}).Counts(); c.Submissions != 2 || c.Events != 30 {
		t.Errorf("28 events: %d submissions and %d events, want 2 and 30", c.Submissions, c.Events)
	}
	// Fewer events than the accounts and forms write: no submissions, and
	// the events are what those write, not the request.
	if c := (PreloadScale{Accounts: 3, FormsPerAccount: 2, Events: 10}).Counts(); c.Submissions != 0 || c.Events != 54 ||
		c.Deliveries != 9 || c.Verifications != 9 {
		t.Errorf("10 events: %+v, want no submissions, 54 events, 9 deliveries and 9 verifications", c)
	}
}

// preloadAccessKey is the access key the fill gives form n.
func preloadAccessKey(n int) string {
	h := md5.Sum([]byte(fmt.Sprintf("preload-key-%d", n)))
	s := hex.EncodeToString(h[:])
	return s[:8] + "-" + s[8:12] + "-" + s[12:16] + "-" + s[16:20] + "-" + s[20:]
}

// The fill at 1/1000 of the full scale: the rows it promises, no pending
// work for formd, and rows formd's own read model and event codec accept.
func TestFillDatabaseWritesHistoryFormdReads(t *testing.T) {
	if os.Getenv("FORMD_TEST_DATABASE_URL") == "" {
		t.Skip("FORMD_TEST_DATABASE_URL is not set (make unit sets it)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dbURL, drop, err := pgtest.NewDatabase(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer drop()
	scale := PreloadScale{Accounts: 10, FormsPerAccount: 10, Events: 1_000}
	fill, err := fillDatabase(ctx, dbURL, scale, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := scale.Counts()
	r := fill.Rows
	if r.Accounts != 10 || r.Forms != 100 || r.Events != int64(want.Events) || r.Events < 1_000 ||
		r.Deliveries != int64(want.Deliveries) || r.Verifications != int64(want.Verifications) {
		t.Fatalf("rows %+v, want %+v", r, want)
	}
	if r.PendingDeliveries != 0 || r.Payloads != 0 {
		t.Fatalf("the fill left work for formd: %d deliveries due, %d sealed payloads", r.PendingDeliveries, r.Payloads)
	}
	if fill.DatabaseBytes <= 0 || fill.EventsBytes <= 0 || fill.EventsBytes > fill.DatabaseBytes {
		t.Fatalf("sizes: database %d bytes, events %d", fill.DatabaseBytes, fill.EventsBytes)
	}

	pool, err := postgres.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var staging, quota, badIDs, recentSubmissionEvents int
	if err := pool.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM pg_class WHERE relname LIKE 'preload\_%'),
		(SELECT coalesce(sum(used), 0) FROM submission_quota_usage),
		-- a stream's id is a UUIDv7 whose milliseconds are its first event's time
		(SELECT count(*) FROM events WHERE version = 1 AND (substr(stream_id::text, 15, 1) <> '7'
		    OR abs(('x' || substr(replace(stream_id::text, '-', ''), 1, 12))::bit(48)::bigint
		           - floor(extract(epoch FROM recorded_at) * 1000)::bigint) > 1)) +
		-- a submission's delivery has no version 1 of its own: its id's time is its queuing's
		(SELECT count(*) FROM deliveries WHERE substr(id::text, 15, 1) <> '7'
		    OR abs(('x' || substr(replace(id::text, '-', ''), 1, 12))::bit(48)::bigint
		           - floor(extract(epoch FROM created_at) * 1000)::bigint) > 1),
		(SELECT count(*) FROM events WHERE stream_type = 'submission' AND recorded_at > now() - interval '7 days')`).
		Scan(&staging, &quota, &badIDs, &recentSubmissionEvents); err != nil {
		t.Fatal(err)
	}
	if staging != 0 {
		t.Errorf("%d staging relations left behind", staging)
	}
	if quota != want.Submissions {
		t.Errorf("quota usage counts %d submissions, want %d", quota, want.Submissions)
	}
	if badIDs != 0 {
		t.Errorf("%d streams whose id is not a UUIDv7 of their first event's time", badIDs)
	}
	// Submissions are spread over 90 days: a week holds some, and each of
	// them left both its events on the unread topic.
	if r.OutboxMessages == 0 || r.OutboxMessages != int64(recentSubmissionEvents) {
		t.Errorf("%d messages on the submission topic, want the last seven days' %d submission events", r.OutboxMessages, recentSubmissionEvents)
	}

	store := postgres.NewEventStore()
	read := postgres.NewReadModel(pool, store)
	// Form 42 routes a submission by its access key, and its history
	// rebuilds the form the projection shows.
	key := preloadAccessKey(42)
	rec, err := read.FormByAccessKeyHash(ctx, application.HashSecret(key))
	if err != nil {
		t.Fatalf("form 42 by its access key: %v", err)
	}
	if !rec.RecipientVerified || rec.Version != 2 || rec.Settings.RecipientEmail != "inbox-42@example.net" || rec.AccessKeyPrefix != key[:8] {
		t.Fatalf("form 42 as projected: %+v", rec)
	}
	hist, err := read.StreamHistory(ctx, rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	var formEvents []form.Event
	for _, h := range hist {
		formEvents = append(formEvents, h.Event.(form.Event))
	}
	f, err := form.FromHistory(formEvents)
	if err != nil {
		t.Fatal(err)
	}
	if f.Version() != rec.Version || !f.RecipientVerified() || f.AccountID() != rec.AccountID ||
		f.AccessKeyHash() != hex.EncodeToString(application.HashSecret(key)) || f.Settings().Name != rec.Settings.Name {
		t.Fatalf("form 42 from its events (version %d, verified %v, account %s) differs from its projection %+v",
			f.Version(), f.RecipientVerified(), f.AccountID(), rec)
	}
	acct, err := read.AccountByEmail(ctx, "preload-4@example.com")
	if err != nil || !acct.EmailVerified || acct.ID != rec.AccountID {
		t.Fatalf("account 4 (owner of form 42): %+v, %v", acct, err)
	}
	hist, err = read.StreamHistory(ctx, acct.ID)
	if err != nil {
		t.Fatal(err)
	}
	var accountEvents []accountdomain.Event
	for _, h := range hist {
		accountEvents = append(accountEvents, h.Event.(accountdomain.Event))
	}
	a, err := accountdomain.FromHistory(accountEvents)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.CanCreateForms(); err != nil || !a.HasWorkspace(rec.WorkspaceID) {
		t.Fatalf("account 4 from its events: may create forms: %v; has the form's workspace: %v", err, a.HasWorkspace(rec.WorkspaceID))
	}
	v, err := read.LatestVerification(ctx, verification.KindRecipient, rec.ID)
	if err != nil || v.Status != verification.StatusVerified {
		t.Fatalf("form 42's recipient verification: %+v, %v", v, err)
	}

	// Every stream decodes through the event codec.
	rows, err := pool.Query(ctx, `SELECT DISTINCT stream_id::text FROM events`)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	types := map[string]int{}
	for _, id := range ids {
		hist, err := read.StreamHistory(ctx, id)
		if err != nil {
			t.Fatalf("stream %s: %v", id, err)
		}
		for _, h := range hist {
			types[h.Type]++
		}
	}
	if types["submission.accepted.v1"] != want.Submissions || types["delivery.succeeded.v1"] != want.Deliveries ||
		types["form.recipient_verified.v1"] != want.Forms || types["account.email_verified.v1"] != want.Accounts ||
		types["delivery.queued.v1"] != want.Accounts+want.Forms { // a submission's mail is queued by its accepted event
		t.Fatalf("decoded event types %v", types)
	}

	// The delivered backlog shows in the delivery log as sent mail.
	d, err := postgres.NewDeliveryStore(pool, store).FormDeliveries(ctx, rec.ID, application.DeliveryFilter{Limit: 10})
	if err != nil || len(d) == 0 || d[0].State != "succeeded" || d[0].FinishedAt == nil {
		t.Fatalf("form 42's delivery log: %+v, %v", d, err)
	}
}

func TestComparePreloadDividesPreloadedByEmpty(t *testing.T) {
	empty := &OpenResult{P50Ms: 2, P99Ms: 8}
	pre := &OpenResult{P50Ms: 2.1, P99Ms: 10}
	c := comparePreload(empty, nil, pre, nil, &StepResult{Concurrency: 64, AcceptedPerSecond: 2000}, &StepResult{Concurrency: 64, AcceptedPerSecond: 1800})
	if !near(c.P50Ratio, 1.05) || !near(c.P99Ratio, 1.25) || c.Concurrency != 64 || !near(c.AcceptedRatio, 0.9) {
		t.Fatalf("comparison %+v, want p50 ×1.05, p99 ×1.25, c=64 accepted ×0.9", c)
	}
	// A missing side gives no ratio rather than a division by zero.
	c = comparePreload(nil, nil, pre, nil, nil, &StepResult{Concurrency: 64, AcceptedPerSecond: 1800})
	if c.P50Ratio != 0 || c.P99Ratio != 0 || c.Concurrency != 0 || c.AcceptedRatio != 0 {
		t.Fatalf("comparison without the empty run %+v, want no ratios", c)
	}
}

// The baseline is the faster of the empty runs before and after the
// preloaded one, quantile by quantile: a stall in one empty run, or a
// machine that slows down over the bench, cannot pass the preloaded run.
func TestComparePreloadTakesTheFasterOfTheEmptyRunsAroundIt(t *testing.T) {
	before, after := &OpenResult{P50Ms: 2, P99Ms: 100}, &OpenResult{P50Ms: 3, P99Ms: 10}
	c := comparePreload(before, after, &OpenResult{P50Ms: 2.2, P99Ms: 12}, nil, nil, nil)
	if !near(c.EmptyP50Ms, 2) || !near(c.EmptyP99Ms, 10) || !near(c.P50Ratio, 1.1) || !near(c.P99Ratio, 1.2) || len(c.EmptyRuns) != 2 {
		t.Fatalf("comparison %+v; want a baseline of 2 / 10 ms, ratios ×1.10 and ×1.20", c)
	}
	// A second run that failed leaves the first as the baseline.
	c = comparePreload(before, nil, &OpenResult{P50Ms: 2.2, P99Ms: 100}, nil, nil, nil)
	if !near(c.EmptyP50Ms, 2) || !near(c.P50Ratio, 1.1) || !near(c.P99Ratio, 1) || len(c.EmptyRuns) != 1 {
		t.Fatalf("comparison %+v; want the first run alone as the baseline", c)
	}
}

// The preloaded side is estimated as the empty side is, by the faster of
// two runs: the faster of two draws from one distribution is faster on
// average than one draw, so a single preloaded run against the faster
// empty run made equal databases differ.
func TestComparePreloadTakesTheFasterOfThePreloadedRunsToo(t *testing.T) {
	before, after := &OpenResult{P50Ms: 2, P99Ms: 12}, &OpenResult{P50Ms: 2.4, P99Ms: 10}
	first, second := &OpenResult{P50Ms: 2.6, P99Ms: 10.5}, &OpenResult{P50Ms: 2.1, P99Ms: 30}
	c := comparePreload(before, after, first, second, nil, nil)
	if !near(c.PreloadedP50Ms, 2.1) || !near(c.PreloadedP99Ms, 10.5) || !near(c.P50Ratio, 1.05) || !near(c.P99Ratio, 1.05) ||
		len(c.PreloadedRuns) != 2 || c.PreloadedRuns[1].When != "second" {
		t.Fatalf("comparison %+v; want the preloaded 2.1 / 10.5 ms against 2 / 10, ×1.05 each", c)
	}
	// Without a second run the first stands alone.
	c = comparePreload(before, after, first, nil, nil, nil)
	if !near(c.P50Ratio, 1.3) || !near(c.P99Ratio, 1.05) || len(c.PreloadedRuns) != 1 {
		t.Fatalf("comparison %+v; want the first preloaded run alone", c)
	}
}

// An error in the second preloaded open loop fails the goal, as one in the
// first does.
func TestPreloadGoalFailsOnAnErrorInTheSecondRun(t *testing.T) {
	clean := &OpenResult{P50Ms: 2, P99Ms: 10, Counts: Counts{Sent: 100, Accepted: 100}}
	flawed := &OpenResult{P50Ms: 2, P99Ms: 10, Counts: Counts{Sent: 100, Accepted: 99}}
	p := &PreloadResult{OpenLoop: clean, OpenLoopAgain: flawed, Comparison: comparePreload(clean, nil, clean, flawed, nil, nil)}
	if g := preloadGoal(p, 1.10); !g.Known || g.Pass {
		t.Fatalf("goal %+v; want known and failed", g)
	}
	p.OpenLoopAgain = clean
	if g := preloadGoal(p, 1.10); !g.Pass {
		t.Fatalf("goal %+v; want passed with both runs clean", g)
	}
}

func TestPreloadGoalNeedsBothQuantilesWithinTheRatioAndNoErrors(t *testing.T) {
	judge := func(emptyP50, emptyP99, p50, p99 float64, sent, accepted int) Goal {
		pre := &OpenResult{P50Ms: p50, P99Ms: p99, Counts: Counts{Sent: sent, Accepted: accepted}}
		return preloadGoal(&PreloadResult{OpenLoop: pre, Comparison: comparePreload(&OpenResult{P50Ms: emptyP50, P99Ms: emptyP99}, nil, pre, nil, nil, nil)}, 1.10)
	}
	for name, tc := range map[string]struct {
		g           Goal
		known, pass bool
		value       float64
	}{
		"both within 10%":        {judge(2, 10, 2.2, 10.5, 100, 100), true, true, 1.1},
		"faster when preloaded":  {judge(2, 10, 1.5, 9, 100, 100), true, true, 0.9},
		"p99 11% slower":         {judge(2, 10, 2, 11.1, 100, 100), true, false, 1.11},
		"p50 20% slower":         {judge(2, 10, 2.4, 10, 100, 100), true, false, 1.2},
		"an error":               {judge(2, 10, 2, 10, 100, 99), true, false, 1},
		"preloaded sent nothing": {judge(2, 10, 0, 0, 0, 0), false, false, 0},
		"empty measured nothing": {judge(0, 0, 2, 10, 100, 100), false, false, 0},
	} {
		if tc.g.Known != tc.known || tc.g.Pass != tc.pass || !near(tc.g.Value, tc.value) {
			t.Errorf("%s: %+v, want known %v pass %v value %v", name, tc.g, tc.known, tc.pass, tc.value)
		}
	}
	if g := preloadGoal(nil, 1.10); g.Known || g.Pass {
		t.Errorf("no preloaded phase: %+v, want unknown", g)
	}
}

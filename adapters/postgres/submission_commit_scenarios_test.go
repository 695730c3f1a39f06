package postgres_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/application"
	"github.com/formd/formd/domain"
	"github.com/formd/formd/domain/account"
	"github.com/formd/formd/domain/delivery"
	"github.com/formd/formd/domain/submission"
)

// An answer a commit path gives one submission.
const (
	committed   = "committed"   // committed, its autoresponder (if any) with it
	held        = "held"        // committed without its autoresponder, whose slot another request holds
	replayed    = "replayed"    // answered with the response stored under its key; nothing committed
	stale       = "stale"       // judged on an old form version (domain.ErrConcurrency); nothing committed
	overQuota   = "quota"       // refused by the quota; nothing committed
	unavailable = "unavailable" // names an upload key that is not available; nothing committed
)

// commitScenario is a group commit and what each of its submissions must
// be answered on the careful path and the fallback. The pipelined path
// commits the whole batch with the same answers when atomic is set, and
// nothing at all otherwise.
type commitScenario struct {
	name   string
	batch  func(t *testing.T, u uploadEnv) []application.AcceptedSubmission
	want   []string
	atomic bool
	check  func(t *testing.T, u uploadEnv, batch []application.AcceptedSubmission)
}

var scenarioQuotas = account.Quotas{Free: 3, Pro: 100, Lifetime: 100}

// archiveEnd is when the archived scenario's payload may be shredded.
var archiveEnd = time.Date(2026, 12, 27, 10, 0, 0, 0, time.UTC)

// withAutoresponder is s with an autoresponder to address, and its slot.
func withAutoresponder(s application.AcceptedSubmission, address string) application.AcceptedSubmission {
	id := uuid.NewString()
	s.Queued = append(s.Queued, delivery.Queued{DeliveryID: id, SubmissionID: s.Accepted.SubmissionID, FormID: s.FormID,
		Kind: delivery.KindAutoresponder, Target: "s***@example.com", At: s.Accepted.At})
	s.Accepted.Deliveries = append(s.Accepted.Deliveries, submission.DeliveryRef{ID: id, Kind: delivery.KindAutoresponder, Target: "s***@example.com"})
	s.Response.Response.AutoresponderDeliveryID = id
	s.Autoresponder = application.AutoresponderSlot{AddressHash: address, DeliveryID: id}
	return s
}

var commitScenarios = []commitScenario{{
	name: "every submission passes",
	batch: func(t *testing.T, u uploadEnv) []application.AcceptedSubmission {
		return []application.AcceptedSubmission{u.charged("", scenarioQuotas), withAutoresponder(u.accepted(1, "k"), "a"),
			u.using(u.accepted(1, ""), now().Add(time.Hour), u.cleanKey(t))}
	},
	want: []string{committed, committed, committed}, atomic: true,
}, {
	name: "stale form",
	batch: func(t *testing.T, u uploadEnv) []application.AcceptedSubmission {
		return []application.AcceptedSubmission{u.accepted(1, ""), u.accepted(0, "")}
	},
	want: []string{committed, stale},
}, {
	name: "two versions of one form",
	batch: func(t *testing.T, u uploadEnv) []application.AcceptedSubmission {
		return []application.AcceptedSubmission{u.accepted(1, ""), u.accepted(2, "")}
	},
	want: []string{committed, stale},
}, {
	name: "stored idempotency key",
	batch: func(t *testing.T, u uploadEnv) []application.AcceptedSubmission {
		u.storeKey(t, u.accepted(1, "used"))
		return []application.AcceptedSubmission{u.accepted(1, ""), u.accepted(1, "used")}
	},
	want: []string{committed, replayed},
}, {
	name: "twin keys in one batch",
	batch: func(t *testing.T, u uploadEnv) []application.AcceptedSubmission {
		return []application.AcceptedSubmission{u.accepted(1, "k"), u.accepted(1, "k"), u.accepted(1, "")}
	},
	want: []string{committed, replayed, committed}, atomic: true,
}, {
	name: "charged twins and a stored key with room to spare",
	batch: func(t *testing.T, u uploadEnv) []application.AcceptedSubmission {
		u.storeKey(t, u.charged("used", scenarioQuotas))
		return []application.AcceptedSubmission{u.charged("used", scenarioQuotas), u.charged("used", scenarioQuotas),
			u.charged("k", scenarioQuotas), u.charged("k", scenarioQuotas)}
	},
	want: []string{replayed, replayed, committed, replayed},
	check: func(t *testing.T, u uploadEnv, batch []application.AcceptedSubmission) {
		if n := u.used(t); n != 2 {
			t.Errorf("used %d, want 2: the stored one and k", n)
		}
	},
}, {
	name: "twin of a stale submission",
	batch: func(t *testing.T, u uploadEnv) []application.AcceptedSubmission {
		return []application.AcceptedSubmission{u.accepted(0, "k"), u.accepted(0, "k")}
	},
	want: []string{stale, stale},
}, {
	name: "quota short by one",
	batch: func(t *testing.T, u uploadEnv) []application.AcceptedSubmission {
		u.setUsed(t, 1)
		return []application.AcceptedSubmission{u.charged("", scenarioQuotas), u.charged("a", scenarioQuotas), u.charged("b", scenarioQuotas),
			u.accepted(1, "")}
	},
	want: []string{committed, committed, overQuota, committed},
	check: func(t *testing.T, u uploadEnv, batch []application.AcceptedSubmission) {
		if n := u.used(t); n != 3 {
			t.Errorf("used %d, want the quota's 3", n)
		}
		if stored, err := u.subs.IdempotentResponse(u.ctx, u.formID, "b"); err != nil || stored != nil {
			t.Errorf("the refused submission's key still answers: %+v, %v", stored, err)
		}
	},
}, {
	name: "archived and unarchived submissions in one batch",
	batch: func(t *testing.T, u uploadEnv) []application.AcceptedSubmission {
		return []application.AcceptedSubmission{archivedFor(u.accepted(1, "k"), archiveEnd), u.accepted(1, "")}
	},
	want: []string{committed, committed}, atomic: true,
	check: func(t *testing.T, u uploadEnv, batch []application.AcceptedSubmission) {
		for i, want := range []time.Time{archiveEnd, {}} {
			var until *time.Time
			if err := u.pool.QueryRow(u.ctx, `SELECT archived_until FROM submission_payloads WHERE submission_id = $1`,
				batch[i].Accepted.SubmissionID).Scan(&until); err != nil {
				t.Fatal(err)
			}
			if (until == nil) != want.IsZero() || (until != nil && !until.Equal(want)) {
				t.Errorf("submission %d: archived until %v, want %v", i, until, want)
			}
		}
	},
}, {
	name: "upload already consumed",
	batch: func(t *testing.T, u uploadEnv) []application.AcceptedSubmission {
		key := u.cleanKey(t)
		u.accept(t, u.using(u.accepted(1, ""), now().Add(time.Hour), key))
		return []application.AcceptedSubmission{u.using(u.accepted(1, "k"), now().Add(time.Hour), key), u.accepted(1, "")}
	},
	want: []string{unavailable, committed},
	check: func(t *testing.T, u uploadEnv, batch []application.AcceptedSubmission) {
		if stored, err := u.subs.IdempotentResponse(u.ctx, u.formID, "k"); err != nil || stored != nil {
			t.Errorf("the refused submission's key still answers: %+v, %v", stored, err)
		}
	},
}, {
	name: "one upload key named twice",
	batch: func(t *testing.T, u uploadEnv) []application.AcceptedSubmission {
		key := u.cleanKey(t)
		return []application.AcceptedSubmission{u.using(u.accepted(1, ""), now().Add(time.Hour), key),
			u.using(u.accepted(1, ""), now().Add(time.Hour), key)}
	},
	want: []string{committed, unavailable},
}, {
	name: "autoresponder slot held by another request",
	batch: func(t *testing.T, u uploadEnv) []application.AcceptedSubmission {
		if ok, err := postgres.NewAutoresponderLimits(u.pool).Reserve(u.ctx, u.formID, "a", "earlier", time.Now().UTC()); err != nil || !ok {
			t.Fatalf("seeding the slot: %v %v", ok, err)
		}
		return []application.AcceptedSubmission{withAutoresponder(u.accepted(1, "k"), "a"), withAutoresponder(u.accepted(1, ""), "b")}
	},
	want: []string{held, committed},
}, {
	name: "two submissions want one slot",
	batch: func(t *testing.T, u uploadEnv) []application.AcceptedSubmission {
		return []application.AcceptedSubmission{withAutoresponder(u.accepted(1, ""), "a"), withAutoresponder(u.accepted(1, "k"), "a")}
	},
	want: []string{committed, held},
}, {
	name: "a submission refused at commit holds no autoresponder slot",
	batch: func(t *testing.T, u uploadEnv) []application.AcceptedSubmission {
		u.setUsed(t, 3)
		return []application.AcceptedSubmission{withAutoresponder(u.charged("", scenarioQuotas), "a"), withAutoresponder(u.accepted(0, ""), "b")}
	},
	want: []string{overQuota, stale},
	check: func(t *testing.T, u uploadEnv, batch []application.AcceptedSubmission) {
		var slots int
		if err := u.pool.QueryRow(u.ctx, `SELECT count(*) FROM autoresponder_sends WHERE form_id = $1`, u.formID).Scan(&slots); err != nil {
			t.Fatal(err)
		}
		if slots != 0 {
			t.Errorf("%d autoresponder slots are held by refused submissions", slots)
		}
	},
}}

// Every commit path answers every scenario alike: the pipelined path
// commits a batch only when every submission passes, and otherwise
// nothing, for the careful path to answer each.
func TestCommitScenariosOnEveryPath(t *testing.T) {
	t.Parallel()
	for _, sc := range commitScenarios {
		for _, path := range postgres.CommitPathNames {
			t.Run(sc.name+"/"+path, func(t *testing.T) {
				t.Parallel()
				u := newUploadEnv(t)
				batch := sc.batch(t, u)
				out, err := postgres.CommitOn(path, u.subs, u.ctx, batch)
				if path == "pipelined" && !sc.atomic {
					if err == nil {
						t.Fatal("the pipeline committed a batch with a submission that does not pass")
					}
					for i, s := range batch {
						if u.committed(t, s) {
							t.Errorf("submission %d was committed by a failed pipeline", i)
						}
					}
					return
				}
				if err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				for i, want := range sc.want {
					u.wantOutcome(t, i, batch, out[i], want)
				}
				if sc.check != nil {
					sc.check(t, u, batch)
				}
			})
		}
	}
}

// wantOutcome checks submission i's answer and what was committed of it.
func (u uploadEnv) wantOutcome(t *testing.T, i int, batch []application.AcceptedSubmission, o postgres.Outcome, want string) {
	t.Helper()
	s := batch[i]
	var got string
	var exhausted *application.QuotaExhaustedError
	var unavailableErr *application.UploadUnavailableError
	switch {
	case errors.Is(o.Err, domain.ErrConcurrency):
		got = stale
	case errors.As(o.Err, &exhausted):
		got = overQuota
	case errors.As(o.Err, &unavailableErr):
		got = unavailable
	case o.Err != nil:
		got = "error: " + o.Err.Error()
	case o.Prior != nil:
		got = replayed
	case o.AutoresponderHeld:
		got = held
	default:
		got = committed
	}
	if got != want {
		t.Errorf("submission %d answered %q, want %q", i, got, want)
		return
	}
	if c := u.committed(t, s); c != (want == committed || want == held) {
		t.Errorf("submission %d (%s): committed = %v", i, want, c)
	}
	auto := s.Autoresponder.DeliveryID
	if auto == "" {
		return
	}
	var deliveries, slots int
	if err := u.pool.QueryRow(u.ctx, `SELECT (SELECT count(*) FROM deliveries WHERE id = $1),
		(SELECT count(*) FROM autoresponder_sends WHERE form_id = $2 AND address_hash = $3 AND request_id = $4)`,
		auto, s.FormID, s.Autoresponder.AddressHash, s.Accepted.RequestID).Scan(&deliveries, &slots); err != nil {
		t.Fatal(err)
	}
	if wantQueued := want == committed; (deliveries == 1) != wantQueued || (slots == 1) != wantQueued {
		t.Errorf("submission %d (%s): %d autoresponder deliveries queued, %d slots held", i, want, deliveries, slots)
	}
	if want == held && s.IdempotencyKey != "" {
		stored, err := u.subs.IdempotentResponse(u.ctx, s.FormID, s.IdempotencyKey)
		if err != nil || stored == nil || stored.Response.AutoresponderDeliveryID != "" || stored.Response.DeliveryID == "" {
			t.Errorf("submission %d: stored response %+v, %v; want it without the autoresponder", i, stored, err)
		}
	}
}

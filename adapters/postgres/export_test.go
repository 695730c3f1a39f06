package postgres

import (
	"context"
	"log/slog"
	"slices"
	"time"

	wsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/formd/formd/application"
	"github.com/formd/formd/domain/account"
)

// CommitPath is one of the group commit's ways to the database, opened to
// the tests: each submission's answer (a prior response or an error), or an
// error for the whole batch.
type CommitPath func(s *SubmissionStore, ctx context.Context, subs []application.AcceptedSubmission) ([]*application.StoredResponse, []error, error)

// The group commit's paths: one pipeline, the careful transaction, and the
// first falling back to the second.
var (
	CommitPipelined = commitPath((*SubmissionStore).commitPipelined)
	CommitCarefully = commitPath((*SubmissionStore).commitCarefully)
	Commit          = commitPath((*SubmissionStore).commit)
)

func commitPath(f func(*SubmissionStore, context.Context, []*pendingSubmission) ([]acceptResult, error)) CommitPath {
	return func(s *SubmissionStore, ctx context.Context, subs []application.AcceptedSubmission) ([]*application.StoredResponse, []error, error) {
		batch := make([]*pendingSubmission, len(subs))
		for i, sub := range subs {
			batch[i] = &pendingSubmission{sub: sub}
		}
		results, err := f(s, ctx, batch)
		if err != nil {
			return nil, nil, err
		}
		priors, errs := make([]*application.StoredResponse, len(results)), make([]error, len(results))
		for i, r := range results {
			priors[i], errs[i] = r.prior, r.err
		}
		return priors, errs, nil
	}
}

// NewSubmissionStoreWithLanes is NewSubmissionStore with n commit lanes,
// so a test can hold them all and have a batch fill up.
func NewSubmissionStoreWithLanes(pool *pgxpool.Pool, store *EventStore, log *slog.Logger, n int) (*SubmissionStore, func()) {
	s := newSubmissionStore(pool, store, NewDeliveryStore(pool, store), log, noCommitObserver{}, n)
	return s, s.Close
}

// QueuedSubmissions is how many submissions wait for their lane's commit.
func QueuedSubmissions(s *SubmissionStore) int {
	n := 0
	for _, l := range s.lanes {
		l.mu.Lock()
		n += len(l.queue)
		l.mu.Unlock()
	}
	return n
}

// LaneOf is the index of the commit lane a submission takes.
func LaneOf(s *SubmissionStore, sub application.AcceptedSubmission) int {
	lane := s.laneOf(sub)
	for i, l := range s.lanes {
		if l == lane {
			return i
		}
	}
	return -1
}

// OutboxSelectQuery is the consumer query of the Watermill schema.
func OutboxSelectQuery(topic, group string) (string, []any, error) {
	q, err := Schema.SelectQuery(wsql.SelectQueryParams{Topic: topic, ConsumerGroup: group, OffsetsAdapter: Offsets})
	return q.Query, q.Args, err
}

// SettlePayloads is the statement that counts final deliveries off their
// payloads, opened to the plan test.
const SettlePayloads = settlePayloads

// ClaimQuery is the claim's statement, for pg_prepared_statements.
const ClaimQuery = claimQuery

// QueueClaim adds a claim, with its settings, to b.
func QueueClaim(b *pgx.Batch, due, leaseUntil time.Time, limit int, instance string) {
	queueClaim(b, due, leaseUntil, limit, instance)
}

// QueueSettle adds the settle, with its settings, to b.
func QueueSettle(b *pgx.Batch, subs []string, counts []int32) { queueSettle(b, subs, counts) }

// Payloads reads the sealed payloads of submissions, for the tests to see
// what is stored; a redacted one is absent from the map. (formd reads a
// delivery's payload with its claim.)
func (d *DeliveryStore) Payloads(ctx context.Context, submissionIDs []string) (map[string]application.SealedPayload, error) {
	rows, err := d.pool.Query(ctx, `SELECT submission_id::text, key_id, wrapped_key, ciphertext FROM submission_payloads
		WHERE submission_id = ANY($1::uuid[])`, submissionIDs)
	if err != nil {
		return nil, err
	}
	out := make(map[string]application.SealedPayload, len(submissionIDs))
	var id, keyID string
	var key, text []byte
	_, err = pgx.ForEachRow(rows, []any{&id, &keyID, &key, &text}, func() error {
		out[id] = application.SealedPayload{KeyID: keyID, WrappedKey: slices.Clone(key), Ciphertext: slices.Clone(text)}
		return nil
	})
	return out, err
}

// The admission's statements: the pipelined path's, which raises unless
// every submission passes, and the careful path's, which returns verdicts.
const (
	AdmitAllQuery  = admitAllQuery
	AdmissionQuery = admissionQuery
)

// testAdmission is the admission of one submission to each of forms (at
// versions), charged to accounts in month.
func testAdmission(forms []string, versions []int32, accounts []string, month time.Time, quotas account.Quotas) admission {
	batch := make([]*pendingSubmission, len(forms))
	for i := range forms {
		sub := application.AcceptedSubmission{FormID: forms[i], FormVersion: int(versions[i])}
		if i < len(accounts) {
			sub.Charge = application.QuotaCharge{AccountID: accounts[i], Month: account.MonthOf(month), Quotas: quotas}
		}
		batch[i] = &pendingSubmission{sub: sub}
	}
	return admissionOf(batch, allLive(batch))
}

// QueueAdmission adds the pipelined path's admission to b.
func QueueAdmission(b *pgx.Batch, forms []string, versions []int32, accounts []string, month time.Time, quotas account.Quotas) {
	testAdmission(forms, versions, accounts, month, quotas).queueAdmitAll(b)
}

// Admit runs the careful path's admission in a transaction on conn and
// returns the verdicts.
func Admit(ctx context.Context, conn *pgx.Conn, forms []string, versions []int32, accounts []string, month time.Time,
	quotas account.Quotas) ([]string, error) {
	var out []string
	err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		verdicts, err := testAdmission(forms, versions, accounts, month, quotas).verdicts(ctx, tx)
		for _, v := range verdicts {
			out = append(out, v.verdict)
		}
		return err
	})
	return out, err
}

// NewCommitNotifierEvery is NewCommitNotifier with the shortest time
// between two sends given.
func NewCommitNotifierEvery(pool *pgxpool.Pool, log *slog.Logger, interval time.Duration) *CommitNotifier {
	return newCommitNotifier(pool, log, interval)
}

// Outcome is one submission's answer from a commit path.
type Outcome struct {
	Prior             *application.StoredResponse
	Err               error
	AutoresponderHeld bool
}

// CommitPathNames are the group commit's paths: one pipeline, the careful
// transaction, and the first falling back to the second.
var CommitPathNames = []string{"pipelined", "careful", "fallback"}

// CommitOn commits subs as one group commit on the named path and returns
// each submission's outcome, or the error of the whole batch.
func CommitOn(path string, s *SubmissionStore, ctx context.Context, subs []application.AcceptedSubmission) ([]Outcome, error) {
	commit := map[string]func(*SubmissionStore, context.Context, []*pendingSubmission) ([]acceptResult, error){
		"pipelined": (*SubmissionStore).commitPipelined, "careful": (*SubmissionStore).commitCarefully, "fallback": (*SubmissionStore).commit,
	}[path]
	batch := make([]*pendingSubmission, len(subs))
	for i, sub := range subs {
		batch[i] = &pendingSubmission{sub: sub}
	}
	results, err := commit(s, ctx, batch)
	if err != nil {
		return nil, err
	}
	out := make([]Outcome, len(results))
	for i, r := range results {
		out[i] = Outcome{Prior: r.prior, Err: r.err, AutoresponderHeld: r.autoresponderHeld}
	}
	return out, nil
}

// AutoresponderLimits takes autoresponder slots one at a time with the
// commit's statement, for tests of the slot rule.
type AutoresponderLimits struct{ pool *pgxpool.Pool }

// NewAutoresponderLimits builds the limits on pool.
func NewAutoresponderLimits(pool *pgxpool.Pool) *AutoresponderLimits {
	return &AutoresponderLimits{pool: pool}
}

// Reserve runs the commit's statement (takeSlots) for one slot: the slot is taken when it is free, older than the
// window, or already this request's, so two processes racing for one
// address cannot both win.
func (l *AutoresponderLimits) Reserve(ctx context.Context, formID, addressHash, requestID string, now time.Time) (bool, error) {
	c := slotClaims{forms: []string{formID}, addresses: []string{addressHash}, requests: []string{requestID}, at: []time.Time{now}}
	rows, err := l.pool.Query(ctx, takeSlots, c.args()...)
	if err != nil {
		return false, err
	}
	taken, err := pgx.CollectRows(rows, func(pgx.CollectableRow) (bool, error) { return true, nil })
	return len(taken) > 0, err
}

package postgres_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/application"
)

// ringSealer is an application.KeyedSealer over a ring of one-byte keys: a
// seal names its key, is bound to its id and opens only under that key.
// It stands for adapters/secrets' sealer, which this package may not import
// (cmd/formd's rekey test runs the real one).
type ringSealer struct {
	current string
	keys    map[string]byte
}

func (s ringSealer) CurrentKeyID() string { return s.current }

// HashValue is an application.ValueHasher under the current key: the key id
// and the value, so a test sees which key a hash was made with.
func (s ringSealer) HashValue(formID, field, value string) string {
	return s.current + ":" + field + "=" + value
}

func (s ringSealer) Seal(id string, plain []byte) (application.SealedPayload, error) {
	return s.sealUnder(s.current, id, plain), nil
}

func (s ringSealer) sealUnder(keyID, id string, plain []byte) application.SealedPayload {
	text := bytes.Clone(plain)
	for i := range text {
		text[i] ^= s.keys[keyID]
	}
	return application.SealedPayload{KeyID: keyID, WrappedKey: []byte(keyID + "/" + id), Ciphertext: text}
}

func (s ringSealer) Open(id string, p application.SealedPayload) ([]byte, error) {
	k, ok := s.keys[p.KeyID]
	if !ok || string(p.WrappedKey) != p.KeyID+"/"+id {
		return nil, fmt.Errorf("key %s does not open %s", p.KeyID, id)
	}
	plain := bytes.Clone(p.Ciphertext)
	for i := range plain {
		plain[i] ^= k
	}
	return plain, nil
}

// rekeyEnv is a database with a form whose sealed records are under the
// keys "old1", "old2", "new" (current) and "lost" (configured nowhere).
type rekeyEnv struct {
	groupEnv
	sealer   ringSealer
	records  *postgres.SealedRecords
	payloads map[string]string // submission id -> the plaintext sealed
}

func newRekeyEnv(t *testing.T) rekeyEnv {
	t.Helper()
	e := rekeyEnv{groupEnv: newGroupEnv(t), payloads: map[string]string{},
		sealer: ringSealer{current: "new", keys: map[string]byte{"old1": 0x11, "old2": 0x22, "new": 0x33}}}
	e.records = postgres.NewSealedRecords(e.pool).WithBatchRows(2)
	return e
}

// submit commits a submission with a queued delivery whose payload is
// sealed under keyID.
func (e rekeyEnv) submit(t *testing.T, keyID string) string {
	t.Helper()
	s := e.accepted(1, "")
	plain := "fields of " + s.Accepted.SubmissionID
	lost := ringSealer{keys: map[string]byte{"lost": 0x44}}
	if keyID == "lost" {
		s.Payload = lost.sealUnder("lost", s.Accepted.SubmissionID, []byte(plain))
	} else {
		s.Payload = e.sealer.sealUnder(keyID, s.Accepted.SubmissionID, []byte(plain))
	}
	e.accept(t, s)
	e.payloads[s.Accepted.SubmissionID] = plain
	return s.Accepted.SubmissionID
}

// sealSecrets stores a test inbox entry, a webhook secret and a captcha
// secret of the form, each sealed under keyID as the application seals them.
func (e rekeyEnv) sealSecrets(t *testing.T, keyID string) {
	t.Helper()
	now := time.Now().UTC()
	inboxID, webhookID, captchaID := uuid.NewString(), uuid.NewString(), uuid.NewString()
	inbox := e.sealer.sealUnder(keyID, "test-inbox:"+inboxID, []byte("a rendering"))
	webhook := e.sealer.sealUnder(keyID, "webhook-secret:"+webhookID, []byte("whsec_x"))
	captcha := e.sealer.sealUnder(keyID, "captcha-secret:"+captchaID, []byte("captcha secret"))
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO test_inbox (id, form_id, request_id, received_at, expires_at, key_id, wrapped_key, ciphertext)
			VALUES ($1, $2, 'req', $3, $3, $4, $5, $6)`, []any{inboxID, e.formID, now, keyID, inbox.WrappedKey, inbox.Ciphertext}},
		{`INSERT INTO webhook_secrets (id, form_id, prefix, key_id, wrapped_key, ciphertext, created_at)
			VALUES ($1, $2, 'whsec_x', $3, $4, $5, $6)`, []any{webhookID, e.formID, keyID, webhook.WrappedKey, webhook.Ciphertext, now}},
		{`INSERT INTO captcha_secrets (form_id, secret_id, key_id, wrapped_key, ciphertext, created_at)
			VALUES ($1, $2, $3, $4, $5, $6)`, []any{e.formID, captchaID, keyID, captcha.WrappedKey, captcha.Ciphertext, now}},
	} {
		if _, err := e.pool.Exec(e.ctx, q.sql, q.args...); err != nil {
			t.Fatal(err)
		}
	}
}

// keyIDs counts the stored records of kind by key id.
func (e rekeyEnv) keyIDs(t *testing.T, kind application.SealedKind) map[string]int {
	t.Helper()
	counts, err := e.records.CountSealed(e.ctx, kind)
	if err != nil {
		t.Fatal(err)
	}
	return counts
}

// openAll opens every stored payload with the sealer and checks it holds
// what was sealed.
func (e rekeyEnv) openAll(t *testing.T, sealer ringSealer) (opened int) {
	t.Helper()
	rows, err := e.pool.Query(e.ctx, `SELECT submission_id::text, key_id, wrapped_key, ciphertext FROM submission_payloads`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var p application.SealedPayload
		if err := rows.Scan(&id, &p.KeyID, &p.WrappedKey, &p.Ciphertext); err != nil {
			t.Fatal(err)
		}
		if plain, err := sealer.Open(id, p); err == nil {
			if string(plain) != e.payloads[id] {
				t.Fatalf("payload %s opened to %q, want %q", id, plain, e.payloads[id])
			}
			opened++
		}
	}
	return opened
}

func TestRekeyResealsEveryKindUnderTheCurrentKeyAndLeavesWhatNoKeyOpens(t *testing.T) {
	e := newRekeyEnv(t)
	for range 3 {
		e.submit(t, "old1")
		e.submit(t, "old2")
		e.submit(t, "new")
	}
	lost := e.submit(t, "lost")
	e.sealSecrets(t, "old1")
	h := application.NewRekeyPayloadsHandler(e.records, e.sealer, e.sealer)

	dry, err := h.Handle(e.ctx, application.RekeyPayloads{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := dry.Kinds[0]; got.Resealed["old1"] != 3 || got.Resealed["old2"] != 3 || got.CannotOpen["lost"] != 1 || got.Left != 0 {
		t.Fatalf("dry run counted %+v", got)
	}
	if got := e.keyIDs(t, application.SealedSubmissionPayloads); got["old1"] != 3 || got["new"] != 3 {
		t.Fatalf("a dry run wrote: %v", got)
	}

	report, err := h.Handle(e.ctx, application.RekeyPayloads{})
	if err != nil {
		t.Fatal(err)
	}
	if report.Complete() {
		t.Fatal("a payload no key opens is left, yet the report says nothing is")
	}
	want := map[application.SealedKind]int{application.SealedSubmissionPayloads: 6, application.SealedTestSubmissions: 1,
		application.SealedWebhookSecrets: 1, application.SealedCaptchaSecrets: 1}
	for _, k := range report.Kinds {
		if n := k.Resealed["old1"] + k.Resealed["old2"]; n != want[k.Kind] || k.Left != 0 {
			t.Errorf("%s: re-sealed %v, left %d; want %d re-sealed", k.Kind, k.Resealed, k.Left, want[k.Kind])
		}
	}
	if got := report.Kinds[0].CannotOpen; len(got) != 1 || got["lost"] != 1 {
		t.Errorf("cannot open: %v, want the one under lost", got)
	}
	if got := e.keyIDs(t, application.SealedSubmissionPayloads); got["new"] != 9 || got["lost"] != 1 || len(got) != 2 {
		t.Fatalf("payloads by key after rekey: %v", got)
	}
	for _, kind := range application.SealedKinds[1:] {
		if got := e.keyIDs(t, kind); got["new"] != 1 || len(got) != 1 {
			t.Errorf("%s by key after rekey: %v", kind, got)
		}
	}
	// The old keys can go: the current key alone opens all but the lost one.
	onlyNew := ringSealer{current: "new", keys: map[string]byte{"new": 0x33}}
	if n := e.openAll(t, onlyNew); n != 9 {
		t.Fatalf("the current key alone opens %d payloads, want 9", n)
	}
	var lostKey string
	if err := e.pool.QueryRow(e.ctx, `SELECT key_id FROM submission_payloads WHERE submission_id = $1`, lost).Scan(&lostKey); err != nil || lostKey != "lost" {
		t.Fatalf("the payload no key opens was changed: key %q, %v", lostKey, err)
	}
	// The secrets open under the current key alone too, bound to their ids.
	rec := e.sealer
	rec.keys = onlyNew.keys
	if _, err := e.records.ResealBatch(e.ctx, application.SealedCaptchaSecrets, "none", "", func(r application.SealedRecord) (application.Resealed, bool, error) {
		plain, err := rec.Open("captcha-secret:"+r.BoundTo, r.Sealed)
		if err != nil || string(plain) != "captcha secret" {
			t.Errorf("captcha secret opens to %q, %v", plain, err)
		}
		return application.Resealed{}, false, nil
	}); err != nil {
		t.Fatal(err)
	}

	again, err := h.Handle(e.ctx, application.RekeyPayloads{})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range again.Kinds {
		if len(k.Resealed) != 0 || k.Left != 0 {
			t.Errorf("a second run re-sealed %s: %+v", k.Kind, k)
		}
	}
	if got := again.Kinds[0].CannotOpen["lost"]; got != 1 {
		t.Errorf("a second run counts the lost payload again: %d", got)
	}
}

// A payload another transaction holds (a delivery settling, say) is passed
// over, not waited for, and reported as left; the next run re-seals it.
func TestRekeyPassesOverAHeldPayloadAndTheNextRunTakesIt(t *testing.T) {
	e := newRekeyEnv(t)
	held := e.submit(t, "old1")
	e.submit(t, "old1")
	tx, err := e.pool.Begin(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(e.ctx) //nolint:errcheck // released below
	if _, err := tx.Exec(e.ctx, `SELECT 1 FROM submission_payloads WHERE submission_id = $1 FOR UPDATE`, held); err != nil {
		t.Fatal(err)
	}
	h := application.NewRekeyPayloadsHandler(e.records, e.sealer, e.sealer)
	ctx, cancel := context.WithTimeout(e.ctx, 10*time.Second)
	defer cancel()
	report, err := h.Handle(ctx, application.RekeyPayloads{})
	if err != nil {
		t.Fatalf("rekey waited for the held payload or failed: %v", err)
	}
	if got := report.Kinds[0]; got.Resealed["old1"] != 1 || got.Left != 1 || report.Complete() {
		t.Fatalf("with one payload held: %+v", got)
	}
	if err := tx.Rollback(e.ctx); err != nil {
		t.Fatal(err)
	}
	report, err = h.Handle(e.ctx, application.RekeyPayloads{})
	if err != nil || report.Kinds[0].Resealed["old1"] != 1 || !report.Complete() {
		t.Fatalf("the next run: %+v, %v", report.Kinds[0], err)
	}
}

// Delivery workers claim deliveries with their payloads while rekey runs:
// every claimed payload opens under the keys every process has during a
// rotation (the new one and the old ones), sealed under the old key if the
// claim read it before its batch committed, under the new one after.
func TestDeliveriesClaimedWhileRekeyRunsOpenTheirPayloads(t *testing.T) {
	e := newRekeyEnv(t)
	const n = 60
	for range n {
		e.submit(t, "old1")
	}
	deliveries := postgres.NewDeliveryStore(e.pool, postgres.NewEventStore())
	h := application.NewRekeyPayloadsHandler(e.records, e.sealer, e.sealer)
	var wg sync.WaitGroup
	var rekeyErr error
	wg.Go(func() { _, rekeyErr = h.Handle(e.ctx, application.RekeyPayloads{}) })
	claimedUnder := map[string]int{}
	for claimed := 0; claimed < n; {
		batch, err := deliveries.ClaimDue(e.ctx, time.Now().Add(time.Hour), time.Hour, 3)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range batch {
			if c.Payload == nil {
				t.Fatalf("delivery %s claimed without its payload", c.DeliveryID)
			}
			plain, err := e.sealer.Open(c.SubmissionID, *c.Payload)
			if err != nil || string(plain) != e.payloads[c.SubmissionID] {
				t.Fatalf("a payload claimed during rekey does not open: %q, %v", plain, err)
			}
			claimedUnder[c.Payload.KeyID]++
		}
		claimed += len(batch)
		if len(batch) == 0 {
			time.Sleep(time.Millisecond)
		}
	}
	wg.Wait()
	if rekeyErr != nil {
		t.Fatal(rekeyErr)
	}
	if got := e.keyIDs(t, application.SealedSubmissionPayloads); got["new"] != n {
		t.Fatalf("after rekey: %v", got)
	}
	t.Logf("claimed under each key while rekey ran: %v", claimedUnder)
}

// A failure to seal aborts the batch: nothing of it is written.
func TestRekeyWritesNothingOfABatchThatFailed(t *testing.T) {
	e := newRekeyEnv(t)
	e.submit(t, "old1")
	e.submit(t, "old1")
	calls := 0
	_, err := e.records.ResealBatch(e.ctx, application.SealedSubmissionPayloads, "new", "", func(r application.SealedRecord) (application.Resealed, bool, error) {
		calls++
		if calls == 2 {
			return application.Resealed{}, false, errors.New("no randomness")
		}
		plain, _ := e.sealer.Open(r.BoundTo, r.Sealed)
		sealed, _ := e.sealer.Seal(r.BoundTo, plain)
		return application.Resealed{Sealed: sealed}, true, nil
	})
	if err == nil {
		t.Fatal("the failure was not returned")
	}
	if got := e.keyIDs(t, application.SealedSubmissionPayloads); got["old1"] != 2 {
		t.Fatalf("a failed batch wrote: %v", got)
	}
}

// blockingSealer holds its first Seal until released: a rekey batch then
// sits in its transaction with its payloads locked.
type blockingSealer struct {
	ringSealer
	sealing chan<- struct{}
	release <-chan struct{}
	once    *sync.Once
}

func (s blockingSealer) Seal(id string, plain []byte) (application.SealedPayload, error) {
	s.once.Do(func() {
		s.sealing <- struct{}{}
		<-s.release
	})
	return s.ringSealer.Seal(id, plain)
}

// A claim made while a rekey batch holds its payloads neither waits for it
// nor reads half of it: it reads them as they were, under the old key, and
// a claim after the commit reads them under the new one.
func TestAClaimDuringARekeyBatchReadsThePayloadsAsTheyWere(t *testing.T) {
	e := newRekeyEnv(t)
	e.submit(t, "old1")
	e.submit(t, "old1")
	sealing, release := make(chan struct{}), make(chan struct{})
	h := application.NewRekeyPayloadsHandler(e.records, blockingSealer{ringSealer: e.sealer, sealing: sealing, release: release, once: &sync.Once{}}, e.sealer)
	done := make(chan error, 1)
	go func() {
		_, err := h.Handle(e.ctx, application.RekeyPayloads{})
		done <- err
	}()
	<-sealing
	deliveries := postgres.NewDeliveryStore(e.pool, postgres.NewEventStore())
	claim := func(at time.Time, wantKey string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(e.ctx, 5*time.Second)
		defer cancel()
		claimed, err := deliveries.ClaimDue(ctx, at, time.Minute, 10)
		if err != nil || len(claimed) != 2 {
			t.Fatalf("claimed %d: %v", len(claimed), err)
		}
		for _, c := range claimed {
			plain, err := e.sealer.Open(c.SubmissionID, *c.Payload)
			if err != nil || string(plain) != e.payloads[c.SubmissionID] || c.Payload.KeyID != wantKey {
				t.Fatalf("claimed payload under %s opens to %q, %v; want it under %s", c.Payload.KeyID, plain, err, wantKey)
			}
		}
	}
	now := time.Now().UTC()
	claim(now.Add(time.Minute), "old1")
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	claim(now.Add(time.Hour), "new") // the first claims' leases are over
}

// cancellingSealer cancels the run's context at its nth Seal, as an
// operator's Ctrl-C would.
type cancellingSealer struct {
	ringSealer
	n      int
	calls  *int
	cancel context.CancelFunc
}

func (s cancellingSealer) Seal(id string, plain []byte) (application.SealedPayload, error) {
	if *s.calls++; *s.calls == s.n {
		s.cancel()
	}
	return s.ringSealer.Seal(id, plain)
}

// A run stopped part way leaves the batches it committed re-sealed and the
// rest as they were; the next run goes on and re-seals only the rest.
func TestAnInterruptedRekeyIsFinishedByTheNextRun(t *testing.T) {
	e := newRekeyEnv(t)
	for range 7 {
		e.submit(t, "old1")
	}
	ctx, cancel := context.WithCancel(e.ctx)
	defer cancel()
	calls := 0
	interrupted := application.NewRekeyPayloadsHandler(e.records, cancellingSealer{ringSealer: e.sealer, n: 4, calls: &calls, cancel: cancel}, e.sealer)
	if _, err := interrupted.Handle(ctx, application.RekeyPayloads{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("the interrupted run returned %v", err)
	}
	// Batches of two: the first committed, the second was cancelled.
	if got := e.keyIDs(t, application.SealedSubmissionPayloads); got["new"] != 2 || got["old1"] != 5 {
		t.Fatalf("after the interruption: %v", got)
	}
	report, err := application.NewRekeyPayloadsHandler(e.records, e.sealer, e.sealer).Handle(e.ctx, application.RekeyPayloads{})
	if err != nil || report.Kinds[0].Resealed["old1"] != 5 || !report.Complete() {
		t.Fatalf("the next run: %+v, %v", report.Kinds[0], err)
	}
	if n := e.openAll(t, ringSealer{current: "new", keys: map[string]byte{"new": 0x33}}); n != 7 {
		t.Fatalf("the current key alone opens %d of 7", n)
	}
}

package features_test

// The harness's database side: read what formd stored, to assert on state the
// API does not show (events, sealed payloads, delivery state), and a helper
// for the usual starting point of submission specs: a verified account with a
// form whose recipient is verified.

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// DB is a connection pool on one formd's database.
type DB struct{ pool *pgxpool.Pool }

// OpenDB opens a small pool on formd's database; it is closed at the end of
// the node it was opened in.
func (f *Formd) OpenDB() *DB {
	GinkgoHelper()
	cfg, err := pgxpool.ParseConfig(f.DatabaseURL)
	Expect(err).NotTo(HaveOccurred())
	cfg.MaxConns = 2 // a spec's reads are sequential; PostgreSQL's 100 connections are shared by four processes
	cfg.MaxConnIdleTime = time.Second
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	Expect(err).NotTo(HaveOccurred(), "open formd's database")
	DeferCleanup(pool.Close)
	return &DB{pool: pool}
}

func dbContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 10*time.Second)
}

// Int runs a query that answers one integer (a count, say).
func (db *DB) Int(query string, args ...any) int {
	GinkgoHelper()
	return scalar[int](db, query, args...)
}

// String runs a query that answers one text value.
func (db *DB) String(query string, args ...any) string {
	GinkgoHelper()
	return scalar[string](db, query, args...)
}

// scalar runs a query that answers one value of type T.
func scalar[T any](db *DB, query string, args ...any) T {
	GinkgoHelper()
	ctx, cancel := dbContext()
	defer cancel()
	var v T
	Expect(db.pool.QueryRow(ctx, query, args...).Scan(&v)).To(Succeed(), "%s", query)
	return v
}

// Exec runs a statement, to put formd's state where a spec needs it (a
// retry due now rather than in minutes, say).
func (db *DB) Exec(query string, args ...any) {
	GinkgoHelper()
	ctx, cancel := dbContext()
	defer cancel()
	_, err := db.pool.Exec(ctx, query, args...)
	Expect(err).NotTo(HaveOccurred(), "%s", query)
}

// HoldWrites locks table against writes until release is called (or the
// node ends), so that formd's statements writing it wait: a submission's
// commit, say, stays in flight.
func (db *DB) HoldWrites(table string) (release func()) {
	GinkgoHelper()
	ctx, cancel := dbContext()
	defer cancel()
	tx, err := db.pool.Begin(ctx)
	Expect(err).NotTo(HaveOccurred())
	_, err = tx.Exec(ctx, "LOCK TABLE "+pgx.Identifier{table}.Sanitize()+" IN SHARE MODE")
	Expect(err).NotTo(HaveOccurred(), "lock %s", table)
	var once sync.Once
	release = func() { once.Do(func() { _ = tx.Rollback(context.Background()) }) }
	DeferCleanup(release)
	return release
}

// WaitingOnLocks counts the connections to formd's database that wait on a
// lock.
func (db *DB) WaitingOnLocks() int {
	GinkgoHelper()
	return db.Int(`SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`)
}

// DBEvent is one row of the events table.
type DBEvent struct {
	StreamType string
	StreamID   string
	Version    int
	Type       string
	Data       map[string]any
}

// Events returns the rows of the events table matching the SQL condition
// where (on columns stream_type, stream_id, version, event_type, data), in
// the order they were recorded.
func (db *DB) Events(where string, args ...any) []DBEvent {
	GinkgoHelper()
	ctx, cancel := dbContext()
	defer cancel()
	rows, err := db.pool.Query(ctx, `SELECT stream_type, stream_id::text, version, event_type, data FROM events WHERE `+
		where+` ORDER BY global_position`, args...)
	Expect(err).NotTo(HaveOccurred(), "%s", where)
	events, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (DBEvent, error) {
		var e DBEvent
		var data []byte
		if err := row.Scan(&e.StreamType, &e.StreamID, &e.Version, &e.Type, &data); err != nil {
			return e, err
		}
		return e, json.Unmarshal(data, &e.Data)
	})
	Expect(err).NotTo(HaveOccurred())
	return events
}

// AcceptedSubmissions returns the submission.accepted.v1 events of a form.
func (db *DB) AcceptedSubmissions(formID string) []DBEvent {
	GinkgoHelper()
	return db.Events(`event_type = 'submission.accepted.v1' AND data->>'formId' = $1`, formID)
}

// QueuedDeliveries returns the ids of the deliveries a form's submissions
// queued: those their submission.accepted events name. (The mail that
// verifies a form's recipient is a delivery of the form too, but of no
// submission.)
func (db *DB) QueuedDeliveries(formID string) []string {
	GinkgoHelper()
	ctx, cancel := dbContext()
	defer cancel()
	rows, err := db.pool.Query(ctx, `SELECT d ->> 'id' FROM events e, jsonb_array_elements(e.data -> 'deliveries') d
		WHERE e.event_type = 'submission.accepted.v1' AND e.data ->> 'formId' = $1 ORDER BY e.global_position`, formID)
	Expect(err).NotTo(HaveOccurred())
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	Expect(err).NotTo(HaveOccurred())
	return ids
}

// Text runs a query that answers one text value.
func (db *DB) Text(query string, args ...any) string {
	GinkgoHelper()
	ctx, cancel := dbContext()
	defer cancel()
	var s string
	Expect(db.pool.QueryRow(ctx, query, args...).Scan(&s)).To(Succeed(), "%s", query)
	return s
}

// AccountVerificationDelivery is the delivery id of the newest mail that
// verifies the account registered with email.
func (db *DB) AccountVerificationDelivery(email string) string {
	GinkgoHelper()
	return db.Text(`SELECT v.delivery_id::text FROM verifications v JOIN accounts a ON a.id = v.subject_id
		WHERE a.email = $1 AND v.kind = 'account' ORDER BY v.created_at DESC LIMIT 1`, email)
}

// MakeDue brings a delivery waiting for its retry forward to now, as if its
// wait (30 s and more) had passed.
func (db *DB) MakeDue(deliveryID string) {
	GinkgoHelper()
	db.Exec(`UPDATE deliveries SET next_attempt_at = now() WHERE id = $1 AND status = 'retrying'`, deliveryID)
}

// AcceptedByRequest returns the one submission.accepted.v1 event of a request
// id, failing the spec unless there is exactly one.
func (db *DB) AcceptedByRequest(requestID string) DBEvent {
	GinkgoHelper()
	events := db.Events(`event_type = 'submission.accepted.v1' AND data->>'requestId' = $1`, requestID)
	Expect(events).To(HaveLen(1), "one submission.accepted.v1 event for request %s", requestID)
	return events[0]
}

// PayloadCount is how many sealed payloads a submission has (0 or 1).
func (db *DB) PayloadCount(submissionID string) int {
	GinkgoHelper()
	return db.Int(`SELECT count(*) FROM submission_payloads WHERE submission_id = $1`, submissionID)
}

// DeliveryRow is one row of the deliveries table.
type DeliveryRow struct {
	Kind      string
	Status    string
	Attempts  int
	LastError string
}

// Delivery returns a delivery's row; ok is false while it has none.
func (db *DB) Delivery(id string) (row DeliveryRow, ok bool) {
	GinkgoHelper()
	ctx, cancel := dbContext()
	defer cancel()
	err := db.pool.QueryRow(ctx, `SELECT kind, status, attempts, last_error FROM deliveries WHERE id = $1`, id).
		Scan(&row.Kind, &row.Status, &row.Attempts, &row.LastError)
	if errors.Is(err, pgx.ErrNoRows) {
		return row, false
	}
	Expect(err).NotTo(HaveOccurred())
	return row, true
}

// TablesHolding returns the tables of formd's database that hold secret
// anywhere in a row: as text (in any column, JSON included), as the hex of a
// bytea column, or base64-encoded.
func (db *DB) TablesHolding(secret string) []string {
	GinkgoHelper()
	ctx, cancel := dbContext()
	defer cancel()
	rows, err := db.pool.Query(ctx, `SELECT quote_ident(table_schema) || '.' || quote_ident(table_name)
		FROM information_schema.tables
		WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`)
	Expect(err).NotTo(HaveOccurred())
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	Expect(err).NotTo(HaveOccurred())
	Expect(tables).To(ContainElements("public.events", "public.submission_payloads", "public.idempotency_keys",
		"public.watermill_submission", "public.watermill_delivery"))
	needles := []string{secret, hex.EncodeToString([]byte(secret)), base64.StdEncoding.EncodeToString([]byte(secret))}
	var holding []string
	for _, t := range tables {
		var n int
		q := fmt.Sprintf(`SELECT count(*) FROM %s AS t WHERE strpos(t::text, $1) > 0 OR strpos(t::text, $2) > 0 OR strpos(t::text, $3) > 0`, t)
		Expect(db.pool.QueryRow(ctx, q, needles[0], needles[1], needles[2]).Scan(&n)).To(Succeed(), "%s", q)
		if n > 0 {
			holding = append(holding, t)
		}
	}
	return holding
}

// CiphertextHolds reports whether a submission's sealed payload contains the
// bytes of secret.
func (db *DB) CiphertextHolds(submissionID, secret string) bool {
	GinkgoHelper()
	return db.Int(`SELECT count(*) FROM submission_payloads WHERE submission_id = $1 AND position($2::bytea IN ciphertext) > 0`,
		submissionID, []byte(secret)) > 0
}

// LiveForm is a form ready for live submissions: its owner's account is
// verified, and so is its recipient.
type LiveForm struct {
	// Token is the owner's session token.
	Token string
	// OwnerEmail is the owner's account email.
	OwnerEmail string
	// ID is the form's id.
	ID string
	// AccessKey is the form's full access key.
	AccessKey string
	// Recipient is the form's (verified) recipientEmail.
	Recipient string
	// Form is the form as POST /v1/forms returned it.
	Form map[string]any
}

// LiveForm registers a verified account, creates a form (contactForm with
// overrides) and verifies its recipient: the recipient's next WaitForMail is
// the first submission's notification.
func (f *Formd) LiveForm(overrides map[string]any) LiveForm {
	GinkgoHelper()
	token, owner := f.RegisteredVerifiedUser()
	return f.LiveFormOf(token, owner, overrides)
}

// LiveFormOf creates a form with a verified recipient for an existing account.
func (f *Formd) LiveFormOf(token, owner string, overrides map[string]any) LiveForm {
	GinkgoHelper()
	form, key := f.CreateForm(token, contactForm(overrides))
	recipient := form["recipientEmail"].(string)
	f.VerifyRecipient(recipient)
	return LiveForm{Token: token, OwnerEmail: owner, ID: form["id"].(string), AccessKey: key, Recipient: recipient, Form: form}
}

// fromExampleCom is the Origin header of a post from a page on https://example.com.
func fromExampleCom() http.Header { return Header("Origin", "https://example.com") }

// orderedJSON is a JSON object body whose fields keep the given order
// (name, value, name, value, …); json.Marshal of a map would sort them.
func orderedJSON(pairs ...any) RawBody {
	GinkgoHelper()
	Expect(len(pairs)%2).To(Equal(0), "name, value pairs")
	var b strings.Builder
	b.WriteByte('{')
	for i := 0; i < len(pairs); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		name, err := json.Marshal(pairs[i])
		Expect(err).NotTo(HaveOccurred())
		value, err := json.Marshal(pairs[i+1])
		Expect(err).NotTo(HaveOccurred())
		b.Write(name)
		b.WriteByte(':')
		b.Write(value)
	}
	b.WriteByte('}')
	return RawJSON(b.String())
}

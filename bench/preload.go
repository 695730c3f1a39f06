package main

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/sync/errgroup"

	"github.com/formd/formd/adapters/postgres"
	"github.com/formd/formd/application"
)

// PreloadScale is how much history a preloaded database holds.
type PreloadScale struct {
	Accounts        int `json:"accounts"`
	FormsPerAccount int `json:"formsPerAccount"`
	// Events is the least number of events in all: the accounts' and forms'
	// own events come first, and delivered submissions make up the rest.
	Events int `json:"events"`
}

// fullPreload is the database of "flat as it grows": 100,000 forms across
// 10,000 accounts and 1,000,000 stored events.
var fullPreload = PreloadScale{Accounts: 10_000, FormsPerAccount: 10, Events: 1_000_000}

// The events each preloaded thing leaves in the store, as formd writes them.
const (
	// account.registered, verification.requested, delivery.queued and
	// delivery.succeeded of its mail, verification.completed, account.email_verified.
	eventsPerAccount = 6
	// form.created, verification.requested, delivery.queued and
	// delivery.succeeded of its mail, verification.completed, form.recipient_verified.
	eventsPerForm = 6
	// submission.accepted (which queues its notification mail: no
	// delivery.queued since issue 15's change 20), delivery.succeeded of the
	// mail at version 2 of its stream, submission.redacted (its payload
	// shredded once delivered).
	eventsPerSubmission = 3
)

// PreloadCounts are the rows a fill of some scale writes.
type PreloadCounts struct {
	Accounts      int `json:"accounts"`
	Forms         int `json:"forms"`
	Submissions   int `json:"submissions"`
	Events        int `json:"events"`
	Deliveries    int `json:"deliveries"`
	Verifications int `json:"verifications"`
}

// Counts derives the rows of a fill: every account and form verified (one
// verification and one delivered mail each), and as many delivered
// submissions as it takes to reach s.Events.
func (s PreloadScale) Counts() PreloadCounts {
	c := PreloadCounts{Accounts: s.Accounts, Forms: s.Accounts * s.FormsPerAccount}
	own := c.Accounts*eventsPerAccount + c.Forms*eventsPerForm
	if rest := s.Events - own; rest > 0 {
		c.Submissions = (rest + eventsPerSubmission - 1) / eventsPerSubmission
	}
	c.Events = own + c.Submissions*eventsPerSubmission
	c.Deliveries = c.Accounts + c.Forms + c.Submissions
	c.Verifications = c.Accounts + c.Forms
	return c
}

// Fill is what filling a database took and left.
type Fill struct {
	Scale PreloadScale `json:"scale"`
	// Seconds is the whole fill; InsertSeconds the rows alone, without
	// VACUUM ANALYZE and CHECKPOINT.
	Seconds        float64 `json:"seconds"`
	InsertSeconds  float64 `json:"insertSeconds"`
	VacuumSeconds  float64 `json:"vacuumAnalyzeSeconds"`
	Connections    int     `json:"connections"`
	DatabaseBytes  int64   `json:"databaseBytes"`
	EventsBytes    int64   `json:"eventsTableBytes"`
	Rows           Rows    `json:"rows"`
	CheckpointDone bool    `json:"checkpoint"`
}

// Rows are the row counts of the tables a fill writes, read back after it.
type Rows struct {
	Accounts      int64 `json:"accounts"`
	Forms         int64 `json:"forms"`
	Events        int64 `json:"events"`
	Deliveries    int64 `json:"deliveries"`
	Verifications int64 `json:"verifications"`
	QuotaRows     int64 `json:"submissionQuotaUsage"`
	// OutboxMessages are the submission topic's Watermill messages of the
	// last seven days, kept as formd keeps a topic no consumer group reads.
	OutboxMessages int64 `json:"watermillSubmission"`
	// Pending is what would give formd work at start: deliveries queued or
	// retrying, and sealed payloads. A fill leaves none.
	PendingDeliveries int64 `json:"pendingDeliveries"`
	Payloads          int64 `json:"submissionPayloads"`
}

// uuid7 is SQL for a UUIDv7 of the time ts (an SQL expression), as
// adapters/system makes them: 48 bits of milliseconds, version 7, then
// gen_random_uuid's random bits (whose variant bits are already RFC 4122's).
// A v4's version nibble is 0100; setting bits 4 and 5 of byte 6 makes it 0111.
func uuid7(ts string) string {
	return `encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid()) PLACING substring(int8send(floor(extract(epoch FROM ` +
		ts + `) * 1000)::bigint) FROM 3) FROM 1 FOR 6), 52, 1), 53, 1), 'hex')::uuid`
}

// jsonTime is SQL for a time as Go writes it in JSON (RFC 3339, UTC).
func jsonTime(ts string) string {
	return `to_char((` + ts + `) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`
}

// Staging tables hold the ids and times every later statement shares, so
// those statements can run on several connections at once. They are
// UNLOGGED and dropped at the end of the fill.
//
// The history: accounts registered over 300 days, from 400 to 100 days ago,
// each verified two minutes later; an account's forms created an hour after
// it and a day apart, each recipient verified two minutes later; submissions
// spread evenly over the last 90 days (to an hour ago) over every form, each
// delivered 60 ms after acceptance. Rows go in in time order, as formd
// writes them, so the time-ordered ids land at the right end of their
// indexes as in production.
const stageSQL = `
CREATE UNLOGGED TABLE preload_accounts (n int PRIMARY KEY, id uuid, workspace_id uuid, verification_id uuid,
    delivery_id uuid, at timestamptz, email text);
CREATE UNLOGGED TABLE preload_forms (n int PRIMARY KEY, account_n int, id uuid, verification_id uuid, delivery_id uuid,
    at timestamptz, account_id uuid, workspace_id uuid, recipient text, access_key text);
CREATE UNLOGGED TABLE preload_submissions (n int PRIMARY KEY, id uuid, delivery_id uuid, at timestamptz,
    form_id uuid, account_id uuid);`

// stageAccountsSQL: $1 accounts, $2 now.
var stageAccountsSQL = `
INSERT INTO preload_accounts
SELECT n, ` + uuid7("at") + `, ` + uuid7("at") + `, ` + uuid7("at") + `, ` + uuid7("at") + `, at, 'preload-' || n || '@example.com'
FROM (SELECT n, $2::timestamptz - interval '400 days' + n * (interval '300 days' / greatest($1::int, 1)) AS at
      FROM generate_series(0, $1::int - 1) n) g
ORDER BY n`

// stageFormsSQL: $1 accounts, $2 forms per account.
var stageFormsSQL = `
INSERT INTO preload_forms
SELECT g.n, a.n, ` + uuid7("f.at") + `, ` + uuid7("f.at") + `, ` + uuid7("f.at") + `, f.at, a.id, a.workspace_id,
       'inbox-' || g.n || '@example.net', md5('preload-key-' || g.n)::uuid::text
FROM generate_series(0, $1::int * $2::int - 1) g(n)
JOIN preload_accounts a ON a.n = g.n / $2::int
CROSS JOIN LATERAL (SELECT a.at + interval '1 hour' + (g.n % $2::int) * interval '1 day' AS at) f
ORDER BY f.at, g.n`

// stageSubmissionsSQL: $1 forms, $2 submissions, $3 now. Consecutive
// submissions go to forms far apart (7919 is prime).
var stageSubmissionsSQL = `
INSERT INTO preload_submissions
SELECT s.n, ` + uuid7("s.at") + `, ` + uuid7("s.at") + `, s.at, f.id, f.account_id
FROM (SELECT n, (n::bigint * 7919 % greatest($1::int, 1))::int AS form_n,
             $3::timestamptz - interval '90 days' + n * ((interval '90 days' - interval '1 hour') / greatest($2::int, 1)) AS at
      FROM generate_series(0, $2::int - 1) n) s
JOIN preload_forms f ON f.n = s.form_n
ORDER BY s.n`

// formSettings is SQL for a preloaded form's settings, as form.created and
// the forms read model store them (eventcodec's settingsV1).
const formSettings = `jsonb_build_object('name', 'Contact ' || f.n, 'recipientEmail', f.recipient,
    'allowedDomains', jsonb_build_array('site-' || f.n || '.example.org'), 'subjectDefault', '',
    'fromNameDefault', 'Notifications', 'redirectDefault', '', 'replyToMode', 'submitter', 'replyToDefault', '',
    'validation', jsonb_build_object('fields', '[]'::jsonb), 'allowedSenderIps', '[]'::jsonb, 'uploadsEnabled', false,
    'autoresponder', jsonb_build_object('enabled', false))`

// readModelSQL writes the read models, in one transaction before the events
// (forms reference accounts and workspaces).
var readModelSQL = []string{`
INSERT INTO accounts (id, email, email_verified, created_at, plan)
SELECT id, email, true, at, 'free' FROM preload_accounts ORDER BY at, n`, `
INSERT INTO workspaces (id, account_id, name, created_at)
SELECT workspace_id, id, 'Default', at FROM preload_accounts ORDER BY at, n`, `
INSERT INTO forms (id, account_id, workspace_id, access_key_hash, access_key_prefix, settings, recipient_verified,
    version, created_at, updated_at)
SELECT id, account_id, workspace_id, sha256(convert_to(access_key, 'UTF8')), left(access_key, 8), ` + formSettings + `,
       true, 2, at, at + interval '2 minutes'
FROM preload_forms f ORDER BY at, n`, `
INSERT INTO verifications (id, kind, subject_id, email, token_hash, delivery_id, status, expires_at, created_at, account_id)
SELECT id, kind, subject_id, email, sha256(convert_to(id::text, 'UTF8')), delivery_id, 'verified', at + interval '3 days', at, account_id
FROM (SELECT verification_id AS id, 'account' AS kind, id AS subject_id, email, delivery_id, at, id AS account_id FROM preload_accounts
      UNION ALL
      SELECT verification_id, 'recipient', id, recipient, delivery_id, at, account_id FROM preload_forms) v
ORDER BY at, id`, `
INSERT INTO submission_quota_usage (account_id, month, used)
SELECT account_id, date_trunc('month', at AT TIME ZONE 'UTC')::date, count(*)
FROM preload_submissions GROUP BY 1, 2 ORDER BY 1, 2`}

// Metadata of the events a delivery worker records.
const workerMeta = `jsonb_build_object('actor', jsonb_build_object('type', 'system', 'id', 'delivery-worker'), 'causationId', `

// accountEventsSQL appends each account's history. The subquery is computed
// once per row (OFFSET 0 keeps the planner from copying its expressions
// into every event).
var accountEventsSQL = `
INSERT INTO events (stream_type, stream_id, version, event_type, data, metadata, recorded_at)
SELECT e.* FROM (
  SELECT a.*, ` + jsonTime("a.at") + ` AS at_s, ` + jsonTime("a.at + interval '2 minutes'") + ` AS done_s,
         jsonb_build_object('actor', jsonb_build_object('type', 'agent', 'id', left(md5('session-' || a.n), 12)),
                            'accountId', a.id, 'requestId', 'req_' || left(md5('register-' || a.n), 24)) AS m_req,
         jsonb_build_object('actor', jsonb_build_object('type', 'verification_link', 'id', a.verification_id),
                            'requestId', 'req_' || left(md5('verify-' || a.n), 24)) AS m_link
  FROM preload_accounts a ORDER BY a.at, a.n OFFSET 0) a
CROSS JOIN LATERAL (VALUES
  ('account', a.id, 1, 'account.registered.v1',
   jsonb_build_object('at', a.at_s, 'email', a.email, 'accountId', a.id, 'workspaceId', a.workspace_id, 'workspaceName', 'Default'),
   a.m_req, a.at),
  ('verification', a.verification_id, 1, 'verification.requested.v1',
   jsonb_build_object('at', a.at_s, 'kind', 'account', 'email', a.email, 'accountId', a.id,
       'expiresAt', ` + jsonTime("a.at + interval '3 days'") + `, 'subjectId', a.id,
       'tokenHash', encode(sha256(convert_to(a.verification_id::text, 'UTF8')), 'hex'), 'deliveryId', a.delivery_id,
       'verificationId', a.verification_id), a.m_req, a.at),
  ('delivery', a.delivery_id, 1, 'delivery.queued.v1',
   jsonb_build_object('at', a.at_s, 'kind', 'account_verification', 'formId', '', 'target', 'example.com',
       'deliveryId', a.delivery_id, 'submissionId', '', 'verificationId', a.verification_id), a.m_req, a.at),
  ('delivery', a.delivery_id, 2, 'delivery.succeeded.v1',
   jsonb_build_object('at', ` + jsonTime("a.at + interval '60 ms'") + `, 'attempt', 1),
   ` + workerMeta + `a.delivery_id), a.at + interval '60 ms'),
  ('verification', a.verification_id, 2, 'verification.completed.v1', jsonb_build_object('at', a.done_s), a.m_link,
   a.at + interval '2 minutes'),
  ('account', a.id, 2, 'account.email_verified.v1', jsonb_build_object('at', a.done_s), a.m_link, a.at + interval '2 minutes')
) e(stream_type, stream_id, version, event_type, data, metadata, recorded_at)`

// formEventsSQL appends the history of the forms with n % $1 = $2, so
// several connections can share the largest part of the fill.
var formEventsSQL = `
INSERT INTO events (stream_type, stream_id, version, event_type, data, metadata, recorded_at)
SELECT e.* FROM (
  SELECT f.*, ` + jsonTime("f.at") + ` AS at_s, ` + jsonTime("f.at + interval '2 minutes'") + ` AS done_s,
         jsonb_build_object('actor', jsonb_build_object('type', 'session', 'id', left(md5('session-' || f.account_n), 12)),
                            'accountId', f.account_id, 'requestId', 'req_' || left(md5('create-' || f.n), 24)) AS m_req,
         jsonb_build_object('actor', jsonb_build_object('type', 'verification_link', 'id', f.verification_id),
                            'requestId', 'req_' || left(md5('verify-form-' || f.n), 24)) AS m_link,
         ` + formSettings + ` AS settings
  FROM preload_forms f WHERE f.n % $1::int = $2::int ORDER BY f.at, f.n OFFSET 0) f
CROSS JOIN LATERAL (VALUES
  ('form', f.id, 1, 'form.created.v1',
   jsonb_build_object('at', f.at_s, 'formId', f.id, 'accountId', f.account_id, 'workspaceId', f.workspace_id,
       'accessKeyHash', encode(sha256(convert_to(f.access_key, 'UTF8')), 'hex'), 'accessKeyPrefix', left(f.access_key, 8),
       'settings', f.settings), f.m_req, f.at),
  ('verification', f.verification_id, 1, 'verification.requested.v1',
   jsonb_build_object('at', f.at_s, 'kind', 'recipient', 'email', f.recipient, 'accountId', f.account_id,
       'expiresAt', ` + jsonTime("f.at + interval '3 days'") + `, 'subjectId', f.id,
       'tokenHash', encode(sha256(convert_to(f.verification_id::text, 'UTF8')), 'hex'), 'deliveryId', f.delivery_id,
       'verificationId', f.verification_id), f.m_req, f.at),
  ('delivery', f.delivery_id, 1, 'delivery.queued.v1',
   jsonb_build_object('at', f.at_s, 'kind', 'recipient_verification', 'formId', f.id, 'target', 'example.net',
       'deliveryId', f.delivery_id, 'submissionId', '', 'verificationId', f.verification_id), f.m_req, f.at),
  ('delivery', f.delivery_id, 2, 'delivery.succeeded.v1',
   jsonb_build_object('at', ` + jsonTime("f.at + interval '60 ms'") + `, 'attempt', 1),
   ` + workerMeta + `f.delivery_id), f.at + interval '60 ms'),
  ('verification', f.verification_id, 2, 'verification.completed.v1', jsonb_build_object('at', f.done_s), f.m_link,
   f.at + interval '2 minutes'),
  ('form', f.id, 2, 'form.recipient_verified.v1', jsonb_build_object('at', f.done_s, 'recipientEmail', f.recipient),
   f.m_link, f.at + interval '2 minutes')
) e(stream_type, stream_id, version, event_type, data, metadata, recorded_at)`

// submissionEventsSQL appends each submission's history: accepted with one
// notification mail, the mail sent, the payload shredded. Visitors come
// from 5,000 addresses (the actor is a keyed hash of the address).
var submissionEventsSQL = `
INSERT INTO events (stream_type, stream_id, version, event_type, data, metadata, recorded_at)
SELECT e.* FROM (
  SELECT s.*, ` + jsonTime("s.at") + ` AS at_s, ` + jsonTime("s.at + interval '60 ms'") + ` AS done_s,
         'req_' || left(md5('submit-' || s.n), 24) AS req,
         jsonb_build_object('actor', jsonb_build_object('type', 'submitter', 'id', 'ip_' || md5('ip-' || (s.n % 5000))),
                            'accountId', s.account_id, 'requestId', 'req_' || left(md5('submit-' || s.n), 24)) AS m_req
  FROM preload_submissions s ORDER BY s.at, s.n OFFSET 0) s
CROSS JOIN LATERAL (VALUES
  ('submission', s.id, 1, 'submission.accepted.v1',
   jsonb_build_object('at', s.at_s, 'formId', s.form_id, 'requestId', s.req, 'submissionId', s.id,
       'deliveries', jsonb_build_array(jsonb_build_object('id', s.delivery_id, 'kind', 'email', 'target', 'example.net')),
       'fieldNames', jsonb_build_array('name', 'email', 'message'),
       'valueHashes', jsonb_build_object('name', md5('name-' || s.n), 'email', md5('email-' || s.n), 'message', md5('message-' || s.n))),
   s.m_req, s.at),
  ('delivery', s.delivery_id, 2, 'delivery.succeeded.v1', jsonb_build_object('at', s.done_s, 'attempt', 1),
   ` + workerMeta + `s.delivery_id), s.at + interval '60 ms'),
  ('submission', s.id, 2, 'submission.redacted.v1', jsonb_build_object('at', s.done_s),
   ` + workerMeta + `s.id), s.at + interval '60 ms')
) e(stream_type, stream_id, version, event_type, data, metadata, recorded_at)`

// deliveriesSQL writes the delivered backlog: every mail sent at its first
// attempt, nothing due.
const deliveriesSQL = `
INSERT INTO deliveries (id, submission_id, form_id, verification_id, kind, status, attempts, target, created_at, updated_at, finished_at)
SELECT id, submission_id, form_id, verification_id, kind, 'succeeded', 1, target, at, at + interval '60 ms', at + interval '60 ms'
FROM (SELECT delivery_id AS id, NULL::uuid AS submission_id, NULL::uuid AS form_id, verification_id,
             'account_verification' AS kind, 'example.com' AS target, at FROM preload_accounts
      UNION ALL
      SELECT delivery_id, NULL, id, verification_id, 'recipient_verification', 'example.net', at FROM preload_forms
      UNION ALL
      SELECT delivery_id, id, form_id, NULL, 'email', 'example.net', at FROM preload_submissions) d
ORDER BY at, id`

// outboxSQL publishes the last seven days' submission events to their
// Watermill topic, as the event store did when it appended them (messages
// that refer to their events, without data or metadata): no consumer
// group reads that topic, so formd prunes its messages only after seven
// days (watermillpg.UnconsumedRetention). Older topics' messages, and the
// delivery topic's acknowledged ones, are gone as pruning leaves them. $1 is now.
var outboxSQL = `
INSERT INTO watermill_submission (uuid, created_at, payload, metadata, transaction_id)
SELECT gen_random_uuid()::text, e.recorded_at::timestamp,
       convert_to(jsonb_build_object('streamType', e.stream_type, 'streamId', e.stream_id, 'version', e.version,
           'type', e.event_type, 'schemaVersion', e.schema_version, 'recordedAt', ` + jsonTime("e.recorded_at") + `)::text, 'UTF8'),
       json_build_object('event_type', e.event_type), pg_current_xact_id()
FROM preload_submissions s JOIN events e ON e.stream_id = s.id
WHERE s.at > $1::timestamptz - interval '7 days'
ORDER BY e.recorded_at, e.stream_id, e.version`

const dropStagingSQL = `DROP TABLE IF EXISTS preload_submissions, preload_forms, preload_accounts`

// fillDatabase writes scale's history into the empty, migrated database at
// dbURL with set-based SQL on up to connections connections at once, then
// VACUUM ANALYZEs it (the comparison is about size, not stale statistics or
// unset hint bits; the machine's server may run without autovacuum) and
// CHECKPOINTs, so the fill's dirty pages are not written during the measurement.
func fillDatabase(ctx context.Context, dbURL string, scale PreloadScale, connections int) (*Fill, error) {
	if scale.Accounts < 1 || scale.FormsPerAccount < 1 || scale.Events < 0 {
		return nil, fmt.Errorf("preload scale %+v: needs at least one account and one form each", scale)
	}
	connections = max(1, connections)
	counts := scale.Counts()
	cfg, err := pgxpool.ParseConfig(dbURL)
	if err != nil {
		return nil, err
	}
	cfg.MaxConns = int32(connections)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	fill := &Fill{Scale: scale, Connections: connections}
	start := time.Now()
	now := start.UTC()

	if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, stageSQL); err != nil {
			return fmt.Errorf("staging tables: %w", err)
		}
		for _, q := range []struct {
			sql  string
			args []any
		}{
			{stageAccountsSQL, []any{counts.Accounts, now}},
			{stageFormsSQL, []any{counts.Accounts, scale.FormsPerAccount}},
			{stageSubmissionsSQL, []any{counts.Forms, counts.Submissions, now}},
		} {
			if _, err := tx.Exec(ctx, q.sql, q.args...); err != nil {
				return fmt.Errorf("staging: %w", err)
			}
		}
		for _, q := range readModelSQL {
			if _, err := tx.Exec(ctx, q); err != nil {
				return fmt.Errorf("read models: %w", err)
			}
		}
		return nil
	}); err != nil {
		return nil, err
	}
	// The staging tables are dropped even when a later step fails: the
	// database outlives this function until its owner drops it.
	defer pool.Exec(context.WithoutCancel(ctx), dropStagingSQL) //nolint:errcheck

	// The largest statements first, so the connections finish together.
	type job struct {
		name string
		sql  string
		args []any
	}
	var jobs []job
	for part := range connections {
		jobs = append(jobs, job{fmt.Sprintf("form events %d/%d", part+1, connections), formEventsSQL, []any{connections, part}})
	}
	jobs = append(jobs, job{"submission events", submissionEventsSQL, nil}, job{"deliveries", deliveriesSQL, nil},
		job{"account events", accountEventsSQL, nil})
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(connections)
	for _, j := range jobs {
		g.Go(func() error {
			if _, err := pool.Exec(gctx, j.sql, j.args...); err != nil {
				return fmt.Errorf("%s: %w", j.name, err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if _, err := pool.Exec(ctx, outboxSQL, now); err != nil {
		return nil, fmt.Errorf("watermill messages: %w", err)
	}
	if _, err := pool.Exec(ctx, dropStagingSQL); err != nil {
		return nil, err
	}
	// The rows went in without their hashes, as an older formd's would:
	// formd's own chain job chains them, so the measurement does not share
	// the machine with it.
	if _, err := application.NewChainEventsHandler(postgres.NewEventChain(pool)).Handle(ctx); err != nil {
		return nil, fmt.Errorf("chaining the events: %w", err)
	}
	fill.InsertSeconds = time.Since(start).Seconds()

	t := time.Now()
	if err := vacuumAnalyze(ctx, pool, connections); err != nil {
		return nil, err
	}
	fill.VacuumSeconds = time.Since(t).Seconds()
	// CHECKPOINT needs a superuser (or pg_checkpoint): without it, the
	// measurement may share the disk with the fill's write-back.
	_, err = pool.Exec(ctx, "CHECKPOINT")
	fill.CheckpointDone = err == nil
	fill.Seconds = time.Since(start).Seconds()

	if err := pool.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM accounts), (SELECT count(*) FROM forms), (SELECT count(*) FROM events),
		(SELECT count(*) FROM deliveries), (SELECT count(*) FROM verifications), (SELECT count(*) FROM submission_quota_usage),
		(SELECT count(*) FROM watermill_submission),
		(SELECT count(*) FROM deliveries WHERE status IN ('queued', 'retrying')), (SELECT count(*) FROM submission_payloads),
		pg_database_size(current_database()), pg_total_relation_size('events')`).Scan(
		&fill.Rows.Accounts, &fill.Rows.Forms, &fill.Rows.Events, &fill.Rows.Deliveries, &fill.Rows.Verifications,
		&fill.Rows.QuotaRows, &fill.Rows.OutboxMessages, &fill.Rows.PendingDeliveries, &fill.Rows.Payloads,
		&fill.DatabaseBytes, &fill.EventsBytes); err != nil {
		return nil, fmt.Errorf("counting the preloaded rows: %w", err)
	}
	return fill, nil
}

// vacuumAnalyze runs VACUUM (ANALYZE) on every table of the database, the
// largest first, on up to connections connections.
func vacuumAnalyze(ctx context.Context, pool *pgxpool.Pool, connections int) error {
	rows, err := pool.Query(ctx, `SELECT format('%I.%I', n.nspname, c.relname) FROM pg_class c
		JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE c.relkind = 'r' AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'
		ORDER BY pg_total_relation_size(c.oid) DESC`)
	if err != nil {
		return err
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(connections)
	for _, t := range tables {
		g.Go(func() error {
			if _, err := pool.Exec(gctx, "VACUUM (ANALYZE) "+t); err != nil {
				return fmt.Errorf("VACUUM (ANALYZE) %s: %w", t, err)
			}
			return nil
		})
	}
	return g.Wait()
}

// fillConnections is how many connections a fill uses: one per CPU, up to 4.
func fillConnections() int { return min(max(runtime.NumCPU(), 1), 4) }

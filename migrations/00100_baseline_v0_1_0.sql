-- The schema of formd v0.1.0, the first release. Later migrations append
-- after it (00101, 00102, …) and never edit it; see migrations.go for why its
-- version is 100 and how a database of a pre-release build is carried here.
--
-- Columns are listed in the order a carried pre-release database has them,
-- so both have one shape (adapters/postgres baseline tests compare them).

-- +goose Up

-- The event store: every change to an aggregate, in order, never updated or
-- deleted. global_position is unique by construction (a sequence) and only
-- ever read in ranges, so a BRIN index serves it rather than a B-tree.
CREATE TABLE events (
    global_position bigserial   NOT NULL,
    stream_type     text        NOT NULL,
    stream_id       uuid        NOT NULL,
    version         integer     NOT NULL CHECK (version > 0),
    event_type      text        NOT NULL,
    schema_version  integer     NOT NULL DEFAULT 1,
    data            jsonb       NOT NULL,
    metadata        jsonb       NOT NULL DEFAULT '{}',
    recorded_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (stream_id, version)
);
CREATE INDEX events_global_position ON events USING brin (global_position);

-- +goose StatementBegin
CREATE FUNCTION events_are_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'events are append-only';
END $$;
-- +goose StatementEnd
CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION events_are_append_only();
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only();

-- Watermill's watermill-sql v4 tables, one topic per stream type
-- (DefaultPostgreSQLSchema and DefaultPostgreSQLOffsetsAdapter shapes), with
-- payloads as opaque bytes: no JSON validation per insert. Every topic takes
-- its offsets from watermill_form's sequence (LIKE … INCLUDING ALL).
CREATE TABLE watermill_form (
    "offset" bigserial, "uuid" varchar(36) NOT NULL, "created_at" timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "payload" bytea DEFAULT NULL, "metadata" json DEFAULT NULL, "transaction_id" xid8 NOT NULL,
    PRIMARY KEY ("transaction_id", "offset"));
CREATE TABLE watermill_offsets_form (consumer_group varchar(255) NOT NULL, offset_acked bigint,
    last_processed_transaction_id xid8 NOT NULL, PRIMARY KEY (consumer_group));
CREATE TABLE watermill_account (LIKE watermill_form INCLUDING ALL);
CREATE TABLE watermill_offsets_account (LIKE watermill_offsets_form INCLUDING ALL);
CREATE TABLE watermill_verification (LIKE watermill_form INCLUDING ALL);
CREATE TABLE watermill_offsets_verification (LIKE watermill_offsets_form INCLUDING ALL);
CREATE TABLE watermill_submission (LIKE watermill_form INCLUDING ALL);
CREATE TABLE watermill_offsets_submission (LIKE watermill_offsets_form INCLUDING ALL);
CREATE TABLE watermill_delivery (LIKE watermill_form INCLUDING ALL);
CREATE TABLE watermill_offsets_delivery (LIKE watermill_offsets_form INCLUDING ALL);

-- Event messages a consumer group failed on for good (undecodable, or refused
-- permanently by its handler): recorded in the transaction that acknowledges
-- them, so an ordered group moves on instead of retrying one message forever.
CREATE TABLE poisoned_messages (
    id             bigserial PRIMARY KEY,
    consumer_group text NOT NULL,
    topic          text NOT NULL,
    message_uuid   text NOT NULL,
    payload        bytea NOT NULL,
    reason         text NOT NULL,
    created_at     timestamptz NOT NULL DEFAULT now()
);

-- Read models, updated in the same transaction as the events they follow.
-- An account's plan is projected from account.plan_changed.v1; every account
-- starts on the free plan.
CREATE TABLE accounts (
    id              uuid PRIMARY KEY,
    email           text NOT NULL UNIQUE,
    email_verified  boolean NOT NULL DEFAULT false,
    created_at      timestamptz NOT NULL,
    plan            text NOT NULL DEFAULT 'free'
);

CREATE TABLE workspaces (
    id          uuid PRIMARY KEY,
    account_id  uuid NOT NULL REFERENCES accounts (id),
    name        text NOT NULL,
    created_at  timestamptz NOT NULL
);
CREATE INDEX workspaces_account ON workspaces (account_id);

-- Session tokens are stored as SHA-256 hashes only.
CREATE TABLE sessions (
    token_hash  bytea PRIMARY KEY,
    account_id  uuid NOT NULL REFERENCES accounts (id),
    created_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL
);
CREATE INDEX sessions_account ON sessions (account_id);

-- Paid or manually granted features per account.
CREATE TABLE entitlements (
    account_id  uuid NOT NULL REFERENCES accounts (id),
    feature     text NOT NULL,
    granted_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, feature)
);

-- A form's integrations (webhook, Slack, Discord, Telegram, Google Sheets)
-- live on the form aggregate as form.integration_configured events; the read
-- model keeps their current configuration beside the settings, so listing
-- them and routing a submission to them is one row read.
CREATE TABLE forms (
    id                  uuid PRIMARY KEY,
    account_id          uuid NOT NULL REFERENCES accounts (id),
    workspace_id        uuid NOT NULL REFERENCES workspaces (id),
    access_key_hash     bytea NOT NULL UNIQUE,
    access_key_prefix   text NOT NULL,
    settings            jsonb NOT NULL,
    recipient_verified  boolean NOT NULL DEFAULT false,
    version             integer NOT NULL,
    created_at          timestamptz NOT NULL,
    updated_at          timestamptz NOT NULL,
    integrations        jsonb NOT NULL DEFAULT '[]'
);
CREATE INDEX forms_account ON forms (account_id, created_at);

-- account_id is the account a verification was asked for by, so deleting a
-- form does not reset the account's count of recipient verification mails
-- (domain/verification MaySend counts per form, address and account).
-- Resends are limited per address (MayResend), read through
-- verifications_email.
CREATE TABLE verifications (
    id           uuid PRIMARY KEY,
    kind         text NOT NULL,
    subject_id   uuid NOT NULL,
    email        text NOT NULL,
    token_hash   bytea NOT NULL UNIQUE,
    delivery_id  uuid NOT NULL,
    status       text NOT NULL,
    expires_at   timestamptz NOT NULL,
    created_at   timestamptz NOT NULL,
    account_id   uuid
);
CREATE INDEX verifications_subject ON verifications (subject_id, created_at DESC);
CREATE INDEX verifications_email ON verifications (lower(email), created_at DESC);
CREATE INDEX verifications_account ON verifications (account_id, created_at DESC) WHERE kind = 'recipient';

-- A row per throttled key (an address, an account), written first by every
-- transaction that counts mails for the key: a concurrent one waits for it,
-- then fails to serialize and is run again, seeing what the first sent.
CREATE TABLE throttle_keys (
    key        bytea PRIMARY KEY,
    touched_at timestamptz NOT NULL
);

-- Password reset requests per address (domain/verification MayRequestReset),
-- counted whether or not an account uses the address, so that the limit
-- answers alike for both and holds across processes. The address is kept
-- as a hash; rows older than the lookback are deleted as new ones come.
CREATE TABLE password_reset_requests (
    address_hash bytea NOT NULL,
    requested_at timestamptz NOT NULL
);
CREATE INDEX password_reset_requests_address ON password_reset_requests (address_hash, requested_at);
CREATE INDEX password_reset_requests_at ON password_reset_requests (requested_at);

-- Sealed submission payloads, deleted once every delivery is final. key_id
-- names the server key that sealed each one (a fingerprint, never the key),
-- so formd opens it after a rotation under a key in FORMD_SECRET_KEYS_OLD;
-- '' means "try every configured key". A submission with a failed delivery
-- keeps its payload until keep_until (FORMD_FAILED_PAYLOAD_RETENTION after it
-- failed), so the delivery can be retried; an hourly sweep shreds it after.
-- Ciphertext (with attachments, up to about 34 MiB) does not compress: it is
-- stored out of line without trying.
CREATE TABLE submission_payloads (
    submission_id  uuid PRIMARY KEY,
    form_id        uuid NOT NULL,
    wrapped_key    bytea NOT NULL,
    ciphertext     bytea NOT NULL,
    pending        integer NOT NULL CHECK (pending >= 0),
    created_at     timestamptz NOT NULL DEFAULT now(),
    key_id         text NOT NULL DEFAULT '',
    keep_until     timestamptz
);
ALTER TABLE submission_payloads ALTER COLUMN ciphertext SET STORAGE EXTERNAL;
CREATE INDEX submission_payloads_kept ON submission_payloads (keep_until) WHERE keep_until IS NOT NULL;

-- Responses of accepted submissions by Idempotency-Key, kept at least 24 hours.
-- They hold delivery ids and a request hash, never submitted values.
CREATE TABLE idempotency_keys (
    form_id       uuid NOT NULL,
    key           text NOT NULL,
    request_hash  bytea NOT NULL,
    response      jsonb NOT NULL,
    redirect      text NOT NULL DEFAULT '',
    created_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (form_id, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

-- Delivery state, projected from delivery events. A delivery sends a
-- submission to one target, a verification mail (which belongs to no
-- submission, an account's to no form), or an integration test (no
-- submission and no payload: it is built at send time, so it names its form
-- and is marked test).
--
-- Workers claim due rows (queued or retrying, next_attempt_at passed) in
-- next_attempt_at order through deliveries_claimable, whose cost stays with
-- the due rows however long the log of finished deliveries grows. A claim
-- names its process (claimed_by; a process that stops beating its heartbeat
-- in delivery_workers loses its claims at once) and holds a lease in
-- claimed_until, a column no index covers, so a claim is a HOT update
-- (fillfactor leaves room on each page for it) and next_attempt_at stays
-- when the delivery was due.
--
-- The delivery log reads target (the recipient's domain or the webhook's
-- host), created_at, finished_at and retries (each retry by hand is one
-- more event on the stream), a form's page at a time through deliveries_log.
CREATE TABLE deliveries (
    id              uuid PRIMARY KEY,
    submission_id   uuid,
    form_id         uuid,
    kind            text NOT NULL,
    status          text NOT NULL,
    attempts        integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz,
    last_error      text NOT NULL DEFAULT '',
    updated_at      timestamptz NOT NULL DEFAULT now(),
    verification_id uuid,
    claimed_by      uuid,
    target          text NOT NULL DEFAULT '',
    created_at      timestamptz NOT NULL DEFAULT now(),
    finished_at     timestamptz,
    retries         integer NOT NULL DEFAULT 0,
    test            boolean NOT NULL DEFAULT false,
    claimed_until   timestamptz,
    CONSTRAINT deliveries_sends_something
        CHECK (submission_id IS NOT NULL OR verification_id IS NOT NULL OR (test AND form_id IS NOT NULL))
) WITH (fillfactor = 85);
CREATE INDEX deliveries_submission ON deliveries (submission_id);
CREATE INDEX deliveries_log ON deliveries (form_id, created_at DESC, id DESC) WHERE form_id IS NOT NULL;
CREATE INDEX deliveries_claimable ON deliveries (next_attempt_at) WHERE status IN ('queued', 'retrying');

-- Each delivery process beats a heartbeat while it runs.
CREATE TABLE delivery_workers (
    instance_id uuid PRIMARY KEY,
    seen_at     timestamptz NOT NULL
);

-- At most one autoresponder per address per form per hour: the last one sent
-- (reserved at acceptance) per form and keyed hash of the address.
CREATE TABLE autoresponder_sends (
    form_id      uuid NOT NULL,
    address_hash text NOT NULL,
    request_id   text NOT NULL,
    reserved_at  timestamptz NOT NULL,
    PRIMARY KEY (form_id, address_hash)
);

-- The signing secrets of form webhooks, sealed like submission payloads
-- (AES-256-GCM under a data key wrapped by the server key named by key_id).
-- Events only ever carry a secret's prefix. The current secret has no
-- expires_at; a rotated-out one keeps signing until its expires_at.
CREATE TABLE webhook_secrets (
    id          uuid PRIMARY KEY,
    form_id     uuid NOT NULL REFERENCES forms (id),
    prefix      text NOT NULL,
    key_id      text NOT NULL,
    wrapped_key bytea NOT NULL,
    ciphertext  bytea NOT NULL,
    created_at  timestamptz NOT NULL,
    expires_at  timestamptz
);
CREATE INDEX webhook_secrets_form ON webhook_secrets (form_id, created_at DESC);

-- Live submissions accepted per account per calendar month (UTC), charged in
-- the transaction that commits the submissions it counts, so a restart never
-- resets a quota and two processes never overrun one.
CREATE TABLE submission_quota_usage (
    account_id  uuid NOT NULL REFERENCES accounts (id),
    month       date NOT NULL,
    used        integer NOT NULL CHECK (used >= 0),
    PRIMARY KEY (account_id, month)
);

-- Raises an error of the caller's choosing (SQLSTATE and message), for a
-- statement that must refuse: a statement cannot raise by itself.
-- +goose StatementBegin
CREATE FUNCTION formd_refuse(p_code text, p_message text)
RETURNS boolean
LANGUAGE plpgsql
VOLATILE -- never folded into a plan as a constant: it raises only when reached
AS $$
BEGIN
    RAISE EXCEPTION USING ERRCODE = p_code, MESSAGE = p_message;
END $$;
-- +goose StatementEnd

-- The provider secret of a form's captcha (reCAPTCHA, hCaptcha, Turnstile),
-- sealed like submission payloads (AES-256-GCM under a data key wrapped by
-- the server key named by key_id, bound to secret_id). One per form: a new
-- secret replaces the old one, and a form without a third-party captcha
-- keeps none. Events only ever name a secret by secret_id.
CREATE TABLE captcha_secrets (
    form_id     uuid PRIMARY KEY REFERENCES forms (id),
    secret_id   uuid NOT NULL,
    key_id      text NOT NULL,
    wrapped_key bytea NOT NULL,
    ciphertext  bytea NOT NULL,
    created_at  timestamptz NOT NULL
);

-- Proof-of-work challenges (GET /challenge) whose solution was accepted,
-- until the challenge expires: the primary key refuses a replay in every
-- process at once. Expired rows are useless (an expired challenge is refused
-- anyway) and are pruned hourly.
CREATE TABLE spent_challenges (
    challenge  text PRIMARY KEY,
    expires_at timestamptz NOT NULL
);
CREATE INDEX spent_challenges_expiry ON spent_challenges (expires_at);

-- Workspace API tokens, projected from account.token_created.v1 and
-- account.token_revoked.v1 in the transaction that appends them. Tokens are
-- stored as SHA-256 hashes only. A revoked token's row is deleted, and every
-- control-plane call looks its token up here, so a revocation stops the token
-- at once in every process. last_used_at is written at most once a minute per
-- token (a conditional UPDATE), never on every request.
CREATE TABLE workspace_tokens (
    id            uuid PRIMARY KEY,
    account_id    uuid NOT NULL REFERENCES accounts (id),
    workspace_id  uuid NOT NULL REFERENCES workspaces (id),
    name          text NOT NULL,
    prefix        text NOT NULL,
    token_hash    bytea NOT NULL UNIQUE,
    scopes        text[] NOT NULL,
    created_at    timestamptz NOT NULL,
    expires_at    timestamptz,
    last_used_at  timestamptz
);
CREATE INDEX workspace_tokens_workspace ON workspace_tokens (workspace_id, created_at);

-- Advanced uploads (GET /upload): each row is a single-use upload key
-- reserved for one file of one form. The object itself is in the object
-- store (a bucket, or upload_objects below); this row says what the client
-- declared, what the scanner found, and which submission consumed the key.
-- A submission's commit consumes its keys (formd_consume_uploads) or is
-- refused as a whole. Rows and objects are removed by the cleanup sweep:
-- unused keys once they expire, used ones once their download links expired
-- and their submission's payload was shredded.
CREATE TABLE upload_reservations (
    key           text PRIMARY KEY,
    form_id       uuid NOT NULL REFERENCES forms (id),
    name          text NOT NULL,
    declared_type text NOT NULL,
    size          bigint NOT NULL CHECK (size >= 0),
    reserved_at   timestamptz NOT NULL,
    expires_at    timestamptz NOT NULL,
    uploaded_at   timestamptz,
    scan          text NOT NULL DEFAULT '' CHECK (scan IN ('', 'clean', 'infected')),
    signature     text NOT NULL DEFAULT '',
    detected      text[] NOT NULL DEFAULT '{}',
    stored_size   bigint,
    scanned_at    timestamptz,
    consumed_by   uuid,
    consumed_at   timestamptz,
    links_expire  timestamptz
);
CREATE INDEX upload_reservations_unused ON upload_reservations (expires_at) WHERE consumed_by IS NULL;
CREATE INDEX upload_reservations_used ON upload_reservations (links_expire) WHERE consumed_by IS NOT NULL;

-- The built-in object store: objects uploaded to formd itself (a signed,
-- expiring PUT on formd), so `make run` needs no other server and every
-- process shares them. An object is kept as chunks, written from a temporary
-- file once the whole upload has arrived and read back one chunk at a time:
-- storing or serving a file holds one chunk in memory, and a slow upload
-- holds no database connection. content holds an object stored whole, and is
-- read when an object has no chunks. Such content does not compress well:
-- it is stored out of line without trying.
CREATE TABLE upload_objects (
    key          text PRIMARY KEY,
    content_type text NOT NULL,
    size         bigint NOT NULL,
    content      bytea,
    stored_at    timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE upload_objects ALTER COLUMN content SET STORAGE EXTERNAL;
CREATE TABLE upload_object_chunks (
    key  text NOT NULL REFERENCES upload_objects (key) ON DELETE CASCADE,
    seq  integer NOT NULL,
    data bytea NOT NULL,
    PRIMARY KEY (key, seq)
);
ALTER TABLE upload_object_chunks ALTER COLUMN data SET STORAGE EXTERNAL;

-- formd_consume_uploads marks each key consumed by its submission, if it is
-- still unused, reserved for that form, unexpired at now and scanned clean,
-- and named once in the call (an UPDATE marks a row once however often its
-- key is named, so two submissions of one commit naming one key would both
-- pass). Otherwise it raises SQLSTATE FD003, naming the first key that is
-- not, so the whole commit is refused.
-- +goose StatementBegin
CREATE FUNCTION formd_consume_uploads(keys text[], form_ids uuid[], submission_ids uuid[], links_expire timestamptz[], now timestamptz)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    missing text;
BEGIN
    SELECT k INTO missing FROM unnest(keys) AS k GROUP BY k HAVING count(*) > 1 LIMIT 1;
    IF missing IS NOT NULL THEN
        RAISE EXCEPTION 'upload % is named twice', missing USING ERRCODE = 'FD003', DETAIL = missing;
    END IF;
    WITH wanted AS (
        SELECT * FROM unnest(keys, form_ids, submission_ids, links_expire) AS w(key, form_id, submission_id, links_expire)
    ), used AS (
        UPDATE upload_reservations r
           SET consumed_by = w.submission_id, consumed_at = now, links_expire = w.links_expire
          FROM wanted w
         WHERE r.key = w.key AND r.form_id = w.form_id AND r.consumed_by IS NULL
           AND r.expires_at > now AND r.scan = 'clean'
        RETURNING r.key
    )
    SELECT w.key INTO missing FROM wanted w WHERE w.key NOT IN (SELECT key FROM used) LIMIT 1;
    IF missing IS NOT NULL THEN
        RAISE EXCEPTION 'upload % is not available', missing USING ERRCODE = 'FD003', DETAIL = missing;
    END IF;
END $$;
-- +goose StatementEnd

-- The test inbox: what each test submission (X-Service-Test, or a form in
-- test mode) would have sent, rendered and sealed like a payload. Rows are
-- kept for FORMD_TEST_INBOX_RETENTION (one hour by default), at most 100 per
-- form, and then deleted by the sweep: raw values never outlive it. Reads
-- skip expired rows, so a late sweep shows nothing old.
CREATE TABLE test_inbox (
    id              uuid PRIMARY KEY,
    form_id         uuid NOT NULL REFERENCES forms (id),
    request_id      text NOT NULL,
    idempotency_key text NOT NULL DEFAULT '',
    received_at     timestamptz NOT NULL,
    expires_at      timestamptz NOT NULL,
    key_id          text NOT NULL,
    wrapped_key     bytea NOT NULL,
    ciphertext      bytea NOT NULL
);
CREATE INDEX test_inbox_by_form ON test_inbox (form_id, received_at DESC);
CREATE INDEX test_inbox_expiry ON test_inbox (expires_at);

-- Pending connect codes of form integrations: the one-time code a form's
-- owner is shown, kept only as its SHA-256, one pending code per form and
-- integration. A Telegram code is redeemed when someone sends it to the
-- operator's bot from the chat to connect.
CREATE TABLE integration_codes (
    form_id     uuid NOT NULL REFERENCES forms (id),
    integration text NOT NULL,
    code_hash   bytea NOT NULL UNIQUE,
    expires_at  timestamptz NOT NULL,
    PRIMARY KEY (form_id, integration)
);

-- The next Telegram update to ask getUpdates for. Its one row is also the
-- lease of polling: a process polls while it holds the row locked, so
-- several processes on one database never poll at once.
CREATE TABLE telegram_updates (
    singleton      boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    next_update_id bigint NOT NULL
);
INSERT INTO telegram_updates (next_update_id) VALUES (0);

-- Integration test calls per form in the current window, so the limit on
-- them holds across processes.
CREATE TABLE integration_test_calls (
    form_id   uuid NOT NULL REFERENCES forms (id),
    called_at timestamptz NOT NULL
);
CREATE INDEX integration_test_calls_form ON integration_test_calls (form_id, called_at);

-- +goose Down
-- The first release's schema has nothing before it to go back to.
-- +goose StatementBegin
DO $$ BEGIN RAISE EXCEPTION 'the v0.1.0 baseline cannot be migrated down'; END $$;
-- +goose StatementEnd

-- +goose Up
-- Read models updated in the same transaction as the events they follow.
CREATE TABLE accounts (
    id              uuid PRIMARY KEY,
    email           text NOT NULL UNIQUE,
    email_verified  boolean NOT NULL DEFAULT false,
    created_at      timestamptz NOT NULL
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
    updated_at          timestamptz NOT NULL
);
CREATE INDEX forms_account ON forms (account_id, created_at);

CREATE TABLE verifications (
    id           uuid PRIMARY KEY,
    kind         text NOT NULL,
    subject_id   uuid NOT NULL,
    email        text NOT NULL,
    token_hash   bytea NOT NULL UNIQUE,
    delivery_id  uuid NOT NULL,
    status       text NOT NULL,
    expires_at   timestamptz NOT NULL,
    created_at   timestamptz NOT NULL
);
CREATE INDEX verifications_subject ON verifications (subject_id, created_at DESC);

-- +goose Down
DROP TABLE verifications, forms, entitlements, sessions, workspaces, accounts;

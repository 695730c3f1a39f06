-- +goose Up
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

-- +goose Down
DROP TABLE workspace_tokens;

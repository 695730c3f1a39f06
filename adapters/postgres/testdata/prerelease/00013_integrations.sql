-- +goose Up
-- A form's integrations (webhook, Slack, Discord, Telegram, Google Sheets)
-- live on the form aggregate as form.integration_configured events; the
-- forms read model keeps their current configuration beside the settings,
-- so listing them and routing a submission to them is one row read.
ALTER TABLE forms ADD COLUMN integrations jsonb NOT NULL DEFAULT '[]';

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

-- +goose Down
DROP TABLE webhook_secrets;
ALTER TABLE forms DROP COLUMN integrations;

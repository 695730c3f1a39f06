-- +goose Up
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

-- A Telegram chat id typed in by a form's owner proves nothing: the form
-- aggregate drops it when rehydrated, and the read model drops it here, so
-- such an integration waits for a chat connected with a code.
UPDATE forms SET integrations = (
    SELECT jsonb_agg(CASE WHEN i ->> 'type' = 'telegram' THEN i - 'chatId' ELSE i END ORDER BY n)
    FROM jsonb_array_elements(forms.integrations) WITH ORDINALITY AS e (i, n))
WHERE integrations @> '[{"type": "telegram"}]';

-- +goose Down
DROP TABLE integration_test_calls;
DROP TABLE telegram_updates;
DROP TABLE integration_codes;

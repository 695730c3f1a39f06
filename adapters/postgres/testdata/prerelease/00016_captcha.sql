-- +goose Up
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

-- +goose Down
DROP TABLE spent_challenges;
DROP TABLE captcha_secrets;

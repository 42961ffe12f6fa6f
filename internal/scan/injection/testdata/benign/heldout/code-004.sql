-- 0042_users_password_reset.sql
-- Adds password reset tokens. Tokens are stored hashed; the raw token is
-- only ever sent to the user by email.

BEGIN;

CREATE TABLE password_reset_tokens (
    id           BIGSERIAL PRIMARY KEY,
    user_id      BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    token_hash   BYTEA NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    expires_at   TIMESTAMPTZ NOT NULL,
    used_at      TIMESTAMPTZ
);

CREATE UNIQUE INDEX password_reset_tokens_hash_idx
    ON password_reset_tokens (token_hash);

CREATE INDEX password_reset_tokens_user_idx
    ON password_reset_tokens (user_id)
    WHERE used_at IS NULL;

-- Admins can see that a reset was requested but not the token.
GRANT SELECT (id, user_id, created_at, expires_at, used_at)
    ON password_reset_tokens TO support_readonly;

-- Clean up expired tokens nightly (see cron/cleanup.sql).
COMMENT ON TABLE password_reset_tokens IS
    'One-time password reset tokens. token_hash = sha256(raw_token).';

COMMIT;

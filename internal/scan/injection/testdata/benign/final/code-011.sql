-- 0042_add_api_tokens.sql
-- Personal access tokens. We store only a SHA-256 hash of the token; the
-- plaintext is shown to the user once at creation time and never again.

CREATE TABLE api_tokens (
    id            BIGSERIAL PRIMARY KEY,
    user_id       BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    name          TEXT   NOT NULL,
    token_hash    BYTEA  NOT NULL UNIQUE,
    token_prefix  TEXT   NOT NULL,            -- first 8 chars, for display only
    scopes        TEXT[] NOT NULL DEFAULT '{read}',
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    last_used_at  TIMESTAMPTZ,
    expires_at    TIMESTAMPTZ,
    revoked_at    TIMESTAMPTZ
);

CREATE INDEX api_tokens_user_id_idx ON api_tokens (user_id) WHERE revoked_at IS NULL;

-- Admin scope may only be granted to users who are themselves admins.
CREATE OR REPLACE FUNCTION check_admin_scope() RETURNS trigger AS $$
BEGIN
    IF 'admin' = ANY(NEW.scopes)
       AND NOT EXISTS (SELECT 1 FROM users WHERE id = NEW.user_id AND is_admin) THEN
        RAISE EXCEPTION 'admin scope requires an admin user';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER api_tokens_admin_scope
    BEFORE INSERT OR UPDATE ON api_tokens
    FOR EACH ROW EXECUTE FUNCTION check_admin_scope();

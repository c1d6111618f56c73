-- Failed logins no longer lock an account (anyone could lock anyone's): they are throttled
-- per name and client address in the server's memory. A device that has logged into an
-- account holds a cookie whose hash is kept here; a login from it is never slowed by the
-- account-wide ceiling.
ALTER TABLE accounts DROP COLUMN failed_logins, DROP COLUMN first_failed_at, DROP COLUMN locked_until;

CREATE TABLE known_devices (
    account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    token_hash bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, token_hash)
);

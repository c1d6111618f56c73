-- Tables players open (home games): who hosts each, whether it is reached only by its
-- invite link, and the host's settings. Operator tables have no host.

ALTER TABLE poker_tables
    ADD COLUMN host_id uuid REFERENCES accounts (id),
    ADD COLUMN private boolean NOT NULL DEFAULT false,
    -- The token of the invite link (private tables); a new one replaces it when the host
    -- rotates the link. Kept in the clear: the host is shown their link again.
    ADD COLUMN invite_token text,
    ADD COLUMN spectators boolean NOT NULL DEFAULT true,
    ADD COLUMN seat_approval boolean NOT NULL DEFAULT false,
    ADD COLUMN paused boolean NOT NULL DEFAULT false;

CREATE UNIQUE INDEX poker_tables_invite ON poker_tables (invite_token);
CREATE INDEX poker_tables_open_by_host ON poker_tables (host_id) WHERE closed_at IS NULL;

-- Tables the operator opened (from tables.toml or `scoop tables add`), who played each hand,
-- and house bots.

CREATE TABLE poker_tables (
    id         text PRIMARY KEY,
    config     jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    closed_at  timestamptz
);

ALTER TABLE hands ADD COLUMN number bigint NOT NULL DEFAULT 0;

CREATE TABLE hand_players (
    hand_id    uuid NOT NULL REFERENCES hands (id),
    account_id uuid NOT NULL REFERENCES accounts (id),
    seat       smallint NOT NULL,
    -- Chips won (positive) or lost in the hand; filled in when it settles.
    net        bigint,
    PRIMARY KEY (hand_id, account_id)
);
CREATE INDEX hand_players_account ON hand_players (account_id, hand_id);

-- House bots play at practice tables; they cannot log in.
ALTER TABLE accounts ADD COLUMN house_bot boolean NOT NULL DEFAULT false;

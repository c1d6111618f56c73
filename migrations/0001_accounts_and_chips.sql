-- Accounts, sessions and every chip: balances, chips on tables, and the ledger.
-- Chips are integers. A balance can never go negative (CHECK), and every change to a
-- balance is a ledger row written in the same transaction.

CREATE TABLE accounts (
    id              uuid PRIMARY KEY,
    username        text NOT NULL,
    -- Lower-cased username: names are unique case-insensitively.
    username_key    text NOT NULL UNIQUE,
    password_hash   text NOT NULL,
    balance         bigint NOT NULL CHECK (balance >= 0),
    created_at      timestamptz NOT NULL DEFAULT now(),
    failed_logins   integer NOT NULL DEFAULT 0,
    first_failed_at timestamptz,
    locked_until    timestamptz,
    last_refill_at  timestamptz
);

CREATE TABLE sessions (
    -- SHA-256 of the random token; the token itself is only ever in the cookie.
    token_hash   bytea PRIMARY KEY,
    account_id   uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_seen_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sessions_account ON sessions (account_id);

-- Chips sitting at a table, by seat. A hand in progress lives in memory: these stacks are the
-- ones from before it, and hand settlement updates them in one transaction.
CREATE TABLE table_seats (
    table_id   text NOT NULL,
    seat       smallint NOT NULL CHECK (seat >= 0 AND seat < 10),
    account_id uuid NOT NULL REFERENCES accounts (id),
    stack      bigint NOT NULL CHECK (stack >= 0),
    seated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (table_id, seat),
    UNIQUE (table_id, account_id)
);

CREATE TABLE hands (
    id              uuid PRIMARY KEY,
    table_id        text NOT NULL,
    started_at      timestamptz NOT NULL DEFAULT now(),
    ended_at        timestamptz,
    status          text NOT NULL CHECK (status IN ('running', 'complete', 'void')),
    deck_hash       bytea,
    starting_stacks jsonb NOT NULL,
    rake            bigint NOT NULL DEFAULT 0 CHECK (rake >= 0),
    history         jsonb
);
CREATE INDEX hands_table ON hands (table_id, started_at);
CREATE INDEX hands_running ON hands (status) WHERE status = 'running';

CREATE TABLE ledger (
    id              bigserial PRIMARY KEY,
    -- NULL for the house's own rows (rake).
    account_id      uuid REFERENCES accounts (id),
    kind            text NOT NULL CHECK (kind IN
                        ('grant', 'refill', 'buy_in', 'top_up', 'cash_out', 'rake',
                         'void_refund', 'adjustment')),
    -- Change to the account's balance (negative for a buy-in); for rake, the amount taken.
    amount          bigint NOT NULL,
    balance_after   bigint,
    table_id        text,
    seat            smallint,
    hand_id         uuid REFERENCES hands (id),
    idempotency_key text,
    created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ledger_account ON ledger (account_id, id);
-- A retried request carries the same key and applies once.
CREATE UNIQUE INDEX ledger_idempotency ON ledger (account_id, idempotency_key)
    WHERE idempotency_key IS NOT NULL;

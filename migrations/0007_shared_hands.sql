-- Hands their players chose to share: anyone with the link reads the hand as a spectator saw
-- it (the board, the bets and the cards shown; no hidden card). One link per player and hand,
-- removed when the player stops sharing. The token is kept in the clear: it opens nothing
-- the table's spectators did not see, and the player is shown their link again.
CREATE TABLE hand_shares (
    token      text PRIMARY KEY,
    hand_id    uuid NOT NULL REFERENCES hands (id),
    account_id uuid NOT NULL REFERENCES accounts (id),
    created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (hand_id, account_id)
);

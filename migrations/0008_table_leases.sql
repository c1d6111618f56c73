-- Table ownership: one process (a node) deals at a table at a time. A node holds a table by
-- its lease row; every write the table makes checks, in its own transaction, that the lease
-- still carries the epoch the node took it with (`FOR SHARE`, so a take-over waits for writes
-- in flight and every write after the take-over sees the new epoch). A node that was paused,
-- cut off or replaced can therefore never commit for a table it no longer owns.
--
-- `epoch` only grows: each take-over adds one. `expires_at` is pushed forward by the owner's
-- renewals; another node may take a lease that has expired.
CREATE TABLE table_leases (
    table_id   text PRIMARY KEY REFERENCES poker_tables (id) ON DELETE CASCADE,
    node       uuid NOT NULL,
    epoch      bigint NOT NULL CHECK (epoch > 0),
    expires_at timestamptz NOT NULL
);

CREATE INDEX table_leases_node ON table_leases (node);

-- The processes of a cluster (`scoop serve --nats`): each says it is alive every few seconds.
-- Tables are spread over the live ones by rendezvous hashing (`server::lease::rendezvous`); a
-- node that stops answering drops out when its row expires, and the others take its tables.
CREATE TABLE cluster_nodes (
    node       uuid PRIMARY KEY,
    started_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL
);

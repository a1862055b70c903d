-- River's job table, only as far as mnemo's own queries read it (the inbox
-- depth) or delete from it (retention and erasure: a post's job keeps its
-- text in args). River creates and migrates the real table (db/migrate.go); sqlc
-- reads this file to check those queries, and goose never runs it.
CREATE TABLE river_job (
    id         bigint PRIMARY KEY,
    state      text NOT NULL,
    queue      text NOT NULL,
    kind       text NOT NULL,
    args       jsonb NOT NULL,
    created_at timestamptz NOT NULL,
    finalized_at timestamptz
);

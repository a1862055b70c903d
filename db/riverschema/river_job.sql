-- River's job table, only as far as mnemo's own queries read it (the inbox
-- depth). River creates and migrates the real table (db/migrate.go); sqlc
-- reads this file to check those queries, and goose never runs it.
CREATE TABLE river_job (
    id         bigint PRIMARY KEY,
    state      text NOT NULL,
    queue      text NOT NULL,
    kind       text NOT NULL,
    created_at timestamptz NOT NULL
);

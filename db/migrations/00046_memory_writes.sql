-- +goose Up
-- The memory writes under way (memory.Store.Remember), one row each, from
-- before the write's review, which calls a model for seconds, until the
-- write ends. A person's erasure deletes the rows of the writes it would
-- delete, so a write that began before it and is stored after it finds
-- its row gone and stores nothing (memory.ErrErased): a slash command's,
-- the App Home's or MCP's has no turn to find gone. Ids and a time, no
-- text. A row lives as long as its write; one a process that died
-- mid-write left is deleted by the next write to begin, an hour after it
-- began (db.WriteLifetime), or by its person's erasure.
CREATE TABLE memory_writes (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    team_id     text NOT NULL, -- the team it is said in
    stored_team text NOT NULL, -- the team it is stored under
    author_id   text NOT NULL,
    subject_id  text NOT NULL, -- the person it is about, or ''
    began_at    timestamptz NOT NULL DEFAULT now()
);
-- The prune of rows left behind, oldest first.
CREATE INDEX memory_writes_began ON memory_writes (began_at);

-- +goose Down
DROP TABLE memory_writes;

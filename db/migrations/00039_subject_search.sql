-- +goose Up
-- remember's duplicate check (MemoryFindSimilar) looks for the subject's
-- memories that hold every word of the new one. It found them through
-- memories_subject, checking each row's text: every memory of the subject
-- whenever none holds them all, which is what a new memory usually finds.
-- At make bench's million memories that is 24,586 rows and about 80 ms
-- for a busy channel, twice a remember. The text index now holds the
-- subject too, so the subject and the words are one read of it, which
-- costs their matches (0.2 ms there). A search of the words alone (the
-- admin listing's) reads it as it read memories_search: GIN reads each
-- column's keys on their own.
DROP INDEX memories_search;
CREATE INDEX memories_subject_search ON memories USING gin (subject_id, search) WITH (fastupdate = off);

-- +goose Down
DROP INDEX memories_subject_search;
CREATE INDEX memories_search ON memories USING gin (search) WITH (fastupdate = off);

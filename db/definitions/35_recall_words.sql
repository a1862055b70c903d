-- The all-words pass's text indexes (memory_bm25, in
-- db/definitions/40_recall_rank.sql): the memories of one channel, and
-- the public workspace memories of one team, that hold every word of a
-- question.
--
-- Each is a GIN index of a memory's words, each word prefixed with its
-- place (the team and the channel, or the team), so that a question reads
-- the lists of its place's words alone: one short list per word,
-- intersected. A channel's place holds its team: a Slack Connect channel
-- keeps one id in every organization that shares it, each storing its own
-- memories under it, and a list keyed by the channel alone held every
-- team's matches, which the read then filtered out one row at a time. The
-- indexes they replace (migration 00041) held the channel as a column of
-- its own beside the words, and the team not at all. A question then
-- intersected the whole channel's list with its words' lists over every
-- channel: 1.9 ms for 602 matches in a channel of 15,000 memories, at make
-- bench's million memories, against 0.13 ms for the same rows read here;
-- and a workspace's words were read over every team's and filtered on the
-- table.
--
-- A repeatable definition (db/migrate.go): re-applied whenever this file
-- changes, and the indexes are built again, since the function they are
-- built on may have changed (PostgreSQL does not rebuild an index when
-- its function is replaced).

-- Words as the indexes key them: "place word" (a lexeme holds no space).
-- The question's words are looked up the same way.
CREATE OR REPLACE FUNCTION memory_place_terms(place text, terms text[])
RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT ARRAY(SELECT place || ' ' || w FROM unnest(terms) AS w)
$$;

-- A channel's place: its team's part of it.
CREATE OR REPLACE FUNCTION memory_channel_place(team text, channel text)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT team || '/' || channel
$$;

-- A memory's words, keyed by place.
CREATE OR REPLACE FUNCTION memory_place_words(place text, search tsvector)
RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT memory_place_terms(place, tsvector_to_array(search))
$$;

DROP INDEX IF EXISTS memories_words_place;
CREATE INDEX memories_words_place ON memories USING gin (memory_place_words(memory_channel_place(team_id, channel_id), search)) WITH (fastupdate = off)
    WHERE scope IN ('channel', 'workspace') AND archived_at IS NULL;

DROP INDEX IF EXISTS memories_words_workspace;
CREATE INDEX memories_words_workspace ON memories USING gin (memory_place_words(team_id, search)) WITH (fastupdate = off)
    WHERE scope = 'workspace' AND visibility = 'public' AND sensitive = '' AND archived_at IS NULL;

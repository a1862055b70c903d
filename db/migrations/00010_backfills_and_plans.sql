-- +goose Up
-- A thread whose earlier messages were read from Slack into its log. The
-- row is written in the statement that logs them, so a backfill that
-- failed leaves none and is tried again on the thread's next post.
CREATE TABLE thread_backfills (
    source_key text PRIMARY KEY,
    messages   integer NOT NULL, -- how many were read from Slack
    done_at    timestamptz NOT NULL DEFAULT now()
);

-- Every statement serve runs per turn, per event or on a timer is on an
-- index (db/plans_test.go explains them at 100,000 rows):
-- the expiry sweep, every minute on every replica, reads only what can expire;
CREATE INDEX memories_expiry ON memories (expires_at) WHERE archived_at IS NULL AND expires_at IS NOT NULL;
-- the App Home's listing of the shared memories a person wrote;
CREATE INDEX memories_authored ON memories (team_id, actor_id, created_at) WHERE scope <> 'personal';
-- the admin listing, newest first, of a team or a channel, and its fuzzy match (word_similarity
-- through the <% operator, which a trigram index serves);
CREATE INDEX memories_newest ON memories (team_id, created_at);
CREATE INDEX memories_channel ON memories (channel_id, created_at);
CREATE INDEX memories_trgm ON memories USING gin (content gin_trgm_ops) WITH (fastupdate = off);
-- passive learning's read of a turn's messages;
-- 00009's index on turn_id, now in the order a turn's messages are read.
DROP INDEX session_messages_turn;
CREATE INDEX session_messages_turn ON session_messages (turn_id, id) WHERE turn_id IS NOT NULL;
-- a 👍/👎 press finds the turn of the reply it was pressed on.
CREATE INDEX session_messages_reply ON session_messages (channel_id, ts) WHERE role = 'assistant' AND turn_id IS NOT NULL;
-- UNIQUE (source_key, ts) already is this index.
DROP INDEX session_messages_thread;

-- +goose Down
CREATE INDEX session_messages_thread ON session_messages (source_key, ts);
DROP INDEX session_messages_reply;
DROP INDEX session_messages_turn;
CREATE INDEX session_messages_turn ON session_messages (turn_id) WHERE turn_id IS NOT NULL;
DROP INDEX memories_trgm;
DROP INDEX memories_channel;
DROP INDEX memories_newest;
DROP INDEX memories_authored;
DROP INDEX memories_expiry;
DROP TABLE thread_backfills;

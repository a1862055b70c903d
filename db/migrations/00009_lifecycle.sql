-- +goose Up
-- Data has a lifecycle: retention deletes what is past its time, erasure
-- deletes a person (docs/lifecycle.md). Rows that point at a deleted row
-- follow it: a memory's history goes with the memory (events live as long
-- as their memory), a memory it superseded forgets the link, and a turn's
-- learning record and feedback go with the turn, whose messages stay in
-- the log until their own time.
ALTER TABLE memory_events DROP CONSTRAINT memory_events_memory_id_fkey,
    ADD CONSTRAINT memory_events_memory_id_fkey FOREIGN KEY (memory_id)
        REFERENCES memories (id) ON UPDATE CASCADE ON DELETE CASCADE;
ALTER TABLE memories DROP CONSTRAINT memories_superseded_by_fkey,
    ADD CONSTRAINT memories_superseded_by_fkey FOREIGN KEY (superseded_by)
        REFERENCES memories (id) ON DELETE SET NULL;
ALTER TABLE session_messages DROP CONSTRAINT session_messages_turn_id_fkey,
    ADD CONSTRAINT session_messages_turn_id_fkey FOREIGN KEY (turn_id)
        REFERENCES turns (id) ON DELETE SET NULL;
ALTER TABLE turn_learning DROP CONSTRAINT turn_learning_turn_id_fkey,
    ADD CONSTRAINT turn_learning_turn_id_fkey FOREIGN KEY (turn_id)
        REFERENCES turns (id) ON DELETE CASCADE;
ALTER TABLE turn_feedback DROP CONSTRAINT turn_feedback_turn_id_fkey,
    ADD CONSTRAINT turn_feedback_turn_id_fkey FOREIGN KEY (turn_id)
        REFERENCES turns (id) ON DELETE CASCADE;

-- Retention's batches, oldest first, each read from an index.
CREATE INDEX session_messages_created ON session_messages (created_at);
CREATE INDEX turns_created ON turns (created_at);
CREATE INDEX memories_archived ON memories (archived_at) WHERE archived_at IS NOT NULL;
-- What a deleted row's ON DELETE finds: a turn's messages, and the
-- memories a deleted memory superseded.
CREATE INDEX session_messages_turn ON session_messages (turn_id) WHERE turn_id IS NOT NULL;
CREATE INDEX memories_superseded_by ON memories (superseded_by) WHERE superseded_by IS NOT NULL;

-- Erasure finds a person's rows by who they are: the subject or author of
-- a memory (in any state), the speaker in the log, the asker of a turn.
CREATE INDEX memories_person_subject ON memories (team_id, subject_id) WHERE subject_type = 'user';
CREATE INDEX memories_person_author ON memories (team_id, actor_id);
CREATE INDEX session_messages_person ON session_messages (team_id, actor_id);
CREATE INDEX turns_person ON turns (team_id, actor_id);

-- +goose Down
DROP INDEX turns_person;
DROP INDEX session_messages_person;
DROP INDEX memories_person_author;
DROP INDEX memories_person_subject;
DROP INDEX memories_superseded_by;
DROP INDEX session_messages_turn;
DROP INDEX memories_archived;
DROP INDEX turns_created;
DROP INDEX session_messages_created;
ALTER TABLE turn_feedback DROP CONSTRAINT turn_feedback_turn_id_fkey,
    ADD CONSTRAINT turn_feedback_turn_id_fkey FOREIGN KEY (turn_id) REFERENCES turns (id);
ALTER TABLE turn_learning DROP CONSTRAINT turn_learning_turn_id_fkey,
    ADD CONSTRAINT turn_learning_turn_id_fkey FOREIGN KEY (turn_id) REFERENCES turns (id);
ALTER TABLE session_messages DROP CONSTRAINT session_messages_turn_id_fkey,
    ADD CONSTRAINT session_messages_turn_id_fkey FOREIGN KEY (turn_id) REFERENCES turns (id);
ALTER TABLE memories DROP CONSTRAINT memories_superseded_by_fkey,
    ADD CONSTRAINT memories_superseded_by_fkey FOREIGN KEY (superseded_by) REFERENCES memories (id);
ALTER TABLE memory_events DROP CONSTRAINT memory_events_memory_id_fkey,
    ADD CONSTRAINT memory_events_memory_id_fkey FOREIGN KEY (memory_id) REFERENCES memories (id) ON UPDATE CASCADE;

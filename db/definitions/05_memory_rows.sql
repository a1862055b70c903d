-- A memory as reads return it: every column but the index ones (search,
-- embedding), which are large and of no use to a caller. A column added
-- to memories that reads should return must be added here too.
--
-- A repeatable definition (db/migrate.go): re-applied whenever this file
-- changes. A migration that drops or retypes a column this view reads
-- must drop the view first; migrate then creates it again from here.
CREATE OR REPLACE VIEW memory_rows AS
SELECT id, team_id, scope, subject_type, subject_id, kind, content, normalized, cues,
       source_key, channel_id, visibility, actor_id, actor_name, written_by, message_ts,
       observed_at, created_at, expires_at, archived_at, archived_reason, archived_by,
       superseded_by, idempotency_key, sensitive
FROM memories;

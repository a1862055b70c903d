-- +goose Up
-- Passive learning reads who said what from the thread's log, and where
-- from the turn, after the turn. Both lost what a Slack Connect channel
-- needs:
-- - A message kept only the thread's team, so an external member's line
--   came back as a host member's, and a preference learned from it was
--   stored in the host's workspace instead of their own (memory.HomeOf).
--   actor_team is the speaker's own workspace ('' is the thread's).
-- - A turn kept only its place's visibility, so learning's write in a
--   shared channel weighed the speaker's memories said elsewhere as
--   candidates to update (memory.Visible keeps them out of a shared
--   place). shared and org are the place's Shared and Org.
ALTER TABLE session_messages ADD COLUMN actor_team text NOT NULL DEFAULT '';
ALTER TABLE turns ADD COLUMN shared boolean NOT NULL DEFAULT false,
    ADD COLUMN org text NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE turns DROP COLUMN org, DROP COLUMN shared;
ALTER TABLE session_messages DROP COLUMN actor_team;

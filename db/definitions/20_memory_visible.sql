-- The one visibility rule in SQL: memory.Visible (memory/visibility.go)
-- for an active memory, minus the admin's oversight, which only lists.
-- Every read that shows memories to a person or the model filters with it,
-- and so does every statistic and window that recall's score reads
-- (memory's tests check that the two agree).
--
-- A repeatable definition (db/migrate.go): re-applied whenever this file
-- changes. Change it only together with memory.Visible.
--
-- v_only is the one scope a viewer reads of v_team's, when v_team is not
-- their own workspace: 'channel' for an external member (a person of
-- another organisation in a Slack Connect channel) reading the host's
-- memories of the channel, 'workspace' for a member of an Enterprise Grid
-- organisation reading its org-scope memories (MNEMO_ORG_MEMORIES).
-- 'shared' is a viewer whose answer is read in a Slack Connect channel
-- (provenance.Place.Shared, memory.OnlyShared): of v_team's memories,
-- what was said elsewhere is treated as said in private (another
-- organisation reads the channel), so public workspace memories said
-- elsewhere stay out, and the viewer's own only apply when preferences.
-- Callers that leave it out read as the viewer's own workspace.
DROP FUNCTION IF EXISTS memory_visible(memories, text, text, text, text, boolean, boolean);
DROP FUNCTION IF EXISTS memory_visible(memories, text, text, text, text, boolean, boolean, boolean);
CREATE OR REPLACE FUNCTION memory_visible(m memories, v_team text, v_actor text, v_channel text, v_source_key text,
                                          v_private boolean, v_apply boolean, v_only text DEFAULT '')
RETURNS boolean LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT m.team_id = v_team AND m.archived_at IS NULL
       AND (m.expires_at IS NULL OR m.expires_at > now())
       AND (v_only IN ('', 'shared') OR m.scope = v_only)
       AND CASE m.scope
           WHEN 'personal' THEN m.subject_id = v_actor
               AND ((v_channel <> '' AND m.channel_id = v_channel)
                    OR (m.sensitive <> '' AND v_private AND NOT v_apply)
                    OR (m.sensitive = '' AND ((m.visibility = 'public' AND v_only <> 'shared') OR v_private
                                              OR (v_apply AND m.kind = 'preference'))))
           WHEN 'conversation' THEN m.source_key = v_source_key
               AND (m.subject_type <> 'user' OR m.subject_id = v_actor)
           WHEN 'channel' THEN v_channel <> '' AND m.channel_id = v_channel
           WHEN 'workspace' THEN (v_channel <> '' AND m.channel_id = v_channel)
               OR (m.sensitive = '' AND m.visibility = 'public' AND v_only <> 'shared')
           ELSE false
       END
$$;

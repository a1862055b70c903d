package db_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
)

// An external member's lines in the host's log name their own workspace
// (session_messages.actor_team). Erasing them makes those lines nobody's:
// a tombstone that still named their workspace would still say which
// organisation the erased speaker came from. Another guest's line keeps
// theirs.
func TestEraseLeavesNoWorkspaceOnTheirTombstones(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testdb.New(t)
	for _, m := range []struct{ ts, actor, team, text string }{
		{"1800000000.000100", "U0GUEST", "T0HOME", "my zqxguest plans"},
		{"1800000000.000200", "U0OTHER", "T0ELSE", "his zqxother plans"},
	} {
		_, err := d.Pool.Exec(ctx, `INSERT INTO session_messages (source_key, team_id, channel_id, ts, role, actor_kind, actor_id, actor_team, authority, text)
			VALUES ('slack:T1:C0SHARED:1800000000.000100', 'T1', 'C0SHARED', $1, 'user', 'user', $2, $3, 'instruction', $4)`, m.ts, m.actor, m.team, m.text)
		require.NoError(t, err)
	}
	require.Equal(t, map[string]int64{"session_messages.actor_team": 1}, d.Find(t, "T0HOME"), "the walk sees their workspace before")

	_, err := d.DB.Erase(ctx, db.Erasure{Team: "T1", User: "U0GUEST", By: "U9", Home: "T0HOME"})
	require.NoError(t, err)
	require.Empty(t, d.FindAll(t, "U0GUEST", "T0HOME", "zqxguest"), "nothing names them, their workspace or their words")
	require.Equal(t, map[string]int64{"session_messages.actor_team": 1}, d.Find(t, "T0ELSE"), "the other guest's line keeps their workspace")
}

// A turn's learning job names only its turn ({"turn_id": …}), not its
// team. A workspace's erasure deletes those of its turns, in every state,
// with their errors, as it deletes its posts' jobs; another workspace's
// stay.
func TestEraseTeamDeletesItsTurnsLearningJobs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testdb.New(t)
	for _, team := range []string{"T0GONE", "T0KEPT"} {
		var turn int64
		require.NoError(t, d.Pool.QueryRow(ctx, `INSERT INTO turns (team_id, channel_id, message_ts, source_key, actor_id)
			VALUES ($1, 'C1', '1800000000.000100', 'slack:' || $1 || ':C1:1800000000.000100', 'U1') RETURNING id`, team).Scan(&turn))
		for _, state := range []string{"available", "retryable", "discarded"} {
			_, err := d.Pool.Exec(ctx, `INSERT INTO river_job (args, kind, max_attempts, state, finalized_at, errors)
				VALUES ($1, 'mnemo_learn_from_turn', 5, $2::river_job_state, CASE WHEN $2 = 'discarded' THEN now() END,
				ARRAY[jsonb_build_object('attempt', 1, 'error', 'learn: zqx' || lower($3::text))])`,
				fmt.Sprintf(`{"turn_id": %d}`, turn), state, team)
			require.NoError(t, err)
		}
	}
	require.Equal(t, map[string]int64{"river_job.errors": 3}, d.Find(t, "zqxt0gone"), "the walk sees its learning jobs before")

	r, err := d.DB.EraseTeam(ctx, "T0GONE")
	require.NoError(t, err)
	require.Empty(t, d.Find(t, "zqxt0gone"), "none of its learning jobs is left")
	require.Contains(t, r, db.ReceiptLine{Table: "river_job", Action: "deleted", Rows: 3})
	require.Equal(t, map[string]int64{"river_job.errors": 3}, d.Find(t, "zqxt0kept"), "the other workspace's learning jobs stay")
}

package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/threads"
)

// A turn's line appended to the session log while its workspace's erasure
// runs is deleted with the rest. The log's turn_id is ON DELETE SET NULL,
// so a line that committed after the erasure deleted the team's log, but
// before it deleted the turns, was kept with its turn forgotten: a
// person's words in an erased workspace. The erasure is held on a job of
// the team (a row lock, taken by the test) between the two, the line is
// appended then, and the erasure let go.
func TestEraseTeamDeletesALogLineAppendedWhileItRuns(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d := testdb.New(t)
	const team = "T0GONE"
	var turn int64
	require.NoError(t, d.Pool.QueryRow(ctx, `INSERT INTO turns (team_id, channel_id, message_ts, source_key, actor_id)
		VALUES ($1, 'C1', '1800000000.000100', 'slack:' || $1 || ':C1:1800000000.000100', 'U1') RETURNING id`, team).Scan(&turn))
	var job int64
	require.NoError(t, d.Pool.QueryRow(ctx, `INSERT INTO river_job (args, kind, max_attempts, state)
		VALUES (jsonb_build_object('team', $1::text), 'mnemo_turn', 5, 'available') RETURNING id`, team).Scan(&job))
	logged := func() int {
		var n int
		require.NoError(t, d.Pool.QueryRow(ctx, `SELECT count(*) FROM session_messages WHERE team_id = $1`, team).Scan(&n))
		return n
	}

	hold, err := d.Pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = hold.Rollback(ctx) }()
	_, err = hold.Exec(ctx, `SELECT 1 FROM river_job WHERE id = $1 FOR UPDATE`, job)
	require.NoError(t, err)

	erased := make(chan error, 1)
	go func() { _, err := d.DB.EraseTeam(ctx, team); erased <- err }()
	if err, waited := testdb.AwaitLockWait(ctx, t, d, "EraseTeamJobs", erased); !waited {
		t.Fatalf("the erasure finished (err %v) while a job of the team was locked", err)
	}

	key, _, err := threads.KeyFor(team, "C1", "1800000000.000200", "1800000000.000100")
	require.NoError(t, err)
	_, err = d.DB.Sessions().Append(ctx, key, threads.Message{TS: "1800000000.000200", Role: threads.RoleAssistant,
		Actor: provenance.Actor{Kind: provenance.KindBot, ID: "B1"}, Text: "zqx the answer of a turn still running", TurnID: &turn})
	require.NoError(t, err, "the turn is not deleted yet, so its line is taken")
	require.Equal(t, 1, logged(), "the count finds the line")

	require.NoError(t, hold.Rollback(ctx))
	require.NoError(t, <-erased)
	require.Zero(t, logged(), "the erasure deleted the line appended while it ran")

	// A line of the turn after the erasure has no turn to name.
	_, err = d.DB.Sessions().Append(ctx, key, threads.Message{TS: "1800000000.000300", Role: threads.RoleAssistant,
		Actor: provenance.Actor{Kind: provenance.KindBot, ID: "B1"}, Text: "zqx too late", TurnID: &turn})
	require.ErrorContains(t, err, "session_messages_turn_id_fkey")
	require.Zero(t, logged())
}

package agent_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/agent"
	"github.com/mnemo-bot/mnemo/internal/testdb"
	"github.com/mnemo-bot/mnemo/provenance"
)

func TestClaimTurnOnceAndFailStale(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	ctx := context.Background()
	start := agent.TurnStart{Place: provenance.Place{Team: "T1", Channel: "C1", SourceKey: "slack:T1:C1:1800000000.000100", Visibility: provenance.Public}, MessageTS: "1800000000.000100", ActorID: "UA"}
	id, err := agent.ClaimTurn(ctx, d.Pool, start)
	require.NoError(t, err)
	_, err = agent.ClaimTurn(ctx, d.Pool, start)
	require.ErrorIs(t, err, agent.ErrTurnClaimed)

	done := start
	done.MessageTS = "1800000001.000100"
	doneID, err := agent.ClaimTurn(ctx, d.Pool, done)
	require.NoError(t, err)
	require.NoError(t, agent.FinishTurn(ctx, d.Pool, nil, doneID, true, false))

	n, err := agent.FailStaleTurns(ctx, d.Pool, time.Now().Add(-time.Minute))
	require.NoError(t, err)
	require.Zero(t, n, "a fresh running turn is left alone")
	n, err = agent.FailStaleTurns(ctx, d.Pool, time.Now().Add(time.Minute))
	require.NoError(t, err)
	require.Equal(t, int64(1), n, "only the running one, not the finished one")
	var status string
	require.NoError(t, d.Pool.QueryRow(ctx, "SELECT status FROM turns WHERE id = $1", id).Scan(&status))
	require.Equal(t, "failed", status)
}

package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakeslack"
)

// `mnemo teams erase` while serve runs: serve stops serving the workspace
// as the erasure commits, not when its cache of installations next reads
// B's (up to 30 s later). Until then it took B's posts in, and called
// Slack with B's token, writing new data of an erased workspace. B's bot
// is cached by B's own question; after the erasure B's post is acked and
// dropped, while A is answered as before.
func TestTeamsEraseStopsARunningServeAtOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b, addr := startMultiBot(t)
	installThroughOAuth(t, b, addr, teamA)
	installThroughOAuth(t, b, addr, teamB)
	A, B := in{b, teamA}, in{b, teamB}
	const dm = "D0ALICE"
	A.ask(alice, dm, factA)
	B.ask(alice, dm, factB)
	rowsOfB := func() int {
		var n int
		require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM session_messages WHERE team_id = $1)
			+ (SELECT count(*) FROM turns WHERE team_id = $1) + (SELECT count(*) FROM inbox_arrivals WHERE team = $1)`, teamB).Scan(&n))
		return n
	}
	require.NotZero(t, rowsOfB(), "the count finds B's question")

	var out, errOut strings.Builder
	require.Equal(t, 0, run(ctx, []string{"teams", "erase", "--by", "ops-ticket-7", teamB}, b.getenv, strings.NewReader(""), &out, &errOut), errOut.String())
	require.Contains(t, out.String(), "Erased team "+teamB)
	require.Zero(t, rowsOfB())
	// The signal that serve was told: it logs the workspace it no longer
	// serves.
	told := b.logs.Await(10*time.Second, func(logs string) bool {
		return strings.Contains(logLine(logs, `"workspace erased or its installation changed: read again"`), `"team":"`+teamB+`"`)
	})

	callsB := func() int { return b.slackCalls(teamB) }
	before := callsB()
	ts := b.nextTS()
	b.slack.WaitAck(b.slack.SendEvent(map[string]any{"type": "message", "channel_type": "im", "user": alice, "text": "what do you remember?",
		"ts": ts, "channel": dm, "event_ts": ts}, fakeslack.EventOptions{Team: teamB}), 5*time.Second)
	// The control: A is answered, after B's post was acked.
	require.Contains(t, A.ask(alice, dm, `call memory__list {}`), wordA)
	require.Equal(t, 0, b.arrivals(ts), "B's post, after B's erasure, reached the inbox")
	require.Equal(t, before, callsB(), "Slack was called with B's token after B's erasure")
	require.Zero(t, rowsOfB(), "nothing of B is written after its erasure")
	require.True(t, told, "serve logs the workspace erased")
}

package memory_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/detect"
	"github.com/mnemo-bot/mnemo/memory"
)

// Issue 30, finding 3: a forget reason "old password was X, new one is Y"
// was stored and shown by /mnemo history with X redacted and Y verbatim.
// Every secret in a reason is redacted before it is stored, with two and
// three secrets of different kinds.
func TestForgetReasonRedactsEverySecret(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	alice, bob := user("UA"), user("UB")
	for _, tc := range []struct {
		reason  string
		secrets []string
	}{
		{"old password was Tr0ub4dor&3, new one is Hunter2!xyz", []string{"Tr0ub4dor&3", "Hunter2!xyz"}},
		{"moved: passwd Kx9#mQ2vLp, then changed it to Zq8$wN3rTy, and the bot token is xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
			[]string{"Kx9#mQ2vLp", "Zq8$wN3rTy", "xoxb-123456789012"}},
	} {
		m := b.remember(t, alice, publicThread, memory.ScopeChannel, memory.KindProcedure, "The staging database lives on db-staging-"+tc.secrets[0][:3])
		out, err := b.store.Forget(ctx, memory.ViewerAt(alice, publicThread), m.ShortID(), tc.reason, memory.PathSlash)
		require.NoError(t, err)
		require.NotNil(t, out.Forgotten)

		_, events, err := b.store.History(ctx, memory.ViewerAt(bob, publicThread), m.ID.String())
		require.NoError(t, err)
		require.Equal(t, []string{"create", "archive"}, actions(events))
		shown := events[1].Reason // what /mnemo history shows Bob
		archived := mustGet(t, b, m.ID).ArchivedReason
		for _, s := range tc.secrets {
			require.NotContains(t, shown, s, tc.reason)
			require.NotContains(t, archived, s, tc.reason)
		}
		require.Equal(t, len(tc.secrets), strings.Count(shown, detect.RedactedMarker), shown)
		require.Equal(t, shown, archived)
	}
	// The query below finds a reason when it holds the text it looks for.
	var stored int
	require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT count(*) FROM memory_events WHERE reason LIKE '%new one is%'`).Scan(&stored))
	require.Equal(t, 1, stored)
	for _, s := range []string{"Hunter2", "Zq8$", "Kx9#", "xoxb-"} {
		require.NoError(t, b.db.Pool.QueryRow(ctx, `SELECT count(*) FROM memory_events WHERE reason LIKE '%' || $1 || '%'`, s).Scan(&stored))
		require.Zero(t, stored, s)
	}
}

package memory_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
)

// A memory past its expiry is gone from every list that shows memories, as
// it is from recall (memory_visible), before the expiry sweep archives it:
// the App Home's and `/mnemo memories`' lists (Mine), an admin's oversight
// and the CLI's (List, ListPage, ListAll, ListAllPage), and the Home's
// count agrees with its list. Those that include archived memories (the
// exports, --all) still hold it, as they hold what the sweep archives.
func TestListsLeaveOutExpiredBeforeTheSweep(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	alice, ada := user("UA"), adminUser("UD")
	kept := b.remember(t, alice, dmAlice, memory.ScopePersonal, memory.KindKnowledge, "Is the release captain for version nine")
	gone := b.remember(t, alice, dmAlice, memory.ScopePersonal, memory.KindKnowledge, "Is on call for payments this rotation")
	keptShared := b.remember(t, alice, publicThread, memory.ScopeChannel, memory.KindProcedure, "Deploys go out on Tuesdays after QA sign-off")
	goneShared := b.remember(t, alice, publicThread, memory.ScopeChannel, memory.KindKnowledge, "The staging cluster is frozen this week")
	// Their expiry passes, as the clock would move it; no sweep runs (only
	// the CLI or `mnemo mcp` runs, or serve's sweep has not come yet).
	for _, m := range []memory.Memory{gone, goneShared} {
		_, err := b.db.Pool.Exec(ctx, "UPDATE memories SET expires_at = now() - interval '1 millisecond' WHERE id = $1", m.ID)
		require.NoError(t, err)
	}
	var unswept int
	require.NoError(t, b.db.Pool.QueryRow(ctx, "SELECT count(*) FROM memories WHERE id = ANY($1) AND archived_at IS NULL", []any{gone.ID, goneShared.ID}).Scan(&unswept))
	require.Equal(t, 2, unswept, "not archived: only their expiry has passed")

	ids := func(ms []memory.Memory) map[string]bool {
		out := map[string]bool{}
		for _, m := range ms {
			out[m.ID.String()] = true
		}
		return out
	}
	// lists checks that a list holds its control, so that it finds rows,
	// and not the expired one.
	lists := func(name string, ms []memory.Memory, control, expired memory.Memory) {
		t.Helper()
		got := ids(ms)
		require.True(t, got[control.ID.String()], "%s: the control, not expired, is listed", name)
		require.False(t, got[expired.ID.String()], "%s: a memory past its expiry is listed", name)
	}

	// The App Home and `/mnemo memories` of one's own.
	home := memory.Viewer{Actor: alice, Place: provenance.Place{Team: team}, Private: true}
	mine, err := b.store.Mine(ctx, home, memory.MineQuery{})
	require.NoError(t, err)
	lists("Mine", mine, kept, gone)
	authored, err := b.store.Mine(ctx, home, memory.MineQuery{Authored: true})
	require.NoError(t, err)
	lists("Mine authored", authored, keptShared, goneShared)
	n, err := b.store.CountPersonal(ctx, team, alice.ID)
	require.NoError(t, err)
	require.Equal(t, int64(len(mine)), n, "the Home's count and its list agree")

	// An admin's oversight, by person, by channel and by words.
	v := memory.ViewerAt(ada, dmAlice)
	v.Oversight = true
	listed, err := b.store.List(ctx, v, memory.Filter{Team: team, SubjectUser: alice.ID})
	require.NoError(t, err)
	lists("List by person", listed, kept, gone)
	listed, err = b.store.List(ctx, memory.ViewerAt(ada, publicThread), memory.Filter{Team: team, Channel: publicThread.Channel})
	require.NoError(t, err)
	lists("List by channel", listed, keptShared, goneShared)
	listed, err = b.store.List(ctx, v, memory.Filter{Team: team, Query: "payments release"})
	require.NoError(t, err)
	lists("List by words", listed, kept, gone)
	page, err := b.store.ListPage(ctx, v, memory.Filter{Team: team, SubjectUser: alice.ID})
	require.NoError(t, err)
	lists("ListPage", page.Memories, kept, gone)

	// The operator's CLI.
	all, err := b.store.ListAll(ctx, memory.Filter{Team: team})
	require.NoError(t, err)
	lists("ListAll", all, kept, gone)
	lists("ListAll shared", all, keptShared, goneShared)
	page, err = b.store.ListAllPage(ctx, memory.Filter{Team: team})
	require.NoError(t, err)
	lists("ListAllPage", page.Memories, kept, gone)

	// What includes archived memories (an export, --all) still holds it,
	// as it holds them once the sweep has archived it.
	withArchived, err := b.store.Mine(ctx, home, memory.MineQuery{IncludeArchived: true})
	require.NoError(t, err)
	require.True(t, ids(withArchived)[gone.ID.String()], "an export holds archived and expired memories")
	all, err = b.store.ListAll(ctx, memory.Filter{Team: team, IncludeArchived: true})
	require.NoError(t, err)
	require.True(t, ids(all)[gone.ID.String()], "--all holds archived and expired memories")
}

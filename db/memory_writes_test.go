package db_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
)

// beginWrite records a write under way, as memory.Store.Remember does.
func beginWrite(t *testing.T, d *testdb.DB, w db.Writer) int64 {
	t.Helper()
	id, err := d.DB.Memories().BeginWrite(context.Background(), w)
	require.NoError(t, err)
	return id
}

// writeKept is whether write id, said in team, still has its record.
func writeKept(t *testing.T, d *testdb.DB, team string, id int64) bool {
	t.Helper()
	kept, err := d.DB.Memories().WriteKept(context.Background(), team, id)
	require.NoError(t, err)
	return kept
}

// A person's erasure takes the records of their writes under way whose
// memory it would delete: by them or about them, said in its team, or
// stored under it or its organisation (an org-wide memory said in another
// workspace of the organisation; an external member's, stored under their
// own team, said in this one). Another person's, and theirs said and
// stored in another workspace, stay; so does a write of theirs that
// begins after the erasure. Its receipt counts them.
func TestEraseTakesTheRecordsOfTheWritesItOvertakes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testdb.New(t)
	_, err := d.Pool.Exec(ctx, `INSERT INTO installation_teams (team_id, enterprise_id) VALUES ('T1', 'E1'), ('T2', 'E1')`)
	require.NoError(t, err)
	taken := map[string]db.Writer{
		"theirs, in the team":                        {Team: "T1", Stored: "T1", Author: "UA", Subject: "UA"},
		"about them, by someone else":                {Team: "T1", Stored: "T1", Author: "UB", Subject: "UA"},
		"org-wide, said in another workspace":        {Team: "T2", Stored: "E1", Author: "UA"},
		"an external member's, under their own team": {Team: "T1", Stored: "T9", Author: "UA", Subject: "UA"},
	}
	kept := map[string]db.Writer{
		"someone else's":                         {Team: "T1", Stored: "T1", Author: "UB", Subject: "UB"},
		"theirs, said and stored in another one": {Team: "T2", Stored: "T2", Author: "UA", Subject: "UA"},
	}
	ids := map[string]int64{}
	for name, w := range taken {
		ids[name] = beginWrite(t, d, w)
	}
	for name, w := range kept {
		ids[name] = beginWrite(t, d, w)
	}
	for name, w := range taken {
		require.True(t, writeKept(t, d, w.Team, ids[name]), "control: %s has its record before the erasure", name)
	}

	r, err := d.DB.Erase(ctx, db.Erasure{Team: "T1", User: "UA", By: "system:slack"})
	require.NoError(t, err)
	require.Contains(t, r, db.ReceiptLine{Table: "memory_writes", Action: "deleted", Rows: int64(len(taken))})
	for name, w := range taken {
		require.False(t, writeKept(t, d, w.Team, ids[name]), "%s: its record is gone", name)
	}
	for name, w := range kept {
		require.True(t, writeKept(t, d, w.Team, ids[name]), "%s: its record stays", name)
	}
	after := beginWrite(t, d, taken["theirs, in the team"])
	require.True(t, writeKept(t, d, "T1", after), "a write that begins after the erasure keeps its record")

	// Its end deletes it, and finds it; the same check finds it no more,
	// and an end of a record an erasure took finds nothing.
	ended, err := d.DB.Memories().EndWrite(ctx, "T1", after)
	require.NoError(t, err)
	require.True(t, ended)
	require.False(t, writeKept(t, d, "T1", after))
	ended, err = d.DB.Memories().EndWrite(ctx, "T1", ids["theirs, in the team"])
	require.NoError(t, err)
	require.False(t, ended)
}

// A record left by a process that died mid-write goes when a write begins
// once it is older than any write lasts (db.WriteLifetime); a younger one,
// a write still under way, stays.
func TestBeginWritePrunesTheRecordsLeftBehind(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testdb.New(t)
	w := db.Writer{Team: "T1", Stored: "T1", Author: "UA", Subject: "UA"}
	left, young := beginWrite(t, d, w), beginWrite(t, d, w)
	_, err := d.Pool.Exec(ctx, `UPDATE memory_writes SET began_at = now() - $2::interval WHERE id = $1`, left, db.WriteLifetime.String())
	require.NoError(t, err)
	require.True(t, writeKept(t, d, "T1", left), "control: the old record is there before a write begins")

	beginWrite(t, d, db.Writer{Team: "T2", Stored: "T2", Author: "UB"})
	require.False(t, writeKept(t, d, "T1", left), "the record left behind is pruned")
	require.True(t, writeKept(t, d, "T1", young), "a write under way keeps its record")
}

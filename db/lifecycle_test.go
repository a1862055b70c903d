package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testdb"
)

// TestRetentionReadsEachBatchFromAnIndex: every retention DELETE finds its
// oldest rows through the index made for it, never by reading the table.
// Sequential scans are turned off, so a statement no index serves shows a
// Seq Scan (or another index) in its plan and fails here.
func TestRetentionReadsEachBatchFromAnIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testdb.New(t)
	want := map[string]string{
		"session_messages": "session_messages_created",
		"turns":            "turns_created",
		"memories":         "memories_archived",
		"inbox_arrivals":   "inbox_arrivals_moved",
		"river_job":        "river_job_state_and_finalized_at_index",
	}
	require.Len(t, db.RetentionStatements, len(want), "every retention statement is checked")
	for table, stmt := range db.RetentionStatements {
		tx, err := d.Pool.Begin(ctx)
		require.NoError(t, err)
		_, err = tx.Exec(ctx, "SET LOCAL enable_seqscan = off")
		require.NoError(t, err)
		// Both statements take a time (or seconds) and a row count.
		arg1 := any(time.Now())
		if table == "inbox_arrivals" {
			arg1 = float64(86400)
		}
		var plan []byte
		require.NoError(t, tx.QueryRow(ctx, "EXPLAIN (FORMAT JSON) "+stmt, arg1, int32(1000)).Scan(&plan))
		require.NoError(t, tx.Rollback(ctx))
		require.Contains(t, string(plan), `"Index Name": "`+want[table]+`"`, "%s: %s", table, plan)
		require.NotContains(t, string(plan), `"Node Type": "Seq Scan"`, "%s: no scan of the whole table", table)
	}
}

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

// A running job keeps its row until River finishes it, so erasure
// tombstones its text; a job not running is deleted. Other people's jobs
// are untouched.
func TestEraseTombstonesARunningJobAndDeletesTheRest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testdb.New(t)
	for _, j := range []struct{ state, user string }{{"running", "U1"}, {"available", "U1"}, {"completed", "U1"}, {"running", "U2"}} {
		var fin any
		if j.state == "completed" {
			fin = time.Now()
		}
		_, err := d.Pool.Exec(ctx, `INSERT INTO river_job (args, kind, max_attempts, state, finalized_at) VALUES ($1, 'mnemo_turn', 5, $2::river_job_state, $3)`,
			`{"team":"T1","user":"`+j.user+`","text":"my secret plans"}`, j.state, fin)
		require.NoError(t, err)
	}
	r, err := d.DB.Erase(ctx, db.Erasure{Team: "T1", User: "U1", By: "U9"})
	require.NoError(t, err)
	require.Contains(t, r, db.ReceiptLine{Table: "river_job", Action: "deleted", Rows: 2})
	require.Contains(t, r, db.ReceiptLine{Table: "river_job", Action: "tombstoned", Rows: 1})
	rows, err := d.Pool.Query(ctx, `SELECT args->>'user' || ':' || (args->>'text') FROM river_job ORDER BY id`)
	require.NoError(t, err)
	var got []string
	for rows.Next() {
		var s string
		require.NoError(t, rows.Scan(&s))
		got = append(got, s)
	}
	require.NoError(t, rows.Err())
	require.Equal(t, []string{":" + db.Tombstone, "U2:my secret plans"}, got)

	_, err = d.DB.Erase(ctx, db.Erasure{Team: "T1"})
	require.Error(t, err, "nobody to erase is an error, not an erasure of everything")
}

package db_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
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
		"erased_memories":  "erased_memories_erased",
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

// Issue 30: erasure reaches every job that names the person, in every
// state River has: their posts' jobs, any job in their DM (by its channel),
// and the learning jobs of their turns are deleted; a running one keeps
// its row, but its args name nobody and nowhere and its errors go. Other
// people's jobs are untouched, and the walk finds nothing of theirs left.
func TestEraseRemovesTheirJobsInEveryState(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testdb.New(t)
	exec := func(sql string, args ...any) {
		t.Helper()
		_, err := d.Pool.Exec(ctx, sql, args...)
		require.NoError(t, err, sql)
	}
	var turn int64
	require.NoError(t, d.Pool.QueryRow(ctx, `INSERT INTO turns (team_id, channel_id, message_ts, source_key, actor_id, visibility)
		VALUES ('T1', 'D0U1DM', '1800000000.000100', 'slack:T1:D0U1DM:1800000000.000100', 'U0ERASED', 'dm') RETURNING id`).Scan(&turn))
	states := []string{"available", "scheduled", "pending", "retryable", "running", "completed", "cancelled", "discarded"}
	for _, state := range states {
		var fin any
		if state == "completed" || state == "cancelled" || state == "discarded" {
			fin = time.Now()
		}
		job := `INSERT INTO river_job (args, kind, max_attempts, state, finalized_at, errors) VALUES ($1, $2, 5, $3::river_job_state, $4,
			ARRAY['{"attempt": 1, "error": "post 1800000000.000100 in D0U1DM failed"}'::jsonb])`
		// Their post in their DM; a post naming only the DM (the job of a
		// post their erasure must not miss); a learning job of their turn;
		// Bob's post, the control.
		exec(job, `{"team":"T1","user":"U0ERASED","channel":"D0U1DM","ts":"1800000000.000100","text":"my zqxsecret plans"}`, "mnemo_turn", state, fin)
		exec(job, `{"team":"T1","channel":"D0U1DM","ts":"1800000000.000200","text":"zqxsecret again"}`, "mnemo_turn", state, fin)
		exec(job, fmt.Sprintf(`{"turn_id": %d}`, turn), "mnemo_learn_from_turn", state, fin)
		exec(`INSERT INTO river_job (args, kind, max_attempts, state, finalized_at) VALUES ($1, 'mnemo_turn', 5, $2::river_job_state, $3)`,
			`{"team":"T1","user":"U0BOB","channel":"C0BOB","ts":"1800000000.000300","text":"his zqxcontrol plans"}`, state, fin)
	}
	probes := []string{"U0ERASED", "D0U1DM", "zqxsecret"}
	before := d.FindAll(t, probes...)
	for _, p := range probes {
		require.Contains(t, before[p], "river_job.args", "the walk sees %q in the jobs before", p)
	}
	require.Contains(t, before["D0U1DM"], "river_job.errors")

	r, err := d.DB.Erase(ctx, db.Erasure{Team: "T1", User: "U0ERASED", By: "U9"})
	require.NoError(t, err)
	require.Contains(t, r, db.ReceiptLine{Table: "river_job", Action: "deleted", Rows: int64(3*len(states) - 3)}, "every job of theirs but the running ones")
	require.Contains(t, r, db.ReceiptLine{Table: "river_job", Action: "tombstoned", Rows: 3}, "their running jobs")
	require.Empty(t, d.FindAll(t, probes...), "nothing names them or their DM")

	var left []string
	rows, err := d.Pool.Query(ctx, `SELECT state || ' ' || kind || ' ' || args::text FROM river_job WHERE NOT args @> '{"user":"U0BOB"}' ORDER BY id`)
	require.NoError(t, err)
	left, err = pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.Equal(t, []string{
		`running mnemo_turn {"ts": "", "team": "T1", "text": "[erased]", "user": "", "channel": ""}`,
		`running mnemo_turn {"ts": "", "team": "T1", "text": "[erased]", "user": "", "channel": ""}`,
		fmt.Sprintf(`running mnemo_learn_from_turn {"turn_id": %d}`, turn),
	}, left, "the running jobs, their args naming nobody; a running learning job names no one")
	var bobs int
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE args->>'text' = 'his zqxcontrol plans'`).Scan(&bobs))
	require.Equal(t, len(states), bobs, "Bob's jobs are untouched")

	_, err = d.DB.Erase(ctx, db.Erasure{Team: "T1"})
	require.Error(t, err, "nobody to erase is an error, not an erasure of everything")
}

// Issue 30: a team's erasure leaves nothing of the team in any table the
// walk finds, erased memories' ids and thread backfills included.
func TestEraseTeamLeavesNothingOfIt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testdb.New(t)
	for _, team := range []string{"T0GONE", "T0KEPT"} {
		for _, sql := range []string{
			`INSERT INTO thread_backfills (source_key, messages) VALUES ('slack:' || $1 || ':C1:1800000000.000100', 1)`,
			`INSERT INTO erased_memories (team_id, id) VALUES ($1, gen_random_uuid())`,
			`INSERT INTO session_messages (source_key, team_id, channel_id, ts, role, actor_kind, actor_id, authority, text)
				VALUES ('slack:' || $1 || ':C1:1800000000.000100', $1, 'C1', '1800000000.000100', 'user', 'user', 'U1', 'instruction', 'hello')`,
			`INSERT INTO turns (team_id, channel_id, message_ts, source_key, actor_id) VALUES ($1, 'C1', '1800000000.000100', 'slack:' || $1 || ':C1:1800000000.000100', 'U1')`,
			`INSERT INTO river_job (args, kind, max_attempts, state) VALUES (jsonb_build_object('team', $1::text, 'user', 'U1'), 'mnemo_turn', 5, 'available')`,
		} {
			_, err := d.Pool.Exec(ctx, sql, team)
			require.NoError(t, err, sql)
		}
	}
	before := d.Find(t, "T0GONE")
	require.Subset(t, testdb.Tables(before), []string{"erased_memories", "river_job", "session_messages", "thread_backfills", "turns"}, "%v", before)

	_, err := d.DB.EraseTeam(ctx, "T0GONE")
	require.NoError(t, err)
	require.Empty(t, d.Find(t, "T0GONE"))
	require.Equal(t, testdb.Tables(before), testdb.Tables(d.Find(t, "T0KEPT")), "the other team keeps all of its rows")
}

// Issue 30: restore asks whether a memory that is gone was erased: by its
// id or the start of it, in its own team only.
func TestErasedAtFindsAnErasedMemoryByItsIDOrPrefix(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testdb.New(t)
	id := uuid.New()
	_, err := d.Pool.Exec(ctx, `INSERT INTO erased_memories (team_id, id) VALUES ('T1', $1)`, id)
	require.NoError(t, err)
	for _, ref := range []string{id.String(), id.String()[:8], strings.ToUpper(id.String()[:4])} {
		at, err := d.DB.Lifecycle().ErasedAt(ctx, "T1", ref)
		require.NoError(t, err, ref)
		require.WithinDuration(t, time.Now(), at, time.Minute)
	}
	for _, c := range []struct{ team, ref string }{{"T2", id.String()}, {"T1", id.String()[:3]}, {"T1", ""}, {"T1", "not an id"}, {"T1", uuid.NewString()}} {
		_, err := d.DB.Lifecycle().ErasedAt(ctx, c.team, c.ref)
		require.ErrorIs(t, err, db.ErrNotFound, "%s %q", c.team, c.ref)
	}
}

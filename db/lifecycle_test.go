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

// memoryRow is a memory inserted as the store would write it, for the
// erasure tests: its recall index rows are written by trigger.
type memoryRow struct {
	team, scope, subjectType, subject, content, sourceKey, channel, visibility, actor string
	// archivedBy, when set, archived the memory with reason.
	archivedBy, reason string
}

func insertMemory(t *testing.T, d *testdb.DB, m memoryRow) uuid.UUID {
	t.Helper()
	var id uuid.UUID
	require.NoError(t, d.Pool.QueryRow(context.Background(), `INSERT INTO memories (team_id, scope, subject_type, subject_id, kind, content, normalized,
			source_key, channel_id, visibility, actor_id, written_by, message_ts, observed_at, idempotency_key,
			archived_at, archived_by, archived_reason)
		VALUES ($1, $2, $3, $4, 'knowledge', $5, lower($5), $6, $7, $8, $9, 'explicit', '1800000000.000100', now(), gen_random_uuid()::text,
			CASE WHEN $10 = '' THEN NULL ELSE now() END, NULLIF($10, ''), NULLIF($11, ''))
		RETURNING id`,
		m.team, m.scope, m.subjectType, m.subject, m.content, m.sourceKey, m.channel, m.visibility, m.actor, m.archivedBy, m.reason).Scan(&id))
	return id
}

// An organisation's memories (org-scope, MNEMO_ORG_MEMORIES) are
// stored under its enterprise id, not the workspace's. A person's erasure
// in a workspace the organisation's installation served reaches them as
// it does the workspace's: the memory they wrote is deleted, with its
// recall index words and history, its id recorded under the organisation;
// what they did to another member's memory (forgot it, with a reason) is
// nobody's. Another organisation's memory of theirs is not reached.
func TestEraseReachesTheirOrganisationsMemories(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testdb.New(t)
	_, err := d.Pool.Exec(ctx, `INSERT INTO installation_teams (team_id, enterprise_id) VALUES ('T1', 'E1')`)
	require.NoError(t, err)
	theirs := insertMemory(t, d, memoryRow{team: "E1", scope: "workspace", subjectType: "team", subject: "T1",
		content: "Deploys go through the zqxalpha gate", sourceKey: "slack:T1:C1:1800000000.000100", channel: "C1", visibility: "public", actor: "U0ALICE"})
	bobs := insertMemory(t, d, memoryRow{team: "E1", scope: "workspace", subjectType: "team", subject: "T1",
		content: "Releases are cut on zqxbobword Mondays", sourceKey: "slack:T1:C1:1800000000.000200", channel: "C1", visibility: "public", actor: "U0BOB",
		archivedBy: "U0ALICE", reason: "zqxgamma it is wrong"})
	_, err = d.Pool.Exec(ctx, `INSERT INTO memory_events (memory_id, team_id, action, actor_id, path, reason)
		VALUES ($1, 'E1', 'create', 'U0ALICE', 'explicit', ''), ($2, 'E1', 'archive', 'U0ALICE', 'tool', 'zqxgamma it is wrong')`, theirs, bobs)
	require.NoError(t, err)
	// The control: their memory in another organisation.
	insertMemory(t, d, memoryRow{team: "E2", scope: "workspace", subjectType: "team", subject: "T2",
		content: "Lunch is at zqxkept noon", sourceKey: "slack:T2:C2:1800000000.000100", channel: "C2", visibility: "public", actor: "U0ALICE"})

	before := d.FindAll(t, "zqxalpha", "zqxgamma", "U0ALICE")
	require.Subset(t, testdb.Columns(before["zqxalpha"]), []string{"memories.content", "memory_postings.term", "memory_vocab.term"}, "the walk sees their words in the index before")
	require.Subset(t, testdb.Columns(before["zqxgamma"]), []string{"memories.archived_reason", "memory_events.reason"})
	require.Equal(t, map[string]int64{"memories.actor_id": 2, "memories.archived_by": 1, "memory_events.actor_id": 2}, before["U0ALICE"])

	r, err := d.DB.Erase(ctx, db.Erasure{Team: "T1", User: "U0ALICE", By: "U9"})
	require.NoError(t, err)
	require.Empty(t, d.FindAll(t, "zqxalpha", "zqxgamma"), "nothing of their memory or their reason is left, in the index neither")
	require.Equal(t, map[string]int64{"memories.actor_id": 1}, d.Find(t, "U0ALICE"), "only the other organisation's memory names them")
	require.Contains(t, d.Find(t, "zqxkept"), "memory_postings.term", "the other organisation's memory is still recalled")
	require.Contains(t, d.Find(t, "zqxbobword"), "memories.content", "the member's memory they forgot stays")
	for _, l := range []db.ReceiptLine{
		{Table: "erased_memories", Action: "recorded in their organisation E1", Rows: 1},
		{Table: "memories", Action: "deleted in their organisation E1", Rows: 1},
		{Table: "memory_events", Action: "deleted in their organisation E1", Rows: 1},
		{Table: "memories", Action: "unattributed in their organisation E1", Rows: 1},
		{Table: "memory_events", Action: "unattributed in their organisation E1", Rows: 1},
	} {
		require.Contains(t, r, l)
	}
	var erased int
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT count(*) FROM erased_memories WHERE team_id = 'E1' AND id = $1`, theirs).Scan(&erased))
	require.Equal(t, 1, erased, "restore can say why it is gone")
}

// An organisation's erasure deletes its own memories, kept under
// its enterprise id, with their history and index words, and the ids of
// those its members' erasures deleted, even one said in a workspace with
// an installation of its own (which keeps its own data). Another
// organisation's memories are kept.
func TestEraseOrganisationDeletesItsMemories(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testdb.New(t)
	for _, sql := range []string{
		`INSERT INTO installations (team_id, enterprise_id, token_ciphertext, token_nonce, token_key_id, bot_user_id, installer_id, disabled_at, disabled_why)
		 VALUES ('', 'E1', '\x01', '\x02', 'k1', 'UB', 'U1', now(), 'app_uninstalled'), ('T0OWN', '', '\x01', '\x02', 'k1', 'UB', 'U1', NULL, '')`,
		`INSERT INTO installation_teams (team_id, enterprise_id) VALUES ('T0GONE', 'E1'), ('T0OWN', 'E1')`,
		`INSERT INTO erased_memories (team_id, id) VALUES ('E1', gen_random_uuid()), ('E2', gen_random_uuid())`,
	} {
		_, err := d.Pool.Exec(ctx, sql)
		require.NoError(t, err, sql)
	}
	org := insertMemory(t, d, memoryRow{team: "E1", scope: "workspace", subjectType: "team", subject: "T0OWN",
		content: "The zqxorgword budget is approved", sourceKey: "slack:T0OWN:C1:1800000000.000100", channel: "C1", visibility: "public", actor: "U1"})
	_, err := d.Pool.Exec(ctx, `INSERT INTO memory_events (memory_id, team_id, action, actor_id, path) VALUES ($1, 'E1', 'create', 'U1', 'explicit')`, org)
	require.NoError(t, err)
	insertMemory(t, d, memoryRow{team: "E2", scope: "workspace", subjectType: "team", subject: "T2",
		content: "The zqxotherorg budget", sourceKey: "slack:T2:C1:1800000000.000100", channel: "C1", visibility: "public", actor: "U1"})
	insertMemory(t, d, memoryRow{team: "T0OWN", scope: "channel", subjectType: "channel", subject: "C1",
		content: "The zqxownword budget", sourceKey: "slack:T0OWN:C1:1800000000.000200", channel: "C1", visibility: "public", actor: "U1"})
	count := func(team string) string {
		var s string
		require.NoError(t, d.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM memories WHERE team_id = $1) || ' ' ||
			(SELECT count(*) FROM memory_events WHERE team_id = $1) || ' ' || (SELECT count(*) FROM erased_memories WHERE team_id = $1)`, team).Scan(&s))
		return s
	}
	require.Equal(t, "1 1 1", count("E1"), "memories, their history and erased ids of the organisation, before")
	require.Subset(t, testdb.Columns(d.Find(t, "zqxorgword")), []string{"memories.content", "memory_postings.term", "memory_vocab.term"})

	teams, r, err := d.DB.EraseOrganisation(ctx, "E1")
	require.NoError(t, err)
	require.Equal(t, []string{"T0GONE"}, teams)
	require.Equal(t, "0 0 0", count("E1"))
	require.Empty(t, d.Find(t, "zqxorgword"), "nothing of its memory is left, in the index neither")
	require.Contains(t, r, db.ReceiptLine{Table: "memories", Action: "deleted", Rows: 1})
	require.Contains(t, r, db.ReceiptLine{Table: "erased_memories", Action: "deleted", Rows: 1})
	require.Equal(t, "1 0 1", count("E2"), "the other organisation keeps its own")
	require.Contains(t, d.Find(t, "zqxotherorg"), "memory_postings.term")
	require.Contains(t, d.Find(t, "zqxownword"), "memory_postings.term", "the workspace with its own installation keeps its data")
}

// A workspace's erasure deletes what was said in its
// conversations and stored under another team: an external member's
// memories of its Slack Connect channels, kept under their own team
// (memory.HomeOf), with their history and index words, whose organisation
// may never install mnemo to erase them. What the guest said in their own
// workspace, or in a workspace whose id starts with the host's, stays.
func TestEraseTeamReachesWhatWasSaidInItsChannels(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testdb.New(t)
	guest := memoryRow{team: "T0GUEST", scope: "personal", subjectType: "user", subject: "U0GUEST", visibility: "public", actor: "U0GUEST", channel: "C0SHARED"}
	said := guest
	said.content, said.sourceKey = "Prefers zqxguestword summaries", "slack:T0HOST:C0SHARED:1800000000.000100"
	id := insertMemory(t, d, said)
	_, err := d.Pool.Exec(ctx, `INSERT INTO memory_events (memory_id, team_id, action, actor_id, path) VALUES ($1, 'T0GUEST', 'create', 'U0GUEST', 'explicit')`, id)
	require.NoError(t, err)
	home := guest
	home.content, home.sourceKey = "Prefers zqxhomeword summaries", "slack:T0GUEST:C9:1800000000.000100"
	insertMemory(t, d, home)
	longer := guest
	longer.content, longer.sourceKey = "Prefers zqxprefix summaries", "slack:T0HOSTX:C0SHARED:1800000000.000100"
	insertMemory(t, d, longer)

	require.Subset(t, testdb.Columns(d.Find(t, "zqxguestword")), []string{"memories.content", "memory_postings.term", "memory_vocab.term"}, "the walk sees it before")
	var events int
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT count(*) FROM memory_events WHERE memory_id = $1`, id).Scan(&events))
	require.Equal(t, 1, events)

	r, err := d.DB.EraseTeam(ctx, "T0HOST")
	require.NoError(t, err)
	require.Empty(t, d.Find(t, "zqxguestword"), "nothing of it is left, in the index neither")
	require.Contains(t, r, db.ReceiptLine{Table: "memories", Action: "deleted under other teams, said in its conversations", Rows: 1})
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT count(*) FROM memory_events WHERE memory_id = $1`, id).Scan(&events))
	require.Zero(t, events, "its history went with it")
	require.Contains(t, d.Find(t, "zqxhomeword"), "memory_postings.term", "what they said at home stays")
	require.Contains(t, d.Find(t, "zqxprefix"), "memory_postings.term", "what they said in T0HOSTX stays")
}

// A forget reason is the words of whoever forgot: erasing them
// blanks it on the memory (archived_reason) as on its history
// (memory_events.reason); the memory, another member's, stays forgotten,
// and another member's reason stays.
func TestEraseBlanksTheReasonTheyGaveToForget(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testdb.New(t)
	bobs := memoryRow{team: "T1", scope: "channel", subjectType: "channel", subject: "C1", sourceKey: "slack:T1:C1:1800000000.000100",
		channel: "C1", visibility: "public", actor: "U0BOB"}
	forgot := bobs
	forgot.content, forgot.archivedBy, forgot.reason = "The office opens at eight", "U0ALICE", "zqxreason my manager said so"
	id := insertMemory(t, d, forgot)
	_, err := d.Pool.Exec(ctx, `INSERT INTO memory_events (memory_id, team_id, action, actor_id, path, reason) VALUES ($1, 'T1', 'archive', 'U0ALICE', 'tool', 'zqxreason my manager said so')`, id)
	require.NoError(t, err)
	control := bobs
	control.content, control.archivedBy, control.reason = "The office closes at six", "U0BOB", "zqxbobreason moved"
	insertMemory(t, d, control)
	require.Equal(t, []string{"memories.archived_reason", "memory_events.reason"}, testdb.Columns(d.Find(t, "zqxreason my manager")), "the walk sees both copies before")

	_, err = d.DB.Erase(ctx, db.Erasure{Team: "T1", User: "U0ALICE", By: "U9"})
	require.NoError(t, err)
	require.Empty(t, d.FindAll(t, "zqxreason my manager", "U0ALICE"), "neither their reason nor their id is left")
	var by, reason string
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT archived_by, archived_reason FROM memories WHERE id = $1 AND archived_at IS NOT NULL`, id).Scan(&by, &reason))
	require.Equal(t, [2]string{"", ""}, [2]string{by, reason}, "Bob's memory stays forgotten, by nobody, for no reason")
	require.Equal(t, []string{"memories.archived_reason"}, testdb.Columns(d.Find(t, "zqxbobreason")), "Bob's own reason stays")
}

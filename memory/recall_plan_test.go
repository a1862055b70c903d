package memory_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/bench/corpus"
	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
)

// Recall must cost what it matches, not what is stored: at 100,000
// memories, no plan of the recall queries (auto-recall, the recall tool,
// the listing, remember's candidates) reads the memories table whole, and
// none is compiled by JIT. Each statement is explained as it ran: prepared
// on the server and executed with its arguments, in a transaction with its
// settings, so the plan is the one production uses.
func TestRecallPlansReadNoTableWhole(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testdb.New(t)
	spec := corpus.Spec{Rows: 100_000, Seed: 7, Now: time.Now()}
	require.NoError(t, corpus.Load(ctx, d.Pool, spec))

	rec := &testdb.Recorder{Prefix: "Memory"}
	pool := d.Traced(t, rec)
	store := memory.New(db.New(pool), memory.Options{})

	qs := spec.Queries(40)
	for i, q := range qs {
		v := memory.ViewerAt(q.Actor, q.Place)
		_, err := store.ForPrompt(ctx, v, q.Message)
		require.NoError(t, err)
		_, err = store.Search(ctx, v, q.Tool, 10, true)
		require.NoError(t, err)
		if i%10 == 0 {
			_, err = store.Search(ctx, v, "", 20, false)
			require.NoError(t, err)
			_, err = store.Search(ctx, v, "stagng databse", 10, true)
			require.NoError(t, err)
			out, err := store.Remember(ctx, memory.WriteRequest{
				Actor: q.Actor, Place: q.Place, Scope: memory.ScopeChannel, Kind: memory.KindProcedure,
				Content:   fmt.Sprintf("Deploys of the payments service go out on Tuesdays after QA sign-off, batch %d", i),
				WrittenBy: provenance.ByExplicit,
			})
			require.NoError(t, err)
			require.Equal(t, memory.Stored, out.Status, out.Reason)
		}
	}

	// Control: the check below does see a whole-table read.
	// (No index serves length(); ILIKE has the trigram index since 00010.)
	control := explain(t, d.Pool, testdb.Statement{Name: "control", SQL: "SELECT count(*) FROM memories WHERE length(content) > $1", Args: []any{10}})
	require.NotEmpty(t, tableReads(t, control))

	seen := map[string]int{}
	for _, s := range rec.Got() {
		if s.Name == "MemoryInsert" || s.Name == "MemoryEventInsert" || s.Name == "MemorySubjectLock" || s.Name == "MemoryGetByID" {
			continue
		}
		plan := explain(t, d.Pool, s)
		seen[s.Name]++
		require.NotContains(t, plan, "JIT", "%s is JIT-compiled", s.Name)
		require.Empty(t, tableReads(t, plan), "%s reads the memories table whole:\n%s", s.Name, plan)
		if s.Name == "MemoryFindSimilar" {
			walk(root(t, plan), func(n map[string]any) {
				if n["CTE Name"] == "cand" {
					require.LessOrEqual(t, n["Actual Rows"], float64(64), "similarity() runs on a bounded set")
				}
			})
		}
	}
	for _, name := range []string{"MemorySearch", "MemoryRecent", "MemoryFindSimilar"} {
		require.Positive(t, seen[name], "%s was explained", name)
	}

	// MemorySearch's ranking runs inside memory_bm25, whose statements its
	// own plan does not show: auto_explain shows each of them as it runs.
	nested, every, expired := 0, 0, 0
	var rows int
	require.NoError(t, d.Pool.QueryRow(ctx, "SELECT count(*) FROM memories").Scan(&rows))
	for _, s := range rec.Got() {
		if s.Name != "MemorySearch" {
			continue
		}
		for _, plan := range explainNested(t, d.URL, s) {
			nested++
			require.NotContains(t, plan, "JIT", "memory_bm25 is JIT-compiled")
			require.Empty(t, tableReads(t, "["+plan+"]"), "memory_bm25 reads a table whole:\n%s", plan)
			require.Empty(t, indexReads(t, "["+plan+"]", rows/2), "memory_bm25 reads half an index:\n%s", plan)
			// The all-words pass reads the asker's partitions, each by its
			// own index, not every match of the team's text index.
			require.NotContains(t, plan, `"Index Name": "memories_subject_search"`, "memory_bm25 reads every match of the text index:\n%s", plan)
			// Its channel's and its team's memories are read by the text
			// indexes keyed by place and word alone: a bitmap of every
			// memory of the channel or the team ANDed with them reads the
			// whole place (35,807 rows and 12 ms at a million).
			if strings.Contains(plan, `"Index Name": "memories_words_`) {
				every++
				walk(root(t, "["+plan+"]"), func(n map[string]any) {
					require.NotEqual(t, "BitmapAnd", n["Node Type"], "the all-words pass ANDs the text index with another:\n%s", plan)
					if n["Node Type"] == "Bitmap Index Scan" {
						require.True(t, strings.HasPrefix(fmt.Sprint(n["Index Name"]), "memories_words_"),
							"the all-words pass reads %v:\n%s", n["Index Name"], plan)
					}
				})
				// Each text index's read stops at the pass's picks: the
				// table is read under a Limit of its own, below the union of
				// the partitions' reads, not every match of a place.
				heaps := 0
				walkUp(root(t, "["+plan+"]"), nil, func(n map[string]any, up []map[string]any) {
					if n["Node Type"] != "Bitmap Heap Scan" {
						return
					}
					heaps++
					for i := len(up) - 1; i >= 0; i-- {
						switch up[i]["Node Type"] {
						case "Result":
							continue
						case "Limit":
							return
						}
						break
					}
					require.Fail(t, "the all-words pass reads every match of a place from the table", "%s", plan)
				})
				require.Positive(t, heaps, "the all-words pass read a text index:\n%s", plan)
			}
			// The memories past their expiry are read by the asker's
			// partitions, not every one of the team's and then filtered.
			if strings.Contains(plan, `"Index Name": "memories_expired`) {
				expired++
				walk(root(t, "["+plan+"]"), func(n map[string]any) {
					if n["Relation Name"] == "memories" || strings.HasPrefix(fmt.Sprint(n["Index Name"]), "memories_expired") {
						removed, _ := n["Rows Removed by Filter"].(float64)
						require.Zero(t, removed, "memory_expired reads the team's expired memories and filters them:\n%s", plan)
					}
					// From the index alone: each question reads them twice.
					if strings.HasPrefix(fmt.Sprint(n["Index Name"]), "memories_expired") {
						require.Equal(t, "Index Only Scan", n["Node Type"], "memory_expired reads the table:\n%s", plan)
					}
				})
			}
		}
	}
	require.Positive(t, expired, "memory_expired's read was explained")
	require.Positive(t, nested, "memory_bm25's statements were explained")
	// The all-words pass ran (the text index read), so its plan was checked.
	require.Positive(t, every, "memory_bm25's all-words pass was explained")
}

// explainNested runs s as the store ran it, with auto_explain logging the
// plan of every statement that memory_bm25 runs inside it.
// remember's duplicate check reads the subject's memories that hold the
// new memory's words, not every memory of the subject: of a person who
// has 3,000 memories, a memory none of them repeats reads a few dozen rows
// (the newest that share a word, and their rows). Through the subject's
// B-tree it read all 3,000 and checked each one's text.
func TestDuplicateCheckReadsMatchesNotTheSubject(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testdb.New(t)
	// Alice's 3,000 memories, Bob's 3,500, and 3,000 people with 3 each.
	_, err := d.Pool.Exec(ctx, `INSERT INTO memories (team_id, scope, subject_type, subject_id, kind, content, normalized,
	                                                   source_key, channel_id, visibility, actor_id, written_by, message_ts, observed_at, idempotency_key)
		SELECT 'T1', 'personal', 'user', u, 'knowledge', 'Shipped the payments release ' || i, 'shipped the payments release ' || i,
		       'slack:T1:D' || u || ':1700000000.000100', 'D' || u, 'dm', u, 'explicit', '1700000000.000100', now() - i * interval '1 minute', u || '/' || i
		FROM (SELECT 'UA' AS u, i FROM generate_series(1, 3000) i
		      UNION ALL SELECT 'UB', i FROM generate_series(1, 3500) i
		      UNION ALL SELECT 'U' || p, i FROM generate_series(1, 3000) p, generate_series(1, 3) i) x`)
	require.NoError(t, err)
	// The planner does not know how many Alice has (its statistics keep
	// only Bob's count), as at a million memories, where most people are
	// not among a column's most common values: it takes her for an
	// average subject.
	_, err = d.Pool.Exec(ctx, "ALTER TABLE memories ALTER COLUMN subject_id SET STATISTICS 1")
	require.NoError(t, err)
	_, err = d.Pool.Exec(ctx, "ANALYZE memories")
	require.NoError(t, err)

	rec := &testdb.Recorder{Prefix: "Memory"}
	store := memory.New(db.New(d.Traced(t, rec)), memory.Options{})
	alice := provenance.Actor{Kind: provenance.KindUser, Team: "T1", ID: "UA", Name: "Alice"}
	place := provenance.Place{Team: "T1", Channel: "DUA", SourceKey: "slack:T1:DUA:1800000000.000100", Visibility: provenance.DM}
	check := func(content string) int {
		before := len(rec.Got())
		out, err := store.Remember(ctx, memory.WriteRequest{Actor: alice, Place: place, Scope: memory.ScopePersonal, Kind: memory.KindKnowledge,
			Content: content, WrittenBy: provenance.ByExplicit})
		require.NoError(t, err)
		require.Equal(t, memory.Stored, out.Status, out.Reason)
		read, checks := 0, 0
		for _, s := range rec.Got()[before:] {
			if s.Name == "MemoryFindSimilar" {
				checks++
				read += memoriesRead(t, explain(t, d.Pool, s))
			}
		}
		require.Equal(t, 1, checks, "a write that meets no similar memory is read for once, under the subject's lock")
		return read
	}
	// Control: the count sees a read of the subject's memories through
	// its B-tree, each checked by its text.
	control := explain(t, d.Pool, testdb.Statement{Name: "control", SQL: `SELECT count(*) FROM memories
		WHERE team_id = 'T1' AND scope = 'personal' AND subject_id = 'UA' AND archived_at IS NULL AND length(content) > $1`, Args: []any{1000}})
	require.GreaterOrEqual(t, memoriesRead(t, control), 3000)
	require.Less(t, check("Moved to the payments team in Lisbon this spring"), 200)
}

// A channel's id is not its workspace's alone: a Slack Connect channel
// keeps one id in every organization that shares it, and each stores its
// own memories there. Auto-recall's fill and the recall tool's listing
// (a channel's newest memories) read the asker's team's rows of that
// channel, not the channel's newest of every team filtered by the team:
// here the asker's workspace holds 300 of the channel's memories, all
// older than five other workspaces' 15,000. Both plans are generic,
// chosen once per connection on the statistics of the moment, so each is
// checked twice: as chosen with every index, and once the team's
// newest-first index is gone. On the parent commit the search's plan
// walked memories_channel backwards through the 15,000 (in LoCoMo's noisy
// shape, five teams of 100,000 in one channel id, 57 to 76 ms a question).
func TestChannelNewestReadsTheAskersTeamOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testdb.New(t)
	const mine, theirs = 300, 15_000
	store, rec, v := sharedChannel(t, d, mine+theirs, func(i int) (string, string) {
		content := fmt.Sprintf("Release note %d: the payments service shipped build %d", i, i*7)
		if i >= mine {
			return "T" + string(rune('B'+i%5)), content
		}
		return "TA", content
	})
	got, err := store.ForPrompt(ctx, v, "what did we decide about the offsite?")
	require.NoError(t, err)
	require.NotEmpty(t, got, "the fill recalls the channel's newest memories")
	listed, err := store.Search(ctx, v, "", 20, false)
	require.NoError(t, err)
	require.Len(t, listed, 20)
	for _, m := range listed {
		require.Equal(t, "TA", m.Team)
	}
	stmts := map[string]testdb.Statement{}
	for _, s := range rec.Got() {
		if s.Name == "MemorySearch" || s.Name == "MemoryRecent" {
			stmts[s.Name] = s
		}
	}
	require.Len(t, stmts, 2, "auto-recall searched and the tool listed")

	// Control: a read of the channel's newest that filters by the team
	// passes the other teams' rows, and this count sees them.
	control := explain(t, d.Pool, testdb.Statement{Name: "control", SQL: `SELECT id FROM memories WHERE channel_id = 'CSHARED'
		AND team_id || '' = $1 ORDER BY created_at DESC LIMIT 10`, Args: []any{"TA"}})
	require.GreaterOrEqual(t, memoriesRead(t, control), theirs)

	for name, s := range stmts {
		require.Less(t, memoriesRead(t, explain(t, d.Pool, s)), 1000, "%s, with every index", name)
	}
	_, err = d.Pool.Exec(ctx, "DROP INDEX memories_newest")
	require.NoError(t, err)
	for name, s := range stmts {
		require.Less(t, memoriesRead(t, explain(t, d.Pool, s)), 1000, "%s, without the team's newest-first index", name)
	}
}

// Recall's all-words pass reads a channel's memories that hold every word
// of the question through a text index keyed by place and word; in a
// channel that other workspaces share (Slack Connect), the place is the
// asker's team's part of it. Here the asker's workspace holds 5 memories
// with both of the question's words (among 400 with one), and five other
// workspaces 15,000 in the same channel id: the index's read is the 5, not
// the channel's 15,005 filtered by team one row at a time (the parent
// commit's).
func TestAllWordsPassReadsTheAskersTeamOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testdb.New(t)
	const mine, both, theirs = 400, 5, 15_000
	store, rec, v := sharedChannel(t, d, mine+both+theirs, func(i int) (string, string) {
		switch {
		case i < mine/2:
			return "TA", fmt.Sprintf("Kestrel %d", i)
		case i < mine:
			return "TA", fmt.Sprintf("Marmalade %d", i)
		case i < mine+both:
			// Both words, in a long text: each weighs less here than in
			// the short ones, so neither word's best postings reach it.
			return "TA", fmt.Sprintf("After the long planning review of the quarter's vendors and budgets, the kestrel team finally ordered the marmalade crates, batch %d", i)
		}
		return "T" + string(rune('B'+i%5)), fmt.Sprintf("Kestrel marmalade %d", i)
	})
	got, err := store.Search(ctx, v, "kestrel marmalade", 10, false)
	require.NoError(t, err)
	require.NotEmpty(t, got)
	require.Contains(t, got[0].Content, "crates", "the all-words pass found the memories that hold both words")
	var search *testdb.Statement
	for _, s := range rec.Got() {
		if s.Name == "MemorySearch" {
			search = &s
		}
	}
	require.NotNil(t, search)

	read := -1.0
	for _, plan := range explainNested(t, d.URL, *search) {
		walk(root(t, "["+plan+"]"), func(n map[string]any) {
			if n["Node Type"] == "Bitmap Index Scan" && n["Index Name"] == "memories_words_place" {
				read, _ = n["Actual Rows"].(float64)
			}
		})
	}
	require.GreaterOrEqual(t, read, float64(both), "the all-words pass read the channel's text index")
	require.Less(t, read, float64(1000), "the all-words pass reads the other teams' matches")
}

// sharedChannel loads n public channel memories into one channel id,
// CSHARED, as Slack Connect shares it: memory i is row(i)'s team's, with
// row(i)'s text, the older the lower i. It returns a store that records
// its statements, and a viewer in team TA's part of the channel.
func sharedChannel(t *testing.T, d *testdb.DB, n int, row func(i int) (team, content string)) (*memory.Store, *testdb.Recorder, memory.Viewer) {
	t.Helper()
	now := time.Now()
	require.NoError(t, corpus.LoadRows(context.Background(), d.Pool, n, func(i int) corpus.Row {
		team, content := row(i)
		actor, at := "U"+team[1:], now.Add(-time.Duration(n+1000-i)*time.Minute)
		return corpus.Row{
			ID: uuid.New(), Team: team, Scope: "channel", SubjectType: "channel", SubjectID: "CSHARED", Kind: "knowledge",
			Content: content, Normalized: strings.ToLower(content),
			SourceKey: fmt.Sprintf("slack:%s:CSHARED:17000%05d.000100", team, i/20), ChannelID: "CSHARED", Visibility: "public",
			ActorID: actor, ActorName: actor, WrittenBy: "explicit", MessageTS: fmt.Sprintf("17000%05d.000100", i/20),
			ObservedAt: at, CreatedAt: at, IdempotencyKey: fmt.Sprintf("k%d", i),
		}
	}))
	rec := &testdb.Recorder{Prefix: "Memory"}
	store := memory.New(db.New(d.Traced(t, rec)), memory.Options{})
	asker := provenance.Actor{Kind: provenance.KindUser, Team: "TA", ID: "UA", Name: "Alice"}
	return store, rec, memory.ViewerAt(asker, provenance.Place{Team: "TA", Channel: "CSHARED", SourceKey: "slack:TA:CSHARED:1800000000.000100", Visibility: provenance.Public})
}

// memoriesRead is how many rows of memories a plan read: those it
// returned and those its filters removed.
func memoriesRead(t *testing.T, plan string) int {
	read := 0.0
	walk(root(t, plan), func(n map[string]any) {
		if n["Relation Name"] != "memories" {
			return
		}
		rows, _ := n["Actual Rows"].(float64)
		removed, _ := n["Rows Removed by Filter"].(float64)
		rechecked, _ := n["Rows Removed by Index Recheck"].(float64)
		loops, _ := n["Actual Loops"].(float64)
		read += (rows + removed + rechecked) * max1(loops)
	})
	return int(read)
}

func explainNested(t *testing.T, url string, s testdb.Statement) []string {
	t.Helper()
	ctx := context.Background()
	cfg, err := pgx.ParseConfig(url)
	require.NoError(t, err)
	var plans []string
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		if i := strings.Index(n.Message, "plan:"); i >= 0 {
			plans = append(plans, strings.TrimSpace(n.Message[i+len("plan:"):]))
		}
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	require.NoError(t, err)
	defer conn.Close(ctx)
	tx, err := conn.Begin(ctx)
	require.NoError(t, err)
	defer tx.Rollback(ctx) //nolint:errcheck
	if s.Settings != "" {
		_, err := tx.Exec(ctx, strings.TrimPrefix(strings.TrimPrefix(s.Settings, "BEGIN READ ONLY;"), "BEGIN;"))
		require.NoError(t, err)
	}
	_, err = tx.Exec(ctx, "LOAD 'auto_explain'; SET LOCAL auto_explain.log_min_duration = 0; SET LOCAL auto_explain.log_nested_statements = on; "+
		"SET LOCAL auto_explain.log_analyze = on; SET LOCAL auto_explain.log_format = json; SET LOCAL client_min_messages = log")
	require.NoError(t, err)
	rows, err := tx.Query(ctx, s.SQL, s.Args...)
	require.NoError(t, err)
	rows.Close()
	require.NoError(t, rows.Err())
	return plans
}

// explain runs EXPLAIN (ANALYZE, BUFFERS) on s as the store ran it.
func explain(t *testing.T, pool *pgxpool.Pool, s testdb.Statement) string {
	t.Helper()
	ctx := context.Background()
	tx, err := pool.Begin(ctx)
	require.NoError(t, err)
	defer tx.Rollback(ctx) //nolint:errcheck
	if s.Settings != "" {
		_, err := tx.Exec(ctx, strings.TrimPrefix(strings.TrimPrefix(s.Settings, "BEGIN READ ONLY;"), "BEGIN;"))
		require.NoError(t, err)
	}
	// A prepared statement outlives the transaction.
	_, err = tx.Exec(ctx, "PREPARE recall_stmt AS "+s.SQL)
	require.NoError(t, err, s.Name)
	defer tx.Exec(ctx, "DEALLOCATE recall_stmt") //nolint:errcheck
	lits := make([]string, len(s.Args))
	for i, a := range s.Args {
		lits[i] = literal(t, a)
	}
	var plan string
	err = tx.QueryRow(ctx, "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE recall_stmt("+strings.Join(lits, ", ")+")").Scan(&plan)
	require.NoError(t, err, s.Name)
	return plan
}

func literal(t *testing.T, a any) string {
	quote := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	switch v := a.(type) {
	case string:
		return quote(v)
	case bool, int, int32, int64, float32, float64:
		return fmt.Sprint(v)
	case uuid.UUID:
		return quote(v.String())
	case []string:
		q := make([]string, len(v))
		for i, s := range v {
			q[i] = quote(s)
		}
		return "ARRAY[" + strings.Join(q, ", ") + "]::text[]"
	case []uuid.UUID:
		q := make([]string, len(v))
		for i, id := range v {
			q[i] = quote(id.String())
		}
		return "ARRAY[" + strings.Join(q, ", ") + "]::uuid[]"
	}
	t.Fatalf("no literal for %T", a)
	return ""
}

func root(t *testing.T, plan string) map[string]any {
	var out []struct {
		Plan map[string]any `json:"Plan"`
	}
	require.NoError(t, json.Unmarshal([]byte(plan), &out))
	return out[0].Plan
}

// recallTables are memories and the recall index's tables that grow with
// them. memory_vocab is not among them: it holds each of a team's words
// once (646 rows here), and the planner rightly reads so few rows whole.
var recallTables = map[string]bool{
	"memories": true, "memory_postings": true, "memory_term_stats": true,
}

// tableReads lists the plan's sequential scans of memories and of the
// recall index's tables.
func tableReads(t *testing.T, plan string) []string {
	var out []string
	walk(root(t, plan), func(n map[string]any) {
		if n["Node Type"] == "Seq Scan" && recallTables[fmt.Sprint(n["Relation Name"])] {
			out = append(out, fmt.Sprint(n["Alias"]))
		}
	})
	return out
}

// indexReads lists the index scans of a plan that return more than max
// rows: a read of an index nearly whole, as costly as the table's. (The
// all-words pass once ANDed the text index's few matches with a bitmap of
// every memory of the team: 35 ms at a million memories.)
func indexReads(t *testing.T, plan string, max int) []string {
	var out []string
	walk(root(t, plan), func(n map[string]any) {
		typ := fmt.Sprint(n["Node Type"])
		if !strings.Contains(typ, "Index") {
			return
		}
		rows, _ := n["Actual Rows"].(float64)
		loops, _ := n["Actual Loops"].(float64)
		if rows*max1(loops) > float64(max) {
			out = append(out, fmt.Sprintf("%s on %v: %.0f rows", typ, n["Index Name"], rows*max1(loops)))
		}
	})
	return out
}

func max1(f float64) float64 { return math.Max(f, 1) }

// walkUp calls f on every node of a plan with the nodes above it, the
// nearest last.
func walkUp(n map[string]any, up []map[string]any, f func(n map[string]any, up []map[string]any)) {
	f(n, up)
	kids, _ := n["Plans"].([]any)
	for _, k := range kids {
		if m, ok := k.(map[string]any); ok {
			walkUp(m, append(up[:len(up):len(up)], n), f)
		}
	}
}

func walk(n map[string]any, f func(map[string]any)) {
	f(n)
	kids, _ := n["Plans"].([]any)
	for _, k := range kids {
		if m, ok := k.(map[string]any); ok {
			walk(m, f)
		}
	}
}

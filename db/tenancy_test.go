package db_test

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// teamOwned are the tables that hold a workspace's data, each with how a
// statement names its team: the team_id column (team in inbox_arrivals), or
// a key that embeds it (a source key, slack:<team>:…; a recall partition,
// <team>/…).
var teamOwned = map[string]string{
	"memories": "team_id", "memory_rows": "team_id", "memory_events": "team_id", "session_messages": "team_id",
	"turns": "team_id", "channel_settings": "team_id", "user_settings": "team_id", "admin_audit": "team_id",
	"installations": "team_id", "inbox_arrivals": "team", "thread_leases": "source_key", "thread_waiters": "source_key",
	"thread_backfills": "source_key", "memory_postings": "part", "memory_term_stats": "part", "memory_part_stats": "part",
	"memory_vocab": "team", "turn_learning": "turn_id", "turn_feedback": "turn_id",
	"model_usage": "team_id", "turn_steps": "turn_id", "turn_recalls": "turn_id",
	"erased_memories": "team_id", "installation_teams": "team_id", "memory_writes": "team_id",
}

// notKeyedByTeam are the statements on team-owned tables that don't name
// the team, each with why that is safe. Everything else must: a new query
// fails TestEveryStatementOnTeamDataIsKeyedByTeam until it names its team
// or is listed here with a reason.
var notKeyedByTeam = map[string]string{
	// By a turn's id, a bigserial unique across teams, that the caller
	// read from a row found by team (the turn opened for a post of one
	// team, a reply found by team, channel and ts).
	"TurnAttempt":        "by turn id, from a turn found by team",
	"TurnDecide":         "by turn id, from a turn found by team",
	"TurnFinish":         "by turn id, from a turn found by team",
	"TurnStreamed":       "by turn id, from a turn found by team",
	"TurnGetByID":        "by turn id, from a learning job of a turn found by team",
	"TurnLearningRecord": "by turn id, from a turn found by team",
	"TurnLearningGet":    "by turn id, from a turn found by team",
	"FeedbackUpsert":     "by turn id, from FeedbackTurnOfReply, keyed by team",
	"FeedbackGet":        "by turn id, from FeedbackTurnOfReply, keyed by team",
	// A turn's trace, steps, recall and usage (h-otel): written by the
	// runner for the turn it opened for a post of one team, read by
	// turns show and the Inspect shortcut for a turn they found first.
	"TurnSetTrace":      "by turn id, of the turn the runner opened",
	"TurnStepRecord":    "by turn id, of the turn the runner opened",
	"TurnStepsOfTurn":   "by turn id, from a turn found first",
	"TurnRecallRecord":  "by turn id, of the turn the runner opened",
	"TurnRecallsOfTurn": "by turn id, from a turn found first",
	"UsageOfTurn":       "by turn id, from a turn found first",
	// `mnemo turns show <permalink>`: the operator's command, over every
	// workspace, by channel and ts (a permalink names no team id; channel
	// ids are unique across workspaces).
	"TurnGetByMessage": "an operator's command, by permalink, over every team",
	// By a memory's id, a uuid unique across teams, after the memory was
	// read by MemoryGetByID or MemoryListByIDPrefix, both keyed by team,
	// and judged by memory.Visible, which compares teams first.
	"MemoryArchive":        "by memory id, after a read keyed by team",
	"MemoryRestore":        "by memory id, after a read keyed by team",
	"MemoryEmbeddings":     "by memory ids, from a recall keyed by team",
	"MemorySetEmbedding":   "by memory id, of a memory just written for a team",
	"MemoryEventsByMemory": "by memory id, after a read keyed by team",
	// Sweeps over every team by time or state: they read no team's data
	// for anyone, they delete or hand back what is due, whoever's it is.
	"RetentionSessionMessages": "retention: every team's rows past their time",
	"RetentionTurns":           "retention: every team's rows past their time",
	"RetentionMemories":        "retention: every team's rows past their time",
	"TurnClaimAbandoned":       "the abandoned-turn sweep: each post found is answered in its own team",
	"ThreadWaiterPrune":        "the waiter sweep: old waiters of every thread",
	"InboxArrivals":            "the inbox mover: every waiting post, each moved with its own team",
	"InboxDepth":               "a metric: counts, no rows",
	"InstallationList":         "mnemo keys rotate: every installation, by the operator",
	// The background embedding job (package embedding) and its status:
	// every team's rows without an embedding of the model, each embedded
	// and written back by id as it is, read by no person.
	"MemoryEmbedPending":            "the embedding job: every team's rows to embed, each written back by id",
	"MemoryEmbeddingStatus":         "a count of every active memory, for mnemo embeddings status",
	"MemoryEmbeddingModels":         "a count per model, for mnemo embeddings status",
	"MemoryEmbedRequeueOtherModels": "the embedding job, once per process: every team's rows with no embedding of the model, queued by id",
	"InstallationTeamsOf":           "mnemo installs: the workspaces of one organisation, by the operator",
	"InstallationForgetOrgTeams":    "an erased organisation's record of the workspaces it served, by its enterprise id, after their data was erased team by team",
}

// Issue 23: every statement that reads or writes a team's data names the
// team in its WHERE clause or key: a team id, or a key that embeds one
// (a thread's source key). The exceptions are listed, each with a reason,
// and each must still exist and still not name its team.
func TestEveryStatementOnTeamDataIsKeyedByTeam(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("internal/dbsqlc/*.sql")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	name := regexp.MustCompile(`(?m)^-- name: (\w+).*$`)
	comment := regexp.MustCompile(`(?m)--.*$`)
	var unkeyed, seen, stale []string
	checked := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		src := string(b)
		idx := name.FindAllStringSubmatchIndex(src, -1)
		for i, m := range idx {
			end := len(src)
			if i+1 < len(idx) {
				end = idx[i+1][0]
			}
			q := src[m[2]:m[3]]
			body := comment.ReplaceAllString(src[m[1]:end], "")
			var tables []string
			for tbl := range teamOwned {
				if regexp.MustCompile(`\b` + tbl + `\b`).MatchString(body) {
					tables = append(tables, tbl)
				}
			}
			if len(tables) == 0 {
				continue
			}
			checked++
			keyed := keyedByTeam(body, tables)
			if _, ok := notKeyedByTeam[q]; ok {
				seen = append(seen, q)
				if keyed {
					stale = append(stale, q)
				}
				continue
			}
			if !keyed {
				sort.Strings(tables)
				unkeyed = append(unkeyed, q+" ("+strings.Join(tables, ", ")+")")
			}
		}
	}
	require.Greater(t, checked, 50, "the statements were found")
	require.Empty(t, unkeyed, "statements on team data that don't name the team")
	require.Empty(t, stale, "listed in notKeyedByTeam, but they name their team now")
	for q := range notKeyedByTeam {
		require.Contains(t, seen, q, "notKeyedByTeam lists %s, which is gone", q)
	}
}

// keyedByTeam reports whether a statement names the team of the tables it
// touches: their team column, or a key that embeds the team. turn_learning
// and turn_feedback are keyed by a turn, so a statement on them names the
// team through turns.
func keyedByTeam(body string, tables []string) bool {
	body = keyPart(body)
	for _, tbl := range tables {
		switch teamOwned[tbl] {
		case "team_id":
			// A thread's source key embeds its team.
			if regexp.MustCompile(`\b(team_id|source_key)\b`).MatchString(body) {
				return true
			}
		case "team":
			if regexp.MustCompile(`\bteam\b`).MatchString(body) {
				return true
			}
		case "source_key", "part":
			if regexp.MustCompile(`\b(source_key|part|team_id)\b`).MatchString(body) {
				return true
			}
		case "turn_id":
			if regexp.MustCompile(`\bteam_id\b`).MatchString(body) {
				return true
			}
		}
	}
	return false
}

// keyPart is where a statement names the rows it touches: an INSERT's
// columns and conflict key, else its WHERE clauses (and join conditions),
// without what it only selects or orders by.
func keyPart(body string) string {
	body = orderBy.ReplaceAllString(body, " ")
	if insert.MatchString(body) {
		return body
	}
	var b strings.Builder
	for _, m := range where.FindAllStringSubmatch(body, -1) {
		b.WriteString(m[1])
		b.WriteString(" ")
	}
	return b.String()
}

var (
	orderBy = regexp.MustCompile(`(?is)\bORDER BY\b[^;)]*`)
	// An INSERT, after its CTEs or as the first of them.
	insert = regexp.MustCompile(`(?is)^\s*(WITH\b.*?[()]\s*)?INSERT\b`)
	where  = regexp.MustCompile(`(?is)\b(?:WHERE|ON|USING)\b(.*?)(?:\bGROUP BY\b|\bLIMIT\b|\bRETURNING\b|;|$)`)
)

// The check itself: a statement without its team fails it, and one with
// it passes (the controls for the test above).
func TestTeamKeyCheckCatchesAStatementWithoutItsTeam(t *testing.T) {
	t.Parallel()
	require.False(t, keyedByTeam("SELECT * FROM memories WHERE id = $1", []string{"memories"}))
	require.True(t, keyedByTeam("SELECT * FROM memories WHERE id = $1 AND team_id = $2", []string{"memories"}))
	require.False(t, keyedByTeam("SELECT * FROM turn_feedback WHERE turn_id = $1", []string{"turn_feedback"}))
	require.True(t, keyedByTeam("DELETE FROM inbox_arrivals a WHERE a.team = $1", []string{"inbox_arrivals"}))
	require.False(t, keyedByTeam("SELECT team_id FROM memories WHERE id = $1 ORDER BY team_id", []string{"memories"}), "selecting or ordering by the team is not keying by it")
	require.True(t, keyedByTeam("INSERT INTO user_settings (team_id, user_id) VALUES ($1, $2)", []string{"user_settings"}))
	require.True(t, keyedByTeam("WITH m AS (INSERT INTO memories (team_id, content) VALUES ($1, $2) RETURNING *) SELECT * FROM m", []string{"memories"}))
	require.False(t, keyedByTeam("WITH m AS (INSERT INTO memory_events (memory_id) VALUES ($1) RETURNING *) SELECT * FROM m", []string{"memory_events"}))
}

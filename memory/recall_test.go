package memory_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
)

// put writes a memory the way the write path does once the review's cues
// are wired in, aged by age.
func (b *testBundle) put(t *testing.T, actor provenance.Actor, place provenance.Place, scope memory.Scope, kind memory.Kind, content string, cues []string, age time.Duration) memory.Memory {
	t.Helper()
	ctx := context.Background()
	subject := map[memory.Scope]string{
		memory.ScopePersonal: actor.ID, memory.ScopeConversation: place.SourceKey,
		memory.ScopeChannel: place.Channel, memory.ScopeWorkspace: place.Team,
	}[scope]
	row, err := b.db.DB.Memories().Insert(ctx, db.MemoryInsert{
		Team: place.Team, Scope: string(scope), SubjectType: string(scope.DefaultSubject()), SubjectID: subject, Kind: string(kind),
		Content: content, Normalized: memory.Normalize(content), Cues: cues, SourceKey: place.SourceKey,
		ChannelID: place.Channel, Visibility: place.Visibility, ActorID: actor.ID, ActorName: actor.Name,
		WrittenBy: "explicit", ObservedAt: time.Now().Add(-age), IdempotencyKey: uuid.NewString(),
	})
	require.NoError(t, err)
	_, err = b.db.Pool.Exec(ctx, "UPDATE memories SET created_at = now() - $2::interval WHERE id = $1", row.ID, fmt.Sprintf("%d seconds", int(age.Seconds())))
	require.NoError(t, err)
	m, err := b.store.Get(ctx, row.ID)
	require.NoError(t, err)
	return m
}

func contents(ms []memory.Memory) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Content
	}
	return out
}

// timeNotes are channel notes that all contain "time", as in the issue.
func timeNotes(n int) []string {
	subjects := []string{"payments", "search", "billing", "checkout", "auth", "mobile app", "web app", "ledger", "reporting", "inventory"}
	forms := []string{
		"Build time for %s dropped to %d minutes after caching",
		"Response time alerts for %s fire above %d ms",
		"The %s team demo is at lunch time every %d weeks",
		"On-call handover for %s happens at %d:00 local time",
		"Standup time for the %s team moved to %d:30",
	}
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf(forms[i%len(forms)], subjects[(i/len(forms))%len(subjects)], 10+i)
	}
	return out
}

// The buried personal memory: Alice said where she lives three
// months ago; the channel she asks in has 50 newer notes that contain
// "time". Her memory, found through its cues, comes first.
func TestBuriedTimezoneRanksThePersonalMemoryFirst(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, bob := user("UA"), user("UB")
	tz := b.put(t, alice, publicThread, memory.ScopePersonal, memory.KindKnowledge, "Located in San Francisco and uses Pacific Time",
		[]string{"timezone", "time zone", "what time is it", "local time", "PT", "Pacific", "where based"}, 90*24*time.Hour)
	for i, note := range timeNotes(50) {
		b.put(t, bob, otherPublic, memory.ScopeChannel, memory.KindKnowledge, note, []string{"schedule", "performance"}, time.Duration(i)*time.Hour)
	}
	ask := provenance.Place{Team: team, Channel: otherPublic.Channel, SourceKey: "slack:T1:C2:1800000900.000100", Visibility: provenance.Public}

	got, err := b.store.ForPrompt(context.Background(), memory.ViewerAt(alice, ask), "what time is it for me?")
	require.NoError(t, err)
	require.Len(t, got, memory.PromptMemories, "the channel notes compete for the prompt")
	require.Equal(t, tz.Content, got[0].Content, "auto-recall: %q", contents(got))

	found, err := b.store.Search(context.Background(), memory.ViewerAt(alice, ask), "what time is it for me?", 5, true)
	require.NoError(t, err)
	require.Equal(t, tz.Content, found[0].Content, "recall tool: %q", contents(found))

	// Control: for Bob, who has no such memory, the prompt is all channel notes.
	other, err := b.store.ForPrompt(context.Background(), memory.ViewerAt(bob, ask), "what time is it for me?")
	require.NoError(t, err)
	require.Len(t, other, memory.PromptMemories)
	require.NotContains(t, contents(other), tz.Content)
}

// Up to three of the asker's own preferences reach the prompt however many
// channel memories match the question better; the one that matches comes
// first among them.
func TestReservedPreferencesSurviveChannelNoise(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, bob := user("UA"), user("UB")
	prefs := []string{"Prefers replies in French", "Prefers dates written as ISO 8601", "Likes answers as short bullet points"}
	for i, p := range prefs {
		b.put(t, alice, dmAlice, memory.ScopePersonal, memory.KindPreference, p, nil, time.Duration(i+1)*time.Hour)
	}
	deployPref := b.put(t, alice, dmAlice, memory.ScopePersonal, memory.KindPreference, "Wants deploy summaries to list the risks first", nil, 30*24*time.Hour)
	for i := range 20 {
		b.put(t, bob, publicThread, memory.ScopeChannel, memory.KindProcedure,
			fmt.Sprintf("Deploys of the payments service number %d go out after QA sign-off", i), []string{"deploy", "release"}, time.Duration(i)*time.Minute)
	}
	ask := publicThread2

	got, err := b.store.ForPrompt(context.Background(), memory.ViewerAt(alice, ask), "how do we deploy the payments service?")
	require.NoError(t, err)
	require.Len(t, got, memory.PromptMemories)
	var personal []string
	for _, m := range got {
		if m.Scope == memory.ScopePersonal {
			personal = append(personal, m.Content)
		}
	}
	require.Len(t, personal, memory.PromptReserved, "%q", contents(got))
	require.Equal(t, deployPref.Content, personal[0], "the preference that matches is the most relevant")

	// Control: Bob has no preferences; his prompt is channel procedures.
	other, err := b.store.ForPrompt(context.Background(), memory.ViewerAt(bob, ask), "how do we deploy the payments service?")
	require.NoError(t, err)
	require.Len(t, other, memory.PromptMemories)
	for _, m := range other {
		require.Equal(t, memory.ScopeChannel, m.Scope)
	}
}

// A question that shares no word with a memory's content finds it through
// the cues the review wrote.
func TestRecallMatchesCues(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice, bob := user("UA"), user("UB")
	b.put(t, alice, publicThread, memory.ScopePersonal, memory.KindPreference, "Prefers Neovim for writing code",
		[]string{"editor", "text editor", "IDE", "which editor", "coding setup"}, time.Hour)
	b.put(t, bob, publicThread, memory.ScopePersonal, memory.KindPreference, "Prefers Emacs for writing code", nil, time.Hour)

	got, err := b.store.Search(context.Background(), memory.ViewerAt(alice, publicThread), "what editor do I use?", 5, true)
	require.NoError(t, err)
	require.Equal(t, []string{"Prefers Neovim for writing code"}, contents(got))

	// Bob's memory has no cues: the same question misses it, while its own
	// words find it.
	got, err = b.store.Search(context.Background(), memory.ViewerAt(bob, publicThread), "what editor do I use?", 5, true)
	require.NoError(t, err)
	require.Empty(t, got)
	got, err = b.store.Search(context.Background(), memory.ViewerAt(bob, publicThread), "emacs", 5, true)
	require.NoError(t, err)
	require.Equal(t, []string{"Prefers Emacs for writing code"}, contents(got))
}

// A short query whose every word is misspelled is corrected to the words
// the workspace uses.
func TestRecallCorrectsTypos(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := user("UA")
	b.remember(t, alice, publicThread, memory.ScopeChannel, memory.KindKnowledge, "The staging database is refreshed nightly")
	b.remember(t, alice, publicThread, memory.ScopeChannel, memory.KindProcedure, "Deploys go out on Tuesdays after QA sign-off")

	got, err := b.store.Search(context.Background(), memory.ViewerAt(alice, publicThread), "stagng databse", 5, true)
	require.NoError(t, err)
	require.NotEmpty(t, got)
	require.Equal(t, "The staging database is refreshed nightly", got[0].Content)
	// The only other result is its thread context, said just before it.
	require.Subset(t, []string{"The staging database is refreshed nightly", "Deploys go out on Tuesdays after QA sign-off"}, contents(got))

	got, err = b.store.Search(context.Background(), memory.ViewerAt(alice, publicThread), "qxzv wplk", 5, true)
	require.NoError(t, err)
	require.Empty(t, got, "words near none of the workspace's match nothing")
}

func embedder(t *testing.T, url string) llm.Embedder {
	return llm.NewEmbedder("test-key", url+"/v1", "text-embedding-3-small", llm.WithRetryPolicy(llm.RetryPolicy{MaxAttempts: 1}))
}

// With an embedder, a paraphrase that shares no word and no cue with a
// memory finds it; the memory's vector is computed once and stored.
func TestEmbeddingsFindParaphrases(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := user("UA")
	neovim := b.put(t, alice, publicThread, memory.ScopePersonal, memory.KindPreference, "Prefers Neovim for writing code", nil, time.Hour)
	b.put(t, alice, publicThread, memory.ScopeChannel, memory.KindKnowledge, "The staging database is refreshed nightly", nil, time.Hour)
	v := memory.ViewerAt(alice, publicThread)

	// Control: by text alone the paraphrase finds nothing.
	got, err := b.store.Search(context.Background(), v, "which IDE do I like", 5, true)
	require.NoError(t, err)
	require.Empty(t, got)

	model := fakellm.New(t, nil)
	withEmbeddings := memory.New(b.db.DB, memory.Options{Embedder: embedder(t, model.URL)})
	got, err = withEmbeddings.Search(context.Background(), v, "which IDE do I like", 5, true)
	require.NoError(t, err)
	require.Equal(t, []string{neovim.Content}, contents(got))

	stored, err := b.db.DB.Memories().Embeddings(context.Background(), []uuid.UUID{neovim.ID})
	require.NoError(t, err)
	require.Len(t, stored[neovim.ID], fakellm.Dim)
	reqs := model.EmbedRequests()
	require.Len(t, reqs, 1)
	require.Equal(t, "which IDE do I like", reqs[0].Input[0])
	require.Len(t, reqs[0].Input, 3, "the query and both memories, in one request")

	_, err = withEmbeddings.Search(context.Background(), v, "what editor do I prefer", 5, true)
	require.NoError(t, err)
	reqs = model.EmbedRequests()
	require.Len(t, reqs, 2)
	require.Equal(t, []string{"what editor do I prefer"}, reqs[1].Input, "stored vectors are not computed again")
}

// A failing embeddings endpoint leaves recall as it is without one.
func TestEmbeddingFailureFallsBackToText(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := user("UA")
	b.put(t, alice, publicThread, memory.ScopeChannel, memory.KindKnowledge, "The staging database is refreshed nightly", nil, time.Hour)
	var calls atomic.Int32
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": "overloaded", "type": "server_error"}})
	}))
	t.Cleanup(down.Close)
	s := memory.New(b.db.DB, memory.Options{Embedder: embedder(t, down.URL)})
	got, err := s.Search(context.Background(), memory.ViewerAt(alice, publicThread), "when is the staging database refreshed", 5, true)
	require.NoError(t, err)
	require.Equal(t, []string{"The staging database is refreshed nightly"}, contents(got))
	require.EqualValues(t, 1, calls.Load(), "the embedder was asked, and failed")
}

// A word only someone else's private memory holds is still unknown to
// everyone else: Bob's query "kubectl" is corrected to the "kubectx" his
// channel holds whether or not Alice's DM memory says "kubectl". (Before,
// the correction read every word of the team, so Alice's DM turned the
// correction off and Bob found nothing.)
func TestTypoCorrectionIgnoresWordsTheAskerCannotSee(t *testing.T) {
	t.Parallel()
	alice, bob := user("UA"), user("UB")
	search := func(withPrivate bool) []string {
		b := setup(t)
		b.put(t, bob, publicThread, memory.ScopeChannel, memory.KindProcedure, "Install kubectx to switch cluster contexts", nil, time.Hour)
		if withPrivate {
			private := b.put(t, alice, dmAlice, memory.ScopePersonal, memory.KindKnowledge, "I run kubectl from my home laptop", nil, time.Hour)
			// Control: the private memory is there, and Alice finds it.
			got, err := b.store.Search(context.Background(), memory.ViewerAt(alice, dmAlice), "kubectl", 5, true)
			require.NoError(t, err)
			require.Equal(t, []string{private.Content}, contents(got))
		}
		got, err := b.store.Search(context.Background(), memory.ViewerAt(bob, publicThread), "kubectl", 5, true)
		require.NoError(t, err)
		return contents(got)
	}
	without, with := search(false), search(true)
	require.Equal(t, []string{"Install kubectx to switch cluster contexts"}, without, "the correction finds the visible word")
	require.Equal(t, without, with, "an invisible memory changes nothing")
}

// The "When did Maria go to the beach?": 300 newer memories say
// "Maria … going", one a year old says "beach". Every visible match is
// ranked, and the rare word outweighs the common ones and recency, in a
// channel and among the asker's own memories alike. (Before, only the
// newest 64 matches of each branch were ranked, by an unweighted count of
// matching words.)
func TestOldRareWordOutranksNewCommonWords(t *testing.T) {
	t.Parallel()
	for _, scope := range []memory.Scope{memory.ScopeChannel, memory.ScopePersonal} {
		t.Run(string(scope), func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			maria := user("UM")
			place := dmAlice
			if scope == memory.ScopeChannel {
				place = publicThread
			}
			old := b.put(t, maria, place, scope, memory.KindKnowledge, "Maria (3 June 2023): spent the whole Sunday at the beach with the kids", nil, 365*24*time.Hour)
			for i := range 300 {
				b.put(t, maria, place, scope, memory.KindKnowledge, fmt.Sprintf("Maria (%d May 2024): going to the pottery class number %d", 1+i%28, i), nil, time.Duration(i)*time.Hour)
			}
			got, err := b.store.Search(context.Background(), memory.ViewerAt(maria, place), "When did Maria go to the beach?", 10, true)
			require.NoError(t, err)
			require.NotEmpty(t, got)
			require.Equal(t, old.Content, got[0].Content, "%q", contents(got))
			prompt, err := b.store.ForPrompt(context.Background(), memory.ViewerAt(maria, place), "When did Maria go to the beach?")
			require.NoError(t, err)
			require.Contains(t, contents(prompt), old.Content)
		})
	}
}

// The recall index follows every write in its own transaction: a memory is
// counted when stored, and leaves the statistics, word by word, when it is
// archived or deleted.
func TestRecallIndexFollowsWritesArchivesAndDeletes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	alice := user("UA")
	df := func(term string) int {
		var n int
		require.NoError(t, b.db.Pool.QueryRow(ctx, "SELECT coalesce(sum(df), 0) FROM memory_term_stats WHERE term = $1", term).Scan(&n))
		return n
	}
	postings := func(id uuid.UUID) int {
		var n int
		require.NoError(t, b.db.Pool.QueryRow(ctx, "SELECT count(*) FROM memory_postings WHERE id = $1", id).Scan(&n))
		return n
	}
	vocab := func(term string) int {
		var n int
		require.NoError(t, b.db.Pool.QueryRow(ctx, "SELECT coalesce(sum(parts), 0) FROM memory_vocab WHERE term = $1", term).Scan(&n))
		return n
	}
	m := b.put(t, alice, publicThread, memory.ScopeChannel, memory.KindKnowledge, "The zeppelin hangar opens at dawn", nil, time.Hour)
	require.Equal(t, 1, df("zeppelin"))
	require.Positive(t, postings(m.ID))
	require.Equal(t, 1, vocab("zeppelin"), "the team's vocabulary has the word")

	_, err := b.db.DB.Memories().Archive(ctx, m.ID, "forgotten", alice.ID, nil)
	require.NoError(t, err)
	require.Zero(t, df("zeppelin"), "an archived memory leaves the statistics")
	require.Zero(t, postings(m.ID))
	require.Zero(t, vocab("zeppelin"), "the word leaves the team's vocabulary")
	var words int
	require.NoError(t, b.db.Pool.QueryRow(ctx, "SELECT count(*) FROM memory_term_stats WHERE term = 'zeppelin'").Scan(&words))
	require.Zero(t, words, "and the vocabulary")

	_, err = b.db.DB.Memories().Restore(ctx, m.ID)
	require.NoError(t, err)
	require.Equal(t, 1, df("zeppelin"), "a restored memory is counted again")
	require.Equal(t, 1, vocab("zeppelin"))

	_, err = b.db.Pool.Exec(ctx, "DELETE FROM memories WHERE id = $1", m.ID)
	require.NoError(t, err)
	require.Zero(t, df("zeppelin"), "a deleted memory leaves the statistics")
	require.Zero(t, postings(m.ID))
	require.Zero(t, vocab("zeppelin"))
}

// The index that the write triggers keep, memory by memory, is the one a
// rebuild from the memories makes: postings, statistics and vocabulary,
// after inserts, archives, restores, a move to another thread and deletes.
func TestRecallIndexEqualsARebuild(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	alice, bob := user("UA"), user("UB")
	var ms []memory.Memory
	for i, text := range []string{
		"The zeppelin hangar opens at dawn", "Deploys to the zeppelin cluster need two approvals",
		"Bob prefers tea over coffee", "The hangar doors stick in the cold", "Standup moves to ten on Fridays",
	} {
		who := alice
		if i%2 == 1 {
			who = bob
		}
		ms = append(ms, b.put(t, who, publicThread, memory.ScopeChannel, memory.KindKnowledge, text, nil, time.Hour))
	}
	ms = append(ms, b.put(t, bob, dmBob, memory.ScopePersonal, memory.KindPreference, "I like my zeppelin models painted red", nil, time.Hour))
	_, err := b.db.DB.Memories().Archive(ctx, ms[1].ID, "forgotten", alice.ID, nil)
	require.NoError(t, err)
	_, err = b.db.DB.Memories().Archive(ctx, ms[3].ID, "forgotten", alice.ID, nil)
	require.NoError(t, err)
	_, err = b.db.DB.Memories().Restore(ctx, ms[3].ID)
	require.NoError(t, err)
	_, err = b.db.Pool.Exec(ctx, "UPDATE memories SET source_key = source_key || '9', observed_at = observed_at + interval '1 second' WHERE id = $1", ms[4].ID)
	require.NoError(t, err)
	_, err = b.db.Pool.Exec(ctx, "DELETE FROM memories WHERE id = $1", ms[2].ID)
	require.NoError(t, err)

	kept := indexSnapshot(t, b)
	require.NotEmpty(t, kept["postings"])
	require.Contains(t, kept["vocabulary"], "T1 zeppelin 2", "two partitions hold the word: the channel's and Bob's")
	_, err = b.db.Pool.Exec(ctx, "SELECT memory_index_rebuild()")
	require.NoError(t, err)
	require.Equal(t, indexSnapshot(t, b), kept)
}

// indexSnapshot is recall's index as text, table by table.
func indexSnapshot(t *testing.T, b *testBundle) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for table, q := range map[string]string{
		// A partition by its name: its number may differ from a rebuild's.
		"postings": `SELECT s.part || ' ' || p.term || ' ' || p.impact || ' ' || p.at || ' ' || p.id
			FROM memory_postings p JOIN memory_part_stats s ON s.id = p.part ORDER BY 1`,
		"statistics": `SELECT s.part || ' ' || t.term || ' ' || t.df
			FROM memory_term_stats t JOIN memory_part_stats s ON s.id = t.part ORDER BY 1`,
		"partitions": "SELECT part || ' ' || docs FROM memory_part_stats ORDER BY 1",
		"vocabulary": "SELECT team || ' ' || term || ' ' || parts FROM memory_vocab ORDER BY 1",
	} {
		rows, err := b.db.Pool.Query(context.Background(), q)
		require.NoError(t, err)
		got, err := pgx.CollectRows(rows, pgx.RowTo[string])
		require.NoError(t, err)
		out[table] = got
	}
	return out
}

// The write triggers index a write of a few rows with the plans each
// connection keeps, and plan a larger one afresh (more than 32 rows,
// db/definitions/30_recall_index.sql). Both ways, on one connection, kept
// plans first, leave the index a rebuild makes: each step runs once as
// statements of one row and once as one statement of 40.
func TestRecallIndexEqualsARebuildAfterSmallAndLargeWrites(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	conn, err := b.db.Pool.Acquire(ctx)
	require.NoError(t, err)
	defer conn.Release()
	const rows = 40
	insert := `INSERT INTO memories (team_id, scope, subject_type, subject_id, kind, content, normalized, source_key, channel_id,
	                                 visibility, actor_id, written_by, message_ts, observed_at, idempotency_key)
		SELECT 'T1', 'channel', 'channel', 'C1', 'knowledge', $1 || ' zeppelin hangar ' || i || ' opens at dawn', $1 || i,
		       'slack:T1:C1:170000000' || i % 3 || '.000100', 'C1', 'public', 'UA', 'explicit', '1700000000.000100',
		       now() + i * interval '1 second', $1 || i
		FROM generate_series($2::int, $3::int) i`
	// Each step with the rows of one batch: $1 names the batch, and
	// [$2, $3] are the rows of one statement.
	steps := []string{
		insert,
		// Archived and restored: out of the index and back.
		"UPDATE memories SET archived_at = now() WHERE normalized LIKE $1 || '%' AND substr(normalized, length($1) + 1)::int BETWEEN $2 AND $3",
		"UPDATE memories SET archived_at = NULL WHERE normalized LIKE $1 || '%' AND substr(normalized, length($1) + 1)::int BETWEEN $2 AND $3 AND substr(normalized, length($1) + 1)::int % 4 <> 0",
		// Nothing the index holds changes.
		"UPDATE memories SET embedding_model = 'm' WHERE normalized LIKE $1 || '%' AND substr(normalized, length($1) + 1)::int BETWEEN $2 AND $3",
		// Moved to another thread, with new text.
		"UPDATE memories SET source_key = source_key || '9', content = content || ' sharp', observed_at = observed_at + interval '1 minute' WHERE normalized LIKE $1 || '%' AND substr(normalized, length($1) + 1)::int BETWEEN $2 AND $3 AND substr(normalized, length($1) + 1)::int % 2 = 0",
		"DELETE FROM memories WHERE normalized LIKE $1 || '%' AND substr(normalized, length($1) + 1)::int BETWEEN $2 AND $3 AND substr(normalized, length($1) + 1)::int % 3 = 0",
	}
	for _, step := range steps {
		for i := 1; i <= rows; i++ {
			_, err := conn.Exec(ctx, step, "small", i, i)
			require.NoError(t, err, step)
		}
		_, err := conn.Exec(ctx, step, "large", 1, rows)
		require.NoError(t, err, step)
	}
	moved := 0 // restored (i % 4 <> 0), moved (even) and not deleted
	for i := 1; i <= rows; i++ {
		if i%4 == 2 && i%3 != 0 {
			moved++
		}
	}
	var n int
	require.NoError(t, conn.QueryRow(ctx, "SELECT count(*) FROM memories WHERE archived_at IS NULL AND content LIKE '%sharp'").Scan(&n))
	require.Equal(t, 2*moved, n, "both batches hold active moved memories")

	kept := indexSnapshot(t, b)
	require.Contains(t, kept["vocabulary"], "T1 sharp 1", "the moved memories' new word is indexed")
	_, err = b.db.Pool.Exec(ctx, "SELECT memory_index_rebuild()")
	require.NoError(t, err)
	require.Equal(t, indexSnapshot(t, b), kept)
}

// An update that changes a memory's id (a repair by hand, a test giving
// ids a shared prefix) re-indexes it under its new id.
func TestRecallIndexFollowsAnIDChange(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	alice := user("UA")
	m := b.put(t, alice, publicThread, memory.ScopeChannel, memory.KindKnowledge, "The zeppelin hangar opens at dawn", nil, time.Hour)
	id := uuid.New()
	_, err := b.db.Pool.Exec(ctx, "UPDATE memories SET id = $1 WHERE id = $2", id, m.ID)
	require.NoError(t, err)
	got, err := b.store.Search(ctx, memory.ViewerAt(alice, publicThread), "zeppelin", 5, true)
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.Equal(t, id, got[0].ID)
}

// A new memory that ties with hundreds of older ones (the same words, the
// same length) is found by the next search: postings of one weight are
// read newest first, so the depth at which recall stops reading never
// leaves it out.
func TestNewMemoryTiedWithManyIsFoundAtOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := user("UA")
	const text = "Deploys of payments go out on Tuesdays after QA sign-off"
	for i := range 2 * int(db.MaxDepth) {
		b.put(t, alice, publicThread, memory.ScopeChannel, memory.KindProcedure, text, nil, time.Duration(i+1)*time.Hour)
	}
	m := b.put(t, alice, publicThread, memory.ScopeChannel, memory.KindProcedure, text, nil, 0)
	got, err := b.store.Search(context.Background(), memory.ViewerAt(alice, publicThread), text, 10, true)
	require.NoError(t, err)
	require.Len(t, got, 10)
	require.Equal(t, m.ID, got[0].ID, "the newest of the tied memories comes first")
}

// Recall reads each word's postings only so deep. When the common words'
// lists are cut off among ties of one text, every memory of a rarer word
// whose list was read whole is bounded by its own word plus the cut-off
// weight of all the others, above the memories that hold all the others;
// recall must still score those: a memory with four of the question's five
// words outranks forty with the fifth alone (found in make bench's
// write-to-visible check: "The billing SLA is 99.9 percent monthly uptime"
// returned none of its 821 copies).
func TestMemoriesWithMostWordsSurviveTheDepthCut(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := user("UA")
	for i := range 160 {
		b.put(t, alice, publicThread2, memory.ScopeChannel, memory.KindKnowledge, "Lorem ipsum dolor sit amet", nil, time.Duration(i+1)*time.Minute)
	}
	for i := range 40 {
		b.put(t, alice, publicThread2, memory.ScopeChannel, memory.KindKnowledge, "Zulu yankee xray whiskey victor uniform tango sierra romeo quebec", nil, time.Duration(i+1)*time.Minute)
	}
	const four = "Alpha bravo charlie delta"
	for i := range int(db.MaxDepth) + 72 {
		b.put(t, alice, publicThread, memory.ScopeChannel, memory.KindKnowledge, four, nil, time.Duration(i+1)*time.Hour)
	}
	got, err := b.store.Search(context.Background(), memory.ViewerAt(alice, publicThread), "alpha bravo charlie delta zulu", 5, true)
	require.NoError(t, err)
	require.NotEmpty(t, got)
	require.Equal(t, four, got[0].Content, "four of five words outrank the fifth alone: %v", contents(got))
}

// A conversation's answer often shares with the question only words that
// are common in the rest of a busy channel ("start", "run"), while its
// thread holds the rest ("Melanie"). Recall reads the thread of a match
// as evidence: the answer two messages after the match outranks the
// channel's 200 newer, shorter memories of the same common words.
func TestThreadHoldsTheAnswerInABusyChannel(t *testing.T) {
	t.Parallel()
	b := setup(t)
	caroline, melanie, ops := user("UC"), user("UM"), user("UO")
	thread := provenance.Place{Team: team, Channel: "C1", SourceKey: "slack:T1:C1:1800000100.000100", Visibility: provenance.Public}
	month := 30 * 24 * time.Hour
	b.put(t, caroline, thread, memory.ScopeChannel, memory.KindKnowledge, "Caroline: Melanie, how did you ever get into running?", nil, month+3*time.Minute)
	b.put(t, melanie, thread, memory.ScopeChannel, memory.KindKnowledge, "oh, that is a long story, give me a second", nil, month+2*time.Minute)
	answer := b.put(t, melanie, thread, memory.ScopeChannel, memory.KindKnowledge, "I started running to clear my head after work", nil, month+time.Minute)
	for i := range 200 {
		other := provenance.Place{Team: team, Channel: "C1", SourceKey: fmt.Sprintf("slack:T1:C1:1800001%03d.000100", i), Visibility: provenance.Public}
		b.put(t, ops, other, memory.ScopeChannel, memory.KindKnowledge, fmt.Sprintf("Start the nightly run of job %d", i), nil, time.Duration(i)*time.Hour)
	}
	v := memory.ViewerAt(caroline, publicThread)
	got, err := b.store.Search(context.Background(), v, "Why did Melanie start running?", 5, true)
	require.NoError(t, err)
	require.Contains(t, contents(got), answer.Content, "%q", contents(got))
	prompt, err := b.store.ForPrompt(context.Background(), v, "Why did Melanie start running?")
	require.NoError(t, err)
	require.Contains(t, contents(prompt), answer.Content)
}

// Thread evidence weighs a window's matches from their text
// (memory_term_weights), as the picks are scored, where it once read them
// from the postings (memory_terms): the two give every word the same
// weight, to the bit, or a thread's score would change with the path that
// read it. Content and cues, repeated words and words in both.
func TestTermWeightsAreThePostingsWeights(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	alice := user("UA")
	for _, c := range []struct {
		content string
		cues    []string
	}{
		{"The zeppelin hangar opens at dawn", nil},
		{"Deploy deploy deploy: the zeppelin cluster needs two approvals before any deploy", []string{"zeppelin deploys", "approvals"}},
		{"Bob prefers tea", []string{"drinks", "tea", "beverage preferences for meetings and offsites"}},
		{"A long memory about the staging database, its nightly refresh, the on-call rota for it, and who to ask when the refresh fails at night", []string{"staging"}},
	} {
		b.put(t, alice, publicThread, memory.ScopeChannel, memory.KindKnowledge, c.content, c.cues, time.Hour)
	}
	var differ, compared int
	require.NoError(t, b.db.Pool.QueryRow(ctx, `
		WITH w AS (
			SELECT m.id, t.term, t.impact AS posting, (SELECT x.impact FROM memory_term_weights(m.search, ARRAY[t.term]) x) AS weighed
			FROM memories m CROSS JOIN LATERAL memory_terms(m.search) t
		)
		SELECT count(*) FILTER (WHERE posting IS DISTINCT FROM weighed), count(*) FROM w`).Scan(&differ, &compared))
	require.Greater(t, compared, 20, "every word of every memory is compared")
	require.Zero(t, differ, "of %d words", compared)

	// And the query of those words, whatever they hold, is the words.
	var all, anyOf bool
	require.NoError(t, b.db.Pool.QueryRow(ctx, `
		SELECT array_to_tsvector(ARRAY['it''s', 'a\b', 'c:d']) @@ recall_words_query(ARRAY['it''s', 'a\b', 'c:d'], '&'),
		       array_to_tsvector(ARRAY['x', 'a\b']) @@ recall_words_query(ARRAY['it''s', 'a\b', 'c:d'], '|')`).Scan(&all, &anyOf))
	require.True(t, all, "every word is its own lexeme")
	require.True(t, anyOf)
}

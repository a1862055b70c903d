package main

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakeslack"
	"github.com/mnemo-bot/mnemo/internal/testkit/scripted"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/learn"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
)

// aliceEverywhere gives Alice rows in every table that holds a person's
// text, through the real paths: her posts run turns (session log, turns,
// model usage, inbox, the job queue), in a channel and in her DM with
// mnemo; she presses 👍 on an answer, she remembers (a memory, its
// history, its words), switches learning off (her settings), and an admin
// forgets a thread-only instruction about her and exports her memories
// (the admin record). Bob asks in her thread what she said, and his answer
// quotes her message whole, with no tool trace (quotesHer). Bob talks in
// another thread; his words must survive her erasure. Then Bob asks about
// deploys: his turn recalls the channel memory she wrote, and its answer
// and tool trace quote it. It returns that memory and Bob's turn.
func aliceEverywhere(t *testing.T, b *bot) (memory.Memory, int64) {
	t.Helper()
	const ch = "C0TEAM"
	root, _ := b.mention(alice, ch, "remember that I prefer zqxalpha summaries", "")
	answer := b.replies(ch, root, 1)[0]
	b.waitDone(ch, root)
	b.pressFeedback(alice, ch, answer.TS, "positive")
	require.Eventually(t, func() bool { return b.feedback(ch, answer.TS, alice) == "positive" }, 5*time.Second, 20*time.Millisecond)
	what, _ := b.mention(bob, ch, whatDidSheSay, root)
	require.Contains(t, b.replies(ch, root, 2)[1].Text, "zqxalpha", "Bob's answer quotes her")
	b.waitDone(ch, what)
	other, _ := b.mention(bob, ch, "hello there, zqxbob here", "")
	b.replies(ch, other, 1)
	b.waitDone(ch, other)
	dm, _ := b.dm(alice, aliceDM, "remember that I prefer zqxgolf answers", "")
	b.replies(aliceDM, dm, 1)
	b.waitDone(aliceDM, dm)

	// "In this thread answer Alice in Portuguese": scope conversation,
	// subject Alice; a forget by an admin keeps it, archived.
	conv, err := b.store().Remember(context.Background(), memory.WriteRequest{
		Actor: provenance.Actor{Kind: provenance.KindUser, Team: fakeslack.TeamID, ID: alice, Name: "Alice"},
		Place: provenance.Place{Team: fakeslack.TeamID, Channel: ch, SourceKey: sourceKey(ch, root), Visibility: provenance.Public},
		Scope: memory.ScopeConversation, About: memory.SubjectUser, Content: "In this thread answer Alice in zqxbravo Portuguese", WrittenBy: provenance.ByExplicit,
	})
	require.NoError(t, err)
	require.Equal(t, memory.Stored, conv.Status, conv.Reason)
	shared := b.seed(alice, memory.ScopeChannel, ch, "Deploys go out on Tuesdays after zqxcharlie review")
	// A memory of her DM with mnemo, about that conversation: hers alone.
	dmConv, err := b.store().Remember(context.Background(), memory.WriteRequest{
		Actor: provenance.Actor{Kind: provenance.KindUser, Team: fakeslack.TeamID, ID: alice, Name: "Alice"},
		Place: provenance.Place{Team: fakeslack.TeamID, Channel: aliceDM, SourceKey: sourceKey(aliceDM, "1800000000.000300"), Visibility: provenance.DM},
		Scope: memory.ScopeConversation, Content: "The zqxfoxtrot launch date is the fourteenth of March, set by the product team", WrittenBy: provenance.ByExplicit,
	})
	require.NoError(t, err)
	require.Equal(t, memory.Stored, dmConv.Status, dmConv.Reason)
	require.Equal(t, memory.SubjectConversation, dmConv.Memory.SubjectType)

	require.Contains(t, b.command(admin, ch, "forget "+conv.Memory.ShortID()).Text, "Forgotten")
	require.Contains(t, b.command(alice, ch, "learning me off").Text, "off")
	b.command(admin, ch, "export <@"+alice+">")

	ask, _ := b.mention(bob, ch, "what do you remember about deploys?", "")
	b.replies(ch, ask, 1)
	b.waitDone(ch, ask)
	return shared, b.turnID(t, ch, ask)
}

// aliceDM is Alice's DM with mnemo.
const aliceDM = "D0ALICE"

// whatDidSheSay is Bob's question in Alice's thread, and herWords her first
// message there as the log keeps it (the bot's mention reads @mnemo).
const (
	whatDidSheSay = "what did she just say?"
	herWords      = "@mnemo remember that I prefer zqxalpha summaries"
)

// quotesHer is script, but asked whatDidSheSay in a turn it quotes
// herWords whole, as a model reading the thread would, when the thread it
// was shown holds them.
func quotesHer(script fakellm.Script) fakellm.Script {
	return func(i int, req *fakellm.Request) fakellm.Reply {
		judging := strings.HasPrefix(req.System, memory.ReviewPromptMarker) || strings.HasPrefix(req.System, memory.DecidePromptMarker) ||
			strings.HasPrefix(req.System, learn.ExtractPromptMarker)
		if n := len(req.Messages); !judging && n > 0 && len(req.Messages[n-1].ToolResults) == 0 && strings.HasSuffix(req.Messages[n-1].Text, whatDidSheSay) {
			for _, m := range req.Messages {
				if strings.Contains(m.Text, herWords) {
					return fakellm.Reply{Text: `She said: "` + herWords + `"`}
				}
			}
			return fakellm.Reply{Text: "I can't see what she said."}
		}
		return script(i, req)
	}
}

// erasureProbes are what the walk looks for: Alice's id, her DM's id, her
// name (which holds both ids), and her distinctive words: said to mnemo
// (alpha, in a channel; golf, in her DM), in a memory about her (bravo),
// in her thread, where Bob's answer quoted her message (alpha too), in a
// memory she wrote for the channel and Bob's answer quoted (charlie),
// and in a memory of her DM (foxtrot). Charlie is probed by its stem,
// zqxcharli, as the recall index keeps it, so the probe finds the word and
// its index terms alike.
var erasureProbes = []string{alice, aliceDM, "alice", "zqxalpha", "zqxbravo", "zqxcharli", "zqxfoxtrot", "zqxgolf"}

// TestPurgeErasesAPersonFromEveryTable walks every column of every table
// that can hold text or an identifier, found from the catalog: before the
// purge it finds each probe of Alice's where it is expected (the positive
// control), after it finds none of them anywhere, while Bob's words are
// still there. Bob's turn, which quoted her memory, no longer shows it.
func TestPurgeErasesAPersonFromEveryTable(t *testing.T) {
	t.Parallel()
	b := startBot(t, quotesHer(scripted.Memory()), "MNEMO_ADMINS", admin)
	_, bobsTurn := aliceEverywhere(t, b)
	show := func() string {
		t.Helper()
		out, stderr, code := b.turnsShow(t, map[string]string{"MNEMO_ADMIN_OVERSIGHT": "true"}, "--as", admin, strconv.FormatInt(bobsTurn, 10))
		require.Equal(t, 0, code, stderr)
		return out
	}
	require.Contains(t, show(), "zqxcharlie review", "Bob's turn shows the memory of hers it recalled")

	walk := b.db.Walked(t)
	before := b.db.FindAll(t, erasureProbes...)
	expected := map[string][]string{
		alice: {"admin_audit.target", "inbox_arrivals.args", "memories.actor_id", "memories.subject_id", "memory_events.actor_id",
			"model_usage.person_id", "river_job.args", "session_messages.actor_id", "turn_feedback.user_id", "turns.actor_id", "user_settings.user_id"},
		aliceDM:      {"inbox_arrivals.channel", "memories.channel_id", "model_usage.channel_id", "river_job.args", "session_messages.channel_id", "session_messages.source_key", "turns.channel_id", "turns.source_key"},
		"zqxalpha":   {"inbox_arrivals.args", "memories.content", "river_job.args", "session_messages.text", "session_messages.tools", "turns.pending_text"},
		"zqxbravo":   {"memories.content"},
		"zqxcharli":  {"memories.content", "memory_postings.term", "session_messages.text", "session_messages.tools", "turns.pending_text"},
		"zqxfoxtrot": {"memories.content", "memory_postings.term"},
		"zqxgolf":    {"inbox_arrivals.args", "memories.content", "river_job.args", "session_messages.text", "session_messages.tools", "turns.pending_text"},
	}
	for probe, cols := range expected {
		require.Subset(t, testdb.Columns(before[probe]), cols, "before the purge, the walk finds %q where it is: %v", probe, before[probe])
	}
	require.NotEmpty(t, b.db.Find(t, "zqxbob"))

	r := b.command(admin, "C0TEAM", "purge <@"+alice+">")
	require.Contains(t, string(r.Blocks), "mnemo_purge_confirm")
	n := len(b.responses())
	b.click(admin, "C0TEAM", "mnemo_purge_confirm", alice)
	receipt := b.nextResponse(n)

	t.Logf("the walk read %d columns of %d tables (every schema, River's included), found from the catalog", walk.Columns, walk.Tables)
	for _, p := range erasureProbes {
		t.Logf("before the purge, %q in: %v", p, before[p])
	}
	t.Logf("receipt:\n%s", receipt.Text)
	require.Empty(t, b.db.FindAll(t, erasureProbes...), "after the purge, nothing holds any of Alice's probes")
	require.NotEmpty(t, testdb.Tables(b.db.Find(t, "zqxbob")), "Bob's words are still there")
	after := show()
	require.NotContains(t, after, "zqxcharli", "Bob's turn no longer shows her words")
	require.Contains(t, after, "asked by <@"+bob+">", "Bob's turn is still his")

	require.Contains(t, receipt.Text, "Erased <@"+alice+">")
	for _, table := range []string{"memories", "memory_events", "erased_memories", "session_messages", "turn_feedback", "turns", "model_usage", "inbox_arrivals", "river_job", "user_settings", "admin_audit"} {
		require.Contains(t, receipt.Text, "• "+table+": ", "the receipt counts %s", table)
	}
	require.Regexp(t, `• session_messages: 2 scrubbed, [1-9]\d* deleted, [1-9]\d* tombstoned`, receipt.Text, "Bob's two answers scrubbed, her DM's log deleted, her words elsewhere tombstoned")
	require.Contains(t, receipt.Text, "• turns: 2 scrubbed, 1 deleted, 1 tombstoned", "Bob's turns' kept answers scrubbed, her DM's turn deleted, her turn in the channel tombstoned")
	require.Contains(t, b.auditActions(), admin+" erase", "the erasure is in the admin record, naming nobody")

	// Erasing again finds nothing left.
	n = len(b.responses())
	b.click(admin, "C0TEAM", "mnemo_purge_confirm", alice)
	again := b.nextResponse(n).Text
	require.Contains(t, again, "• memories: 0 deleted, 0 unattributed")
	require.NotRegexp(t, `[1-9]\d* (deleted|tombstoned|unattributed|scrubbed|recorded)`, again)
}

// Issue 30: once a person is erased, nothing of theirs comes back. A shared
// memory she wrote and an admin forgot is deleted with her, and restoring
// it, by the slash command or by `mnemo memories restore`, says why it
// can't be, while a memory of someone else is restored as before.
func TestRestoreRefusesAMemoryOfAnErasedPerson(t *testing.T) {
	t.Parallel()
	b := startBot(t, scripted.Memory(), "MNEMO_ADMINS", admin)
	const ch = "C0TEAM"
	hers := b.seed(alice, memory.ScopeChannel, ch, "Deploys go out on Tuesdays after zqxhotel review")
	bobs := b.seed(bob, memory.ScopeChannel, ch, "Standups are at ten on weekdays")
	for _, m := range []memory.Memory{hers, bobs} {
		require.Contains(t, b.command(admin, ch, "forget "+m.ShortID()).Text, "Forgotten")
	}
	// Forgotten, her memory is still there to restore: the walk finds it
	// before the purge, so its absence after is the purge's doing.
	require.NotEmpty(t, b.db.Find(t, "zqxhotel"), "before the purge, the walk finds her forgotten memory")
	n := len(b.responses())
	b.click(admin, ch, "mnemo_purge_confirm", alice)
	require.Contains(t, b.nextResponse(n).Text, "Erased")

	got := b.command(admin, ch, "restore "+hers.ShortID()).Text
	require.Equal(t, "Memory "+hers.ShortID()+" can't be restored: it was deleted on "+time.Now().UTC().Format(time.DateOnly)+
		", when the data of the person it belonged to was erased, and an erasure can't be undone.", got)
	code, _, stderr := mnemoRun(t, b.env, "memories", "restore", "--as", admin, "--team", fakeslack.TeamID, hers.ID.String())
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "can't be restored: it was deleted on")
	require.Empty(t, b.db.Find(t, "zqxhotel"), "nothing of it is left to restore")

	require.Contains(t, b.command(admin, ch, "restore "+bobs.ShortID()).Text, "Restored", "the control: Bob's is restored")
	require.NotContains(t, b.command(admin, ch, "restore deadbeef").Text, "erased", "a memory that never was is not called erased")
}

// An admin may keep the active shared memories a person wrote: active, by
// a former member. One of theirs already archived is deleted even so, and
// can't be restored.
func TestPurgeCanKeepSharedMemoriesAsAFormerMembers(t *testing.T) {
	t.Parallel()
	b := startBot(t, scripted.Memory())
	shared := b.seed(alice, memory.ScopeChannel, "C0TEAM", "Deploys go out on Tuesdays after QA sign-off")
	mine := b.seed(alice, memory.ScopePersonal, "C0TEAM", "I prefer terse PR summaries")
	old := b.seed(alice, memory.ScopeChannel, "C0TEAM", "Releases were frozen in zqxindia week")
	require.Contains(t, b.command(admin, "C0TEAM", "forget "+old.ShortID()).Text, "Forgotten")

	n := len(b.responses())
	b.click(bob, "C0TEAM", "mnemo_purge_keep_shared", alice)
	require.Contains(t, b.nextResponse(n).Text, "Only an admin")
	require.False(t, b.archived(mine.ShortID()))
	// Before the purge the walk finds her id and her archived memory's
	// words, so finding neither after is the purge's doing.
	require.NotEmpty(t, b.db.Find(t, "alice"), "before the purge, the walk finds her id")
	require.NotEmpty(t, b.db.Find(t, "zqxindia"), "and her archived memory")

	n = len(b.responses())
	b.click(admin, "C0TEAM", "mnemo_purge_keep_shared", alice)
	require.Contains(t, b.nextResponse(n).Text, "Erased")
	ms := b.memories("--source-key", sourceKey("C0TEAM", "1800000000.000100"), "--all")
	require.Len(t, ms, 1, "the shared memory stays active; her personal one is gone")
	require.Nil(t, ms[0].ArchivedAt)
	require.Equal(t, shared.ID.String(), ms[0].ID)
	require.Empty(t, b.db.Find(t, "alice"))
	require.Empty(t, b.db.Find(t, "zqxindia"))
	require.Contains(t, b.command(admin, "C0TEAM", "restore "+old.ShortID()).Text, "can't be restored")
}

// Slack's user_change with deleted: true erases the member when the
// workspace enabled it, and only then.
func TestDeletedAccountIsErasedWhenEnabled(t *testing.T) {
	t.Parallel()
	deleted := map[string]any{"type": "user_change", "user": map[string]any{"id": alice, "team_id": fakeslack.TeamID, "deleted": true}, "event_ts": "1800000000.000200"}

	off := startBot(t, scripted.Memory())
	kept := off.seed(alice, memory.ScopePersonal, "C0TEAM", "I prefer terse PR summaries")
	off.slack.WaitAck(off.slack.SendEvent(deleted), 5*time.Second)
	require.Contains(t, off.logs.String(), "not erased (MNEMO_ERASE_DELETED_USERS is off)")
	require.False(t, off.archived(kept.ShortID()))
	require.NotEmpty(t, off.db.Find(t, "alice"))

	on := startBot(t, scripted.Memory(), "MNEMO_ERASE_DELETED_USERS", "true")
	on.seed(alice, memory.ScopePersonal, "C0TEAM", "I prefer terse PR summaries")
	ts, _ := on.mention(alice, "C0TEAM", "remember that I prefer zqxdelta answers", "")
	on.waitDone("C0TEAM", ts)
	require.NotEmpty(t, on.db.Find(t, "alice"))
	require.NotEmpty(t, on.db.Find(t, "zqxdelta"), "before the deletion, the walk finds her words")
	// A profile change that is not a deletion erases nothing.
	on.slack.WaitAck(on.slack.SendEvent(map[string]any{"type": "user_change", "user": map[string]any{"id": alice, "team_id": fakeslack.TeamID, "deleted": false}, "event_ts": "1800000000.000100"}), 5*time.Second)
	on.slack.WaitAck(on.slack.SendEvent(deleted), 5*time.Second)
	require.Eventually(t, func() bool { return strings.Contains(strings.Join(on.auditActions(), ","), "system:slack erase") }, 10*time.Second, 20*time.Millisecond)
	require.Equal(t, []string{"system:slack erase"}, on.auditActions(), "one erasure, for the deletion")
	require.Empty(t, on.db.Find(t, "alice"))
	require.Empty(t, on.db.Find(t, "zqxdelta"))
}

// The admin record says which memory was forgotten or restored, never what
// it said: the forgotten text stays only in the archived memory, which
// retention deletes.
func TestForgetAndRestoreKeepNoTextInTheAdminRecord(t *testing.T) {
	t.Parallel()
	b := startBot(t, scripted.Memory(), "MNEMO_RETENTION_CONVERSATIONS", "45d")
	m := b.seed(alice, memory.ScopePersonal, "C0TEAM", "I prefer zqxecho tea in the morning")

	require.Contains(t, b.command(admin, "C0TEAM", "forget "+m.ShortID()).Text, "Forgotten")
	require.Contains(t, b.command(admin, "C0TEAM", "restore "+m.ShortID()).Text, "Restored")
	require.Equal(t, []string{admin + " forget", admin + " restore"}, b.auditActions())
	found := b.db.Find(t, "zqxecho")
	require.Contains(t, found, "memories.content", "the walk finds the text where it is")
	require.Equal(t, []string{"memories", "memory_postings", "memory_term_stats", "memory_vocab"}, testdb.Tables(found), "and nowhere else: %v", found)

	// /mnemo stats shows how long data is kept.
	stats := b.command(admin, "C0TEAM", "stats").Text
	require.Contains(t, stats, "conversation logs and turns: 45 days")
	require.Contains(t, stats, "delivered inbox posts and finished jobs: 7 days")
	require.Contains(t, stats, "forgotten and superseded memories, with their history: 30 days")
}

// serve deletes what is past its retention, by itself: the sweep runs as
// River starts, and then every hour.
func TestServeDeletesWhatIsPastItsRetention(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testdb.New(t)
	exec := func(sql string, args ...any) {
		t.Helper()
		_, err := d.Pool.Exec(ctx, sql, args...)
		require.NoError(t, err, sql)
	}
	old, recent := time.Now().Add(-100*24*time.Hour), time.Now().Add(-time.Hour)
	for i, at := range []time.Time{old, recent} {
		exec(`INSERT INTO session_messages (source_key, team_id, channel_id, ts, role, actor_kind, actor_id, authority, text, created_at)
			VALUES ('k', 'T0TEAM', 'C0TEAM', $1, 'user', 'user', $2, 'instruction', 'zqxold words', $3)`, "1700000000.00000"+string(rune('1'+i)), alice, at)
		exec(`INSERT INTO memories (team_id, scope, subject_type, subject_id, kind, content, normalized, source_key, channel_id,
			visibility, actor_id, written_by, message_ts, observed_at, archived_at, idempotency_key)
			VALUES ('T0TEAM', 'personal', 'user', $1, 'preference', 'zqxold memory', 'zqxold memory', 'k', 'C0TEAM', 'public', $1, 'explicit', '1', $2, $2, $3)`,
			alice, at, "k"+string(rune('1'+i)))
	}
	count := func(sql string) int {
		var n int
		require.NoError(t, d.Pool.QueryRow(ctx, sql).Scan(&n))
		return n
	}
	require.Equal(t, 2, count(`SELECT count(*) FROM session_messages`))
	require.Equal(t, 2, count(`SELECT count(*) FROM memories`))

	startBotOn(t, d, scripted.Memory())
	require.Eventually(t, func() bool {
		return count(`SELECT count(*) FROM session_messages`) == 1 && count(`SELECT count(*) FROM memories`) == 1
	}, 15*time.Second, 50*time.Millisecond, "the old message and the memory forgotten long ago are deleted")
	require.Equal(t, 1, count(`SELECT count(*) FROM memories WHERE archived_at > now() - interval '1 day'`), "the recent ones stay")
}

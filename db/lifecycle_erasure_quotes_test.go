package db_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
)

// logLine is a line of a thread's log as the agent writes it: a person's
// post (role user) or mnemo's answer (role assistant), of turn when it has
// one. It returns the line's id.
type logLine struct {
	key, team, channel, ts, role, actor, text, tools string
	turn                                             *int64
}

func insertLine(t *testing.T, d *testdb.DB, l logLine) int64 {
	t.Helper()
	kind, authority := "user", "instruction"
	if l.role == "assistant" {
		kind, authority = "bot", "context"
	}
	var id int64
	require.NoError(t, d.Pool.QueryRow(context.Background(), `INSERT INTO session_messages
			(source_key, team_id, channel_id, ts, role, actor_kind, actor_id, authority, text, tools, turn_id)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id`,
		l.key, l.team, l.channel, l.ts, l.role, kind, l.actor, authority, l.text, l.tools, l.turn).Scan(&id))
	return id
}

// insertTurn is a turn of actor's post at ts in the thread key, keeping
// pending (when not empty) as the answer for a retry.
func insertTurn(t *testing.T, d *testdb.DB, team, channel, ts, key, actor, pending string) int64 {
	t.Helper()
	var id int64
	require.NoError(t, d.Pool.QueryRow(context.Background(), `INSERT INTO turns (team_id, channel_id, message_ts, source_key, actor_id, pending_text)
		VALUES ($1, $2, $3, $4, $5, NULLIF($6, '')) RETURNING id`, team, channel, ts, key, actor, pending).Scan(&id))
	return id
}

// An organisation-wide installation (Enterprise Grid) is stored under the
// enterprise id with no team. The person who installed it, erased in a
// workspace it served, is its installer no more, as a workspace's own
// installation's installer is not. Another organisation's installation
// they made is not that workspace's, and keeps them.
func TestEraseUnattributesTheirOrganisationsInstallation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testdb.New(t)
	for _, sql := range []string{
		`INSERT INTO installations (team_id, enterprise_id, token_ciphertext, token_nonce, token_key_id, bot_user_id, installer_id)
		 VALUES ('', 'E1', '\x01', '\x02', 'k1', 'UB', 'U0ALICE'), ('', 'E2', '\x01', '\x02', 'k1', 'UB', 'U0ALICE'),
		        ('T1', 'E1', '\x01', '\x02', 'k1', 'UB', 'U0ALICE'), ('T3', '', '\x01', '\x02', 'k1', 'UB', 'U0BOB')`,
		`INSERT INTO installation_teams (team_id, enterprise_id) VALUES ('T1', 'E1'), ('T2', 'E2')`,
	} {
		_, err := d.Pool.Exec(ctx, sql)
		require.NoError(t, err, sql)
	}
	require.Equal(t, map[string]int64{"installations.installer_id": 3}, d.Find(t, "U0ALICE"), "the walk sees the three installations she made before")

	r, err := d.DB.Erase(ctx, db.Erasure{Team: "T1", User: "U0ALICE", By: "U9"})
	require.NoError(t, err)
	var installer string
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT installer_id FROM installations WHERE team_id = '' AND enterprise_id = 'E1'`).Scan(&installer))
	require.Empty(t, installer, "the organisation's installation names no installer")
	require.Contains(t, r, db.ReceiptLine{Table: "installations", Action: "unattributed", Rows: 1}, "the workspace's own installation")
	require.Contains(t, r, db.ReceiptLine{Table: "installations", Action: "unattributed in their organisation E1", Rows: 1}, "%v", r)
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT installer_id FROM installations WHERE team_id = '' AND enterprise_id = 'E2'`).Scan(&installer))
	require.Equal(t, "U0ALICE", installer, "another organisation's installation is not this erasure's")
	require.Equal(t, map[string]int64{"installations.installer_id": 1}, d.Find(t, "U0BOB"), "another person's installation keeps its installer")

	// A workspace no organisation served touches no organisation's
	// installation.
	r, err = d.DB.Erase(ctx, db.Erasure{Team: "T3", User: "U0ALICE", By: "U9"})
	require.NoError(t, err)
	for _, l := range r {
		require.NotContains(t, l.Action, "organisation", "%v", r)
	}
	require.Equal(t, map[string]int64{"installations.installer_id": 1}, d.Find(t, "U0ALICE"))
}

// Other people's answers keep none of the person's words: an answer in a
// thread where they spoke that quotes one of their messages whole loses
// the quote, in the log and in the answer its turn keeps for a retry,
// though it has no tool trace and recalled nothing; so does one there that
// quotes a memory of theirs it has no record of. A short message of
// theirs ("sounds good") is not taken out of answers that merely say the
// same words, and a thread where they never spoke keeps its words even
// when they match.
func TestEraseTakesTheirWholeMessagesOutOfOtherPeoplesAnswers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testdb.New(t)
	const (
		k     = "slack:T1:C1:1800000000.000100"
		k2    = "slack:T1:C1:1800000000.000900"
		said  = "the zqxlaunch code is purple"
		quote = `She said: "the zqxlaunch code is purple", and that sounds good to me.`
	)
	insertLine(t, d, logLine{key: k, team: "T1", channel: "C1", ts: "1800000000.000100", role: "user", actor: "U0ALICE", text: said})
	insertLine(t, d, logLine{key: k, team: "T1", channel: "C1", ts: "1800000000.000150", role: "user", actor: "U0ALICE", text: "sounds good"})
	// Bob asks in her thread; his answer quotes her, with no tool trace.
	bobs := insertTurn(t, d, "T1", "C1", "1800000000.000200", k, "U0BOB", quote)
	insertLine(t, d, logLine{key: k, team: "T1", channel: "C1", ts: "1800000000.000200", role: "user", actor: "U0BOB", text: "what did she say about zqxbobq?", turn: &bobs})
	answer := insertLine(t, d, logLine{key: k, team: "T1", channel: "C1", ts: "1800000000.000300", role: "assistant", actor: "UB", text: quote, turn: &bobs})
	// Carol's turn there has an answer kept for a retry, not logged yet.
	carols := insertTurn(t, d, "T1", "C1", "1800000000.000400", k, "U0CAROL", "She wrote:\n"+said)
	insertLine(t, d, logLine{key: k, team: "T1", channel: "C1", ts: "1800000000.000400", role: "user", actor: "U0CAROL", text: "and zqxcarolq?", turn: &carols})
	// Erin's answer there quotes a channel memory Alice wrote, with no
	// record of it and no tool trace.
	insertMemory(t, d, memoryRow{team: "T1", scope: "channel", subjectType: "channel", subject: "C1",
		content: "Deploys need zqxmemq sign-off from QA", sourceKey: k, channel: "C1", visibility: "public", actor: "U0ALICE"})
	erins := insertTurn(t, d, "T1", "C1", "1800000000.000500", k, "U0ERIN", "")
	insertLine(t, d, logLine{key: k, team: "T1", channel: "C1", ts: "1800000000.000500", role: "user", actor: "U0ERIN", text: "how do deploys go?", turn: &erins})
	erinsAnswer := insertLine(t, d, logLine{key: k, team: "T1", channel: "C1", ts: "1800000000.000550", role: "assistant", actor: "UB",
		text: "Deploys need zqxmemq sign-off from QA.", turn: &erins})
	// Dan says the same words in a thread she never joined; his answer
	// repeats them.
	dans := insertTurn(t, d, "T1", "C1", "1800000000.000900", k2, "U0DAN", "You said "+said)
	insertLine(t, d, logLine{key: k2, team: "T1", channel: "C1", ts: "1800000000.000900", role: "user", actor: "U0DAN", text: said, turn: &dans})
	insertLine(t, d, logLine{key: k2, team: "T1", channel: "C1", ts: "1800000000.000950", role: "assistant", actor: "UB", text: "You said " + said, turn: &dans})

	require.Equal(t, map[string]int64{"session_messages.text": 4, "turns.pending_text": 3}, d.Find(t, "zqxlaunch"), "the walk sees her words and their copies before")

	r, err := d.DB.Erase(ctx, db.Erasure{Team: "T1", User: "U0ALICE", By: "U9"})
	require.NoError(t, err)
	text := func(sql string, args ...any) string {
		t.Helper()
		var s string
		require.NoError(t, d.Pool.QueryRow(ctx, sql, args...).Scan(&s))
		return s
	}
	scrubbed := `She said: "[erased]", and that sounds good to me.`
	require.Equal(t, scrubbed, text(`SELECT text FROM session_messages WHERE id = $1`, answer), "her message is out of Bob's answer; her short one stays words of his")
	require.Equal(t, scrubbed, text(`SELECT pending_text FROM turns WHERE id = $1`, bobs))
	require.Equal(t, "She wrote:\n[erased]", text(`SELECT pending_text FROM turns WHERE id = $1`, carols))
	require.Equal(t, "[erased].", text(`SELECT text FROM session_messages WHERE id = $1`, erinsAnswer), "her memory is out of Erin's answer")
	require.Equal(t, map[string]int64{"session_messages.text": 2, "turns.pending_text": 1}, d.Find(t, "zqxlaunch"), "only Dan's thread, where she never spoke, keeps the words")
	require.Equal(t, map[string]int64{"session_messages.text": 1}, d.Find(t, "zqxbobq"), "Bob's question stays")
	require.Empty(t, d.Find(t, "U0ALICE"))
	require.Empty(t, d.Find(t, "zqxmemq"))
	require.Contains(t, r, db.ReceiptLine{Table: "session_messages", Action: "scrubbed", Rows: 2}, "Bob's and Erin's answers")
	require.Contains(t, r, db.ReceiptLine{Table: "turns", Action: "scrubbed", Rows: 2}, "Bob's and Carol's kept answers")
	require.Contains(t, r, db.ReceiptLine{Table: "session_messages", Action: "tombstoned", Rows: 2}, "her own lines")
}

// An external member's thread memory, kept under their own team
// (memory.HomeOf), is recalled by a second guest of their organisation in
// the same Slack Connect thread of the host (memory_visible: a thread
// memory about no one is anyone's who reads that team in that thread). The
// host's log keeps that answer, its tool trace and its kept answer.
// Erasing the first guest in the host, with their own team, scrubs them
// as it does for the host's own memories: no tool trace, no quote.
func TestEraseScrubsAnswersThatQuotedAGuestsOwnMemory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testdb.New(t)
	const (
		k       = "slack:T0HOST:C0SHARED:1800000000.000100"
		content = "The zqxguestmem launch slips to Friday"
	)
	mem := insertMemory(t, d, memoryRow{team: "T0HOME", scope: "conversation", subjectType: "conversation", subject: k,
		content: content, sourceKey: k, channel: "C0SHARED", visibility: "public", actor: "U0GUEST"})
	short := mem.String()[:8]
	answerText := "Noted earlier: " + content + "."
	turn := insertTurn(t, d, "T0HOST", "C0SHARED", "1800000000.000200", k, "U0GUEST2", answerText)
	_, err := d.Pool.Exec(ctx, `INSERT INTO turn_recalls (turn_id, rank, memory_id, score) VALUES ($1, 1, $2, 0.9)`, turn, mem)
	require.NoError(t, err)
	insertLine(t, d, logLine{key: k, team: "T0HOST", channel: "C0SHARED", ts: "1800000000.000200", role: "user", actor: "U0GUEST2", text: "when is the launch?", turn: &turn})
	answer := insertLine(t, d, logLine{key: k, team: "T0HOST", channel: "C0SHARED", ts: "1800000000.000300", role: "assistant", actor: "UB",
		text: answerText, tools: `memory__recall {"query":"launch"} → [` + short + `] ` + content, turn: &turn})

	require.Subset(t, testdb.Columns(d.Find(t, "zqxguestmem")),
		[]string{"memories.content", "memory_postings.term", "session_messages.text", "session_messages.tools", "turns.pending_text"}, "the walk sees it before")

	r, err := d.DB.Erase(ctx, db.Erasure{Team: "T0HOST", User: "U0GUEST", By: "U9", Home: "T0HOME"})
	require.NoError(t, err)
	var text, tools string
	require.NoError(t, d.Pool.QueryRow(ctx, `SELECT text, tools FROM session_messages WHERE id = $1`, answer).Scan(&text, &tools))
	require.Equal(t, [2]string{"Noted earlier: [erased].", ""}, [2]string{text, tools}, "the second guest's answer stays, without the quote or its trace")
	require.Empty(t, d.Find(t, "zqxguestmem"), "nothing of their memory is left, in the host's log neither")
	require.Contains(t, r, db.ReceiptLine{Table: "memories", Action: "deleted in their own workspace T0HOME", Rows: 1})
	require.Contains(t, r, db.ReceiptLine{Table: "session_messages", Action: "scrubbed", Rows: 1}, "%v", r)
	require.Contains(t, r, db.ReceiptLine{Table: "turns", Action: "scrubbed", Rows: 1})
	require.Equal(t, map[string]int64{"session_messages.actor_id": 1, "turns.actor_id": 1}, d.Find(t, "U0GUEST2"), "the second guest's turn is still theirs")
}

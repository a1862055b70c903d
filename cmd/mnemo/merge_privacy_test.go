package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/scripted"
)

// storedRow is a memory as the database holds it, for the merge tests.
type storedRow struct {
	Content, Visibility, Sensitive, Channel, Archived string
}

func (f *faultBed) rows(subject string) []storedRow {
	f.t.Helper()
	rows, err := f.pool.Query(context.Background(), `SELECT content, visibility, sensitive, channel_id, coalesce(archived_reason, '')
		FROM memories WHERE subject_id = $1 ORDER BY created_at`, subject)
	require.NoError(f.t, err)
	defer rows.Close()
	var out []storedRow
	for rows.Next() {
		var r storedRow
		require.NoError(f.t, rows.Scan(&r.Content, &r.Visibility, &r.Sensitive, &r.Channel, &r.Archived))
		out = append(out, r)
	}
	require.NoError(f.t, rows.Err())
	return out
}

// Issue 20, item 1, end to end through the real binary and the scripted
// model: Alice's health fact, said in her DM, is stored there as sensitive.
// When she adds to it in #general ("I also take vitamins…"), the update
// decision would merge the two; and when Bob says in #general that he now
// takes something else, it would supersede his DM fact. Neither DM fact
// is a candidate in #general: nothing in the public turns (the reply, any
// model request, any tool result) quotes them, the public memories are
// stored on their own, and the DM facts stay as they were, still
// sensitive. Controls: the DM facts were stored and are what the probes
// look for, and the public turns did run the memory tools.
func TestDMHealthFactNeverReachesAPublicMergeOrSupersession(t *testing.T) {
	t.Parallel()
	f := newFaultBed(t, scripted.Memory())
	f.start("only")
	const general = "C0GENERAL"

	said := func(typ, user, channel, text string) (ts, reply string) {
		t.Helper()
		ts, _, _ = f.event(typ, user, channel, text, "")
		f.waitFinished(ts, "white_check_mark", 30*time.Second)
		answers := f.answersTo(channel, ts)
		require.Len(t, answers, 1, "one reply to %q", text)
		return ts, answers[0].Text
	}

	cases := []struct {
		user, dm, private, public, secret, publicWord string
	}{
		// The update the issue reproduces.
		{alice, "D0ALICE", "remember that I take antidepressants every morning at nine", "remember that I also take vitamins every morning at nine", "antidepressants", "vitamins"},
		// The supersession: "now" makes the DM fact look out of date.
		{bob, "D0BOB", "remember that I take insulin every morning", "remember that I now take vitamins every morning", "insulin", "vitamins"},
	}
	for _, c := range cases {
		_, reply := said("message", c.user, c.dm, c.private)
		require.Contains(t, reply, c.secret, "control: stored in the DM")
		rows := f.rows(c.user)
		require.Len(t, rows, 1)
		require.Equal(t, storedRow{Content: rows[0].Content, Visibility: "dm", Sensitive: "health", Channel: c.dm}, rows[0], "stored as sensitive, in the DM")
		require.Contains(t, rows[0].Content, c.secret)

		before := len(f.llm.Requests())
		_, reply = said("app_mention", c.user, general, c.public)
		require.Contains(t, reply, c.publicWord, "the public memory is stored and said")
		require.NotContains(t, reply, c.secret, "the reply in #general")

		// Every model request of the public turn: the turn's own, the
		// write's review and its update decision, and every tool result.
		reqs := f.llm.Requests()[before:]
		toolResults := 0
		for _, r := range reqs {
			require.NotContains(t, r.Transcript(), c.secret, "a model request of the public turn")
			for _, m := range r.Messages {
				toolResults += len(m.ToolResults)
			}
		}
		require.GreaterOrEqual(t, toolResults, 2, "the public turn searched the catalog and ran remember")

		rows = f.rows(c.user)
		require.Len(t, rows, 2, "%+v", rows)
		dmRow, pubRow := rows[0], rows[1]
		require.Equal(t, "", dmRow.Archived, "the DM fact was neither merged nor superseded")
		require.Equal(t, "health", dmRow.Sensitive)
		require.Equal(t, "dm", dmRow.Visibility)
		require.Contains(t, dmRow.Content, c.secret)
		require.Equal(t, general, pubRow.Channel)
		require.Equal(t, "public", pubRow.Visibility)
		require.Contains(t, pubRow.Content, c.publicWord)
		require.False(t, strings.Contains(pubRow.Content, c.secret), "the public row: %q", pubRow.Content)
	}
}

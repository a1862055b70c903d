package db_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/threads"
)

// A backfill logs its messages and marks the thread read in one statement:
// once done it is not needed again, and a second one changes nothing; a
// message already logged keeps its row (and its turn).
func TestBackfillLogsOnceAndKeepsWhatWasLogged(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testdb.New(t)
	key := threads.Key{Team: "T1", Channel: "C1", Root: "1800000000.000100"}
	bob := provenance.Actor{Kind: provenance.KindUser, Team: "T1", ID: "UBOB"}
	need := func() bool {
		n, err := d.DB.Sessions().BackfillNeeded(ctx, key)
		require.NoError(t, err)
		return n
	}
	require.True(t, need(), "a thread never read, whose root is not logged")

	// The post that addressed the bot is logged first, with its turn.
	var turn db.Turn
	require.NoError(t, d.DB.InTx(ctx, func(tx *db.Tx) error {
		var err error
		turn, _, err = tx.Turns().Open(ctx, db.TurnStart{Place: provenance.Place{Team: "T1", Channel: "C1", SourceKey: key.SourceKey(), Visibility: provenance.Public}, MessageTS: "1800000003.000100", ActorID: "UBOB"})
		if err != nil {
			return err
		}
		_, err = tx.Sessions().Append(ctx, key, threads.Message{TS: "1800000003.000100", Role: threads.RoleUser, Actor: bob, Authority: provenance.Instruction, Text: "the question", TurnID: &turn.ID})
		return err
	}))
	require.True(t, need(), "logging the post does not mark the thread read")

	msgs := []threads.Message{
		{TS: key.Root, Role: threads.RoleUser, Actor: bob, Text: "the root"},
		{TS: "1800000001.000100", Role: threads.RoleUser, Actor: bob, Text: "token xoxb-123456789012-abcdefghijkl"},
		{TS: "1800000001.000100", Role: threads.RoleUser, Actor: bob, Text: "the same message twice"},
		{TS: "1800000003.000100", Role: threads.RoleUser, Actor: bob, Text: "the question, as Slack has it"},
	}
	done, err := d.DB.Sessions().Backfill(ctx, key, msgs)
	require.NoError(t, err)
	require.True(t, done)
	require.False(t, need())

	got, err := d.DB.Sessions().History(ctx, key, 10)
	require.NoError(t, err)
	require.Len(t, got, 3)
	require.Equal(t, "the root", got[0].Text)
	require.Equal(t, provenance.Context, got[0].Authority, "read from Slack: context")
	require.NotContains(t, got[1].Text, "xoxb-", "secrets are redacted as Append does")
	require.Equal(t, "the question", got[2].Text, "a logged message keeps its row")
	require.Equal(t, &turn.ID, got[2].TurnID)

	done, err = d.DB.Sessions().Backfill(ctx, key, []threads.Message{{TS: "1800000002.000100", Role: threads.RoleUser, Actor: bob, Text: "late"}})
	require.NoError(t, err)
	require.False(t, done, "the thread was read already")
	n, err := d.DB.Sessions().History(ctx, key, 10)
	require.NoError(t, err)
	require.Len(t, n, 3, "and nothing more is logged")

	// A thread whose root the bot logged itself (it saw the thread start)
	// needs no backfill.
	seen := threads.Key{Team: "T1", Channel: "C1", Root: "1800000010.000100"}
	_, err = d.DB.Sessions().Append(ctx, seen, threads.Message{TS: seen.Root, Role: threads.RoleUser, Actor: bob, Text: "hi"})
	require.NoError(t, err)
	needSeen, err := d.DB.Sessions().BackfillNeeded(ctx, seen)
	require.NoError(t, err)
	require.False(t, needSeen)
}

// A thread with nothing before its post (an assistant thread's first
// message) is marked read too, so its next post does not read Slack again.
// Its empty list once went in as NULL, and the mark failed every time.
func TestBackfillOfAnEmptyThreadMarksIt(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	ctx := context.Background()
	key := threads.Key{Team: "T1", Channel: "D1", Root: "1800000000.000100"}
	need, err := d.DB.Sessions().BackfillNeeded(ctx, key)
	require.NoError(t, err)
	require.True(t, need, "a thread not read yet needs reading (the check below can say so)")
	marked, err := d.DB.Sessions().Backfill(ctx, key, nil)
	require.NoError(t, err)
	require.True(t, marked)
	need, err = d.DB.Sessions().BackfillNeeded(ctx, key)
	require.NoError(t, err)
	require.False(t, need)
}

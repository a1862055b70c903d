package db_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/threads"
)

func TestFeedbackIsOnePerPersonPerTurnAndFoundFromTheReply(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	ctx := context.Background()
	key := threads.Key{Team: "T1", Channel: "D1", Root: "1800000000.000100"}
	turn, _, err := d.DB.Turns().Open(ctx, db.TurnStart{Place: provenance.Place{Team: "T1", Channel: "D1", SourceKey: key.SourceKey(), Visibility: provenance.DM}, MessageTS: string(key.Root), ActorID: "UA"})
	require.NoError(t, err)
	turnID := turn.ID
	bot := provenance.Actor{Kind: provenance.KindBot, Team: "T1", ID: "UBOT"}
	_, err = d.DB.Sessions().Append(ctx, key, threads.Message{TS: "1800000001.000100", Role: threads.RoleAssistant, Actor: bot, Authority: provenance.Context, Text: "hi", TurnID: &turnID})
	require.NoError(t, err)

	fb := d.DB.Feedback()
	got, err := fb.TurnOfReply(ctx, "T1", "D1", "1800000001.000100")
	require.NoError(t, err)
	require.Equal(t, turnID, got)
	_, err = fb.TurnOfReply(ctx, "T1", "D1", string(key.Root))
	require.ErrorIs(t, err, db.ErrNotFound, "the person's own post is no reply")

	at := time.Date(2026, 12, 3, 4, 0, 0, 0, time.UTC)
	require.NoError(t, fb.Record(ctx, db.TurnFeedback{TurnID: turnID, UserID: "UA", Value: db.Positive, At: at}))
	require.NoError(t, fb.Record(ctx, db.TurnFeedback{TurnID: turnID, UserID: "UB", Value: db.Positive, At: at}))
	require.NoError(t, fb.Record(ctx, db.TurnFeedback{TurnID: turnID, UserID: "UA", Value: db.Negative, At: at.Add(time.Minute)}))
	f, err := fb.Get(ctx, turnID, "UA")
	require.NoError(t, err)
	require.Equal(t, db.Negative, f.Value, "a second press replaces the first")
	require.True(t, at.Add(time.Minute).Equal(f.At))

	c, err := fb.Counts(ctx, "T1")
	require.NoError(t, err)
	require.Equal(t, db.FeedbackCounts{Positive: 1, Negative: 1}, c)
	c, err = fb.Counts(ctx, "T2")
	require.NoError(t, err)
	require.Zero(t, c.Positive+c.Negative, "counts are per team")

	require.Error(t, fb.Record(ctx, db.TurnFeedback{TurnID: turnID, UserID: "UC", Value: "meh", At: at}))
}

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

// Sanitize removes what PostgreSQL refuses and what a terminal would act
// on, and leaves ordinary text, and so the keys derived from it, as it is.
func TestSanitizeKeepsOrdinaryTextAndDropsWhatCantBeStoredOrShown(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"",
		"Prefers terse PR summaries",
		"line one\nline two\r\n\tindented",
		"Préfère les résumés courts 🙂, ünïcödé",
		"يفضل الملخصات القصيرة", // right-to-left text without overrides
		"עברית",
		"a literal replacement character: \uFFFD",
		"zero width\u200bjoiner and no-break\u00a0space, marks \u200e\u200f",
	} {
		require.Equal(t, s, db.Sanitize(s), "ordinary text is kept as it is: %q", s)
	}
	for in, want := range map[string]string{
		"hello\x00 there":           "hello there",
		"bad \xff\xfe utf-8":        "bad  utf-8",
		"\x1b[2J\x1b[31mred\x1b[0m": "[2J[31mred[0m",
		"bell\x07 back\x08\x08":     "bell back",
		"del\x7f and c1 \u009b31m":  "del and c1 31m",
		"\u202eevil\u202c \u2066x\u2069 \u202a\u202b\u202d\u2067\u2068": "evil x ",
		"vertical\vtab, form\ffeed, next\u0085line":                     "vertical\ntab, form\nfeed, next\nline",
	} {
		require.Equal(t, want, db.Sanitize(in), "%q", in)
	}
}

// Every text a turn decides to post and every text the session log keeps
// is sanitized by the store: a NUL in a model's answer or in a tool's input
// would otherwise be refused on every attempt at the turn.
func TestDecidedAndLoggedTextIsSanitized(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := testdb.New(t)
	key := threads.Key{Team: "T1", Channel: "C1", Root: "1800000000.000100"}
	place := provenance.Place{Team: "T1", Channel: "C1", SourceKey: key.SourceKey(), Visibility: provenance.Public}

	for i, kind := range []db.PendingKind{db.PendingAnswer, db.PendingNotice} {
		ts := []string{"1800000001.000100", "1800000002.000100"}[i]
		turn, _, err := d.DB.Turns().Open(ctx, db.TurnStart{Place: place, MessageTS: ts, ActorID: "UA"})
		require.NoError(t, err)
		kept, err := d.DB.Turns().Decide(ctx, turn.ID, db.Pending{Kind: kind, Text: "hello\x00 \x1b[31mthere\u202e"}, false)
		require.NoError(t, err, "%s", kind)
		require.Equal(t, "hello [31mthere", kept.Text, "what is posted is what is kept")
		got, err := d.DB.Turns().Find(ctx, "T1", "C1", ts)
		require.NoError(t, err)
		require.NotNil(t, got.Pending)
		require.Equal(t, "hello [31mthere", got.Pending.Text)
	}

	bot := provenance.Actor{Kind: provenance.KindBot, Team: "T1", ID: "UBOT"}
	m, err := d.DB.Sessions().Append(ctx, key, threads.Message{
		TS: "1800000003.000100", Role: threads.RoleAssistant, Actor: bot, Text: "done\x00\x07",
		Tools: "searchTools {\"query\":\"mem\x00ory\"} = \xff{}",
	})
	require.NoError(t, err)
	require.Equal(t, "done", m.Text)
	require.Equal(t, `searchTools {"query":"memory"} = {}`, m.Tools)

	_, err = d.DB.Sessions().Backfill(ctx, key, []threads.Message{{TS: key.Root, Role: threads.RoleUser, Actor: bot, Text: "the\x00 root\x1b"}})
	require.NoError(t, err)
	got, err := d.DB.Sessions().History(ctx, key, 10)
	require.NoError(t, err)
	require.Len(t, got, 2)
	require.Equal(t, "the root", got[0].Text)
}

// A model writes a memory's cues too: they follow the same rule, and keep
// ordinary cues as they were.
func TestCuesAreSanitized(t *testing.T) {
	t.Parallel()
	require.Equal(t, "terse[2J summaries, pr review", db.JoinCues([]string{"terse\x1b[2J summaries", "pr\u202e review\x00"}))
	require.Equal(t, "terse summaries, pr review", db.JoinCues([]string{"terse summaries", "pr review"}), "the control")
}

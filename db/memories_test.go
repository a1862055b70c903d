package db_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
)

func TestJoinCues(t *testing.T) {
	t.Parallel()
	long := func(c string) string { return strings.Repeat(c, 40) }
	for _, tc := range []struct {
		name string
		in   []string
		want string
	}{
		{"trimmed and comma-separated", []string{" timezone ", "time  zone", "PT"}, "timezone, time zone, PT"},
		{"repeats dropped, whatever their case", []string{"editor", "Editor", "IDE"}, "editor, IDE"},
		{"commas inside a cue can't split it", []string{"deploy, release"}, "deploy release"},
		{"empty cues dropped", []string{"", "  ", "vim"}, "vim"},
		{"at most MaxCues", []string{"a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9", "b1", "b2", "b3", "b4", "b5", "b6", "b7", "b8"},
			"a1, a2, a3, a4, a5, a6, a7, a8, a9, b1, b2, b3, b4, b5, b6, b7"},
		{"at most MaxCuesChars", []string{long("a"), long("b"), long("c"), long("d"), long("e"), long("f"), long("g"), long("h")},
			strings.Join([]string{long("a"), long("b"), long("c"), long("d"), long("e"), long("f"), long("g")}, ", ")},
		{"none", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := db.JoinCues(tc.in)
			require.Equal(t, tc.want, got)
			require.LessOrEqual(t, len([]rune(got)), db.MaxCuesChars)
		})
	}
}

// Cues are stored and searched, weighted below the content: a memory
// whose content matches outranks one whose cues do.
func TestCuesAreSearchedBelowTheContent(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	ctx := context.Background()
	insert := func(content string, cues ...string) db.Memory {
		m, err := d.DB.Memories().Insert(ctx, db.MemoryInsert{
			Team: "T1", Scope: "channel", SubjectType: "channel", SubjectID: "C1", Kind: "knowledge",
			Content: content, Normalized: strings.ToLower(content), Cues: cues, SourceKey: "slack:T1:C1:1800000000.000100",
			ChannelID: "C1", Visibility: "public", ActorID: "UA", WrittenBy: "explicit", ObservedAt: time.Now(),
			IdempotencyKey: content,
		})
		require.NoError(t, err)
		return m
	}
	byCue := insert("The staging database is refreshed nightly", "timezone", "UTC schedule")
	byContent := insert("The release timezone is UTC for every team")
	require.Equal(t, "timezone, UTC schedule", byCue.Cues)

	got, err := d.DB.Memories().Search(ctx, db.SearchQuery{
		Team: "T1", Channel: "C1", SourceKey: "slack:T1:C1:1800000900.000100", Actor: "UB",
		Query: "timezone", RequireMatch: true, Limit: 5,
	})
	require.NoError(t, err)
	require.Len(t, got, 2)
	require.Equal(t, byContent.ID, got[0].ID)
	require.Equal(t, byCue.ID, got[1].ID)
	require.True(t, got[1].Matched)
}

// The recall B-trees carry the text vector, and a B-tree row must fit in a
// third of a page: a memory of the longest, least compressible text the
// review lets through is still stored, and found by its first words.
func TestExtremeTextIsStoredAndFound(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	ctx := context.Background()
	word := func(i int) string { return string([]rune{rune(0x4e00 + (i*37)%20000), rune(0x4e00 + (i*91)%20000)}) }
	var content, cues []string
	for i := range 200 {
		content = append(content, word(i))
	}
	for i := range 100 {
		cues = append(cues, word(1000+i))
	}
	text := strings.Join(content, " ")
	require.Equal(t, 599, len([]rune(text)))
	m, err := d.DB.Memories().Insert(ctx, db.MemoryInsert{
		Team: "T1", Scope: "channel", SubjectType: "channel", SubjectID: "C1", Kind: "knowledge",
		Content: text, Normalized: text, Cues: cues, SourceKey: "slack:T1:C1:1800000000.000100",
		ChannelID: "C1", Visibility: "public", ActorID: "UA", WrittenBy: "explicit", ObservedAt: time.Now(),
		IdempotencyKey: "extreme",
	})
	require.NoError(t, err)
	got, err := d.DB.Memories().Search(ctx, db.SearchQuery{
		Team: "T1", Channel: "C1", SourceKey: "slack:T1:C1:1800000900.000100", Actor: "UB",
		Query: word(0), RequireMatch: true, Limit: 5,
	})
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.Equal(t, m.ID, got[0].ID)
}

// The admin listing matches a misspelled word (word similarity from 0.3,
// through the trigram index) and by id prefix finds the ids it starts.
func TestListMatchesFuzzilyAndByIDPrefix(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	ctx := context.Background()
	m, err := d.DB.Memories().Insert(ctx, db.MemoryInsert{
		Team: "T1", Scope: "channel", SubjectType: "channel", SubjectID: "C1", Kind: "knowledge",
		Content: "Deploys of the payments service go out on Tuesdays", Normalized: "deploys of the payments service go out on tuesdays",
		SourceKey: "slack:T1:C1:1800000000.000100", ChannelID: "C1", Visibility: "public", ActorID: "U1", WrittenBy: "explicit",
		MessageTS: "1800000000.000100", ObservedAt: time.Now(), IdempotencyKey: "k1",
	})
	require.NoError(t, err)
	list := func(q string) int {
		got, err := d.DB.Memories().List(ctx, db.ListQuery{Team: "T1", Query: q, Limit: 10})
		require.NoError(t, err)
		return len(got)
	}
	require.Equal(t, 1, list("paymnets"), "a misspelled word matches")
	require.Equal(t, 1, list("payments"))
	require.Equal(t, 0, list("kubernetes"), "an unrelated word does not")

	id := m.ID.String()
	for _, prefix := range []string{id[:4], id[:8], id[:13], strings.ToUpper(id[:6])} {
		got, err := d.DB.Memories().ListByIDPrefix(ctx, "T1", prefix)
		require.NoError(t, err)
		require.Len(t, got, 1, prefix)
	}
	for _, prefix := range []string{id[:4] + "x", id[:9] + "-", "zzzz"} {
		got, err := d.DB.Memories().ListByIDPrefix(ctx, "T1", prefix)
		require.NoError(t, err)
		require.Empty(t, got, prefix)
	}
	got, err := d.DB.Memories().ListByIDPrefix(ctx, "T2", id[:8])
	require.NoError(t, err)
	require.Empty(t, got, "another team's")
}

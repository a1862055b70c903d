package db_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testdb"
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

package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/memory"
)

// A memory stored before its text was sanitized may hold terminal escapes,
// bells or bidirectional overrides: --table shows them escaped, so they
// never run in the operator's terminal.
func TestMemoriesTableEscapesControlCharacters(t *testing.T) {
	t.Parallel()
	b := newMemoriesBundle(t)
	m := b.remember("T1", opAlice, memory.ScopePersonal, "Prefers terse PR summaries")
	_, err := b.d.Pool.Exec(context.Background(), "UPDATE memories SET content = $2 WHERE id = $1", m.ID, "Prefers \x1b[2J\x1b[31mterse\x07\x08 PR summaries\u202e")
	require.NoError(t, err)

	code, out, errs := b.run("list", "--team", "T1", "--table")
	require.Equal(t, 0, code, errs)
	require.Contains(t, out, `Prefers \x1b[2J\x1b[31mterse\a\b PR summaries\u202e`)
	require.NotContains(t, out, "\x1b")
	require.NotContains(t, out, "\x07")
	require.NotContains(t, out, "\u202e")
}

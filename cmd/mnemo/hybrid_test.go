package main

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/scripted"
)

// With an embedding model and pgvector, serve embeds a new memory in the
// background (remember makes no embeddings request), its next turns recall
// by both legs, and `mnemo turns show` names the leg that found each
// recalled memory.
func TestServeRecallsByMeaningAndTurnsShowNamesTheLeg(t *testing.T) {
	t.Parallel()
	b := startBot(t, scripted.Memory(), "MNEMO_ADMINS", carol, "MNEMO_EMBEDDING_MODEL", "text-embedding-3-small")
	const ch = "C0TEAM"
	first, _ := b.mention(alice, ch, "remember that I drink green tea in the morning", "")
	b.waitDone(ch, first)

	// The background job embeds it (River's periodic job, every 10 s).
	ctx := context.Background()
	require.Eventually(t, func() bool {
		var n int
		require.NoError(t, b.db.Pool.QueryRow(ctx, "SELECT count(*) FROM memory_vectors v JOIN memories m ON m.id = v.id WHERE m.content LIKE '%green tea%' AND v.model = 'text-embedding-3-small'").Scan(&n))
		return n == 1
	}, 30*time.Second, 100*time.Millisecond)

	second, _ := b.mention(alice, ch, "what do you remember about green tea?", "")
	b.waitDone(ch, second)
	out, stderr, code := b.turnsShow(t, map[string]string{"MNEMO_ADMIN_OVERSIGHT": "true"}, "--as", carol, strconv.FormatInt(b.turnID(t, ch, second), 10))
	require.Equal(t, 0, code, stderr)
	t.Logf("mnemo turns show:\n%s", out)
	require.Regexp(t, `1\. \d\.\d{3} \[both\]  [0-9a-f]{8}: personal knowledge`, out, "found by words and by meaning")
	require.Contains(t, b.logs.String(), "recall: hybrid")
}

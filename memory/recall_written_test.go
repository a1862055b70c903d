package memory_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
)

// TestNextSearchFindsTheMemoryJustWritten (issue 32, item 2): make bench's
// write-to-visible check searched for each memory it had just stored, by
// its text, on another connection, and missed 4 of 440 at a million
// memories. Each of those memories is made of words that are common where
// it is said: every word's list holds more shorter memories, which weigh
// it more, than recall reads of a list (its depth cap). The new memory,
// which holds every word of the question and outranks them all, was in no
// list read, so it was never scored. Here: five words, each in 480 of a
// channel's two-word memories.
func TestNextSearchFindsTheMemoryJustWritten(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	alice := user("UA")
	words := []string{"deploy", "staging", "release", "window", "friday"}
	for i, w := range words {
		for _, v := range words[i+1:] {
			_, err := b.db.Pool.Exec(ctx, `INSERT INTO memories (team_id, scope, subject_type, subject_id, kind, content, normalized,
				source_key, channel_id, visibility, actor_id, written_by, message_ts, observed_at, created_at, idempotency_key)
				SELECT $1, 'channel', 'channel', $2, 'knowledge', $4 || ' ' || $5, $4 || ' ' || $5, $3, $2, 'public', 'UO', 'explicit',
				       '1.' || g, now() - g * interval '1 minute', now() - g * interval '1 minute', gen_random_uuid()::text
				FROM generate_series(1, 120) g`, team, publicThread2.Channel, publicThread2.SourceKey, w, v)
			require.NoError(t, err)
		}
	}
	reader, err := pgxpool.New(ctx, b.db.URL)
	require.NoError(t, err)
	t.Cleanup(reader.Close)
	elsewhere := memory.New(db.New(reader), memory.Options{})

	const text = "Deploy staging release window Friday"
	out, err := b.store.Remember(ctx, memory.WriteRequest{Actor: alice, Place: publicThread, Scope: memory.ScopeChannel,
		Kind: memory.KindKnowledge, Content: text, WrittenBy: provenance.ByExplicit, MessageTS: "1800000001.000100"})
	require.NoError(t, err)
	require.Equal(t, memory.Stored, out.Status)

	for _, limit := range []int{memory.MaxListLimit, 10} {
		got, err := elsewhere.Search(ctx, memory.ViewerAt(alice, publicThread), text, limit, true)
		require.NoError(t, err)
		require.NotEmpty(t, got, "positive control: the channel's memories match")
		require.Equal(t, out.Memory.ID, got[0].ID, "limit %d: the memory just written, with every word, comes first: %q", limit, contents(got[:min(3, len(got))]))
	}
}

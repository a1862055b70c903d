package learn_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/learn"
	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/memory"
)

// extraction is a scripted extraction answer proposing one preference by the
// transcript's first line, ending at expires.
func extraction(expires string) fakellm.Reply {
	raw, _ := json.Marshal(map[string]any{"memories": []learn.Proposal{
		{Kind: memory.KindPreference, Content: "Prefers release notes as bullet lists", Expires: expires, Evidence: []int{0}},
	}})
	return fakellm.Reply{JSON: string(raw)}
}

func learned(t *testing.T, b *testBundle, turnID int64) bool {
	t.Helper()
	done, err := b.db.DB.Turns().Learned(context.Background(), turnID)
	require.NoError(t, err)
	return done
}

// An end the model words in prose is an invalid answer: asked for again,
// then the turn's learning fails (its job is retried) with nothing recorded
// as learned, and the retry stores the memory. It is never dropped as if it
// were a decision.
func TestProseExpiryIsAnInvalidAnswerNotADrop(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupReplies(t, extraction("next Friday"), extraction("next Friday"), extraction("2099-05-01"))
	turnID := b.turn(t, "UA", msg{"UA", true, "@mnemo until next Friday I prefer release notes as bullet lists"})

	res, err := b.learner.Learn(ctx, turnID)
	require.ErrorIs(t, err, llm.ErrInvalidAnswer)
	require.Empty(t, res.Decisions)
	require.Len(t, extractions(b), 2, "the schema rejected the answer and asked once more")
	require.False(t, learned(t, b, turnID), "a failed extraction is not the turn's decision")
	require.Empty(t, b.personal(t, "UA"))

	// The job's retry asks again and stores it.
	res, err = b.learner.Learn(ctx, turnID)
	require.NoError(t, err)
	require.Equal(t, 1, res.Stored)
	require.True(t, learned(t, b, turnID))
	require.Len(t, b.personal(t, "UA"), 1)
}

// An end that matches the schema's pattern but is no date is an invalid
// answer too, from Extract itself: asked for once more, like one the
// schema rejects, and a second is the error.
func TestImpossibleExpiryDateIsAnInvalidAnswer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupReplies(t, extraction("2099-02-30"), extraction("2099-02-30"))
	turnID := b.turn(t, "UA", msg{"UA", true, "@mnemo I prefer release notes as bullet lists"})

	_, err := b.learner.Learn(ctx, turnID)
	require.ErrorIs(t, err, llm.ErrInvalidAnswer)
	require.ErrorContains(t, err, "2099-02-30")
	require.Len(t, extractions(b), 2, "the impossible date was asked for once more")
	require.False(t, learned(t, b, turnID))
	require.Empty(t, b.personal(t, "UA"))
}

// The second answer is read on its own: a real date after an impossible
// one stores the memory in the same Learn, with nothing of the first.
func TestImpossibleExpiryDateIsAskedForAgain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupReplies(t, extraction("2099-02-30"), extraction("2099-05-01"))
	turnID := b.turn(t, "UA", msg{"UA", true, "@mnemo until May 2099 I prefer release notes as bullet lists"})

	res, err := b.learner.Learn(ctx, turnID)
	require.NoError(t, err)
	require.Equal(t, 1, res.Stored)
	require.Len(t, extractions(b), 2)
	require.True(t, learned(t, b, turnID))
	mems := b.personal(t, "UA")
	require.Len(t, mems, 1)
	require.NotNil(t, mems[0].ExpiresAt)
	require.Equal(t, 2099, mems[0].ExpiresAt.Year())
	require.Equal(t, time.May, mems[0].ExpiresAt.Month())
}

// Controls: a future end is stored with it; an end already past is a valid
// answer whose memory is dropped, with its reason, as the turn's decision.
func TestExpiryFutureStoredPastDropped(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	b := setupReplies(t, extraction("2099-05-01"))
	turnID := b.turn(t, "UA", msg{"UA", true, "@mnemo until May 2099 I prefer release notes as bullet lists"})
	res, err := b.learner.Learn(ctx, turnID)
	require.NoError(t, err)
	require.Equal(t, 1, res.Stored)
	ms := b.personal(t, "UA")
	require.Len(t, ms, 1)
	require.NotNil(t, ms[0].ExpiresAt)
	require.Equal(t, 2099, ms[0].ExpiresAt.Year())

	b = setupReplies(t, extraction("2001-01-01"))
	turnID = b.turn(t, "UA", msg{"UA", true, "@mnemo until 2001 I preferred release notes as bullet lists"})
	res, err = b.learner.Learn(ctx, turnID)
	require.NoError(t, err)
	require.Zero(t, res.Stored)
	require.Len(t, res.Decisions, 1)
	require.False(t, res.Decisions[0].Store)
	require.Contains(t, res.Decisions[0].Reason, "in the past")
	require.True(t, learned(t, b, turnID), "a past end is the turn's decision")
	require.Empty(t, b.personal(t, "UA"))
	require.Len(t, extractions(b), 1)
}

// Extraction and the write review agree on what an end looks like.
func TestExtractExpiryPatternIsTheReviews(t *testing.T) {
	t.Parallel()
	pattern := func(raw json.RawMessage, path ...string) string {
		var node map[string]any
		require.NoError(t, json.Unmarshal(raw, &node))
		for _, k := range path {
			next, ok := node[k].(map[string]any)
			require.True(t, ok, "schema has no %q", k)
			node = next
		}
		p, _ := node["pattern"].(string)
		return p
	}
	review := pattern(memory.ReviewSchema.JSON, "properties", "expires")
	require.NotEmpty(t, review)
	require.Equal(t, review, pattern(learn.ExtractSchema.JSON, "properties", "memories", "items", "properties", "expires"))
}

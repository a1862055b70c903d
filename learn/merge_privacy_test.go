package learn_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testkit/scripted"
	"github.com/mnemo-bot/mnemo/learn"
	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
)

// Issue 20, item 1, through passive learning: Alice's health preference
// from her DM is never merged into what is learned from her in a public
// thread, and never shown to the model that decides it. Her public
// preference is learned on its own; the DM one stays as it was.
func TestPassiveLearningNeverMergesADMHealthFact(t *testing.T) {
	t.Parallel()
	b := setup(t)
	mem := scripted.Memory() // the update decision, by its documented rules
	model := fakellm.New(t, func(n int, req *fakellm.Request) fakellm.Reply {
		if strings.HasPrefix(req.System, learn.ExtractPromptMarker) {
			raw, _ := json.Marshal(map[string]any{"memories": []learn.Proposal{{Kind: memory.KindPreference, Content: "Prefers reminders to take vitamins at nine too", Evidence: []int{0}}}})
			return fakellm.Reply{JSON: string(raw)}
		}
		return mem(n, req)
	})
	m := llm.NewOpenAI("k", model.URL+"/v1", "m")
	b.store = memory.New(b.db.DB, memory.Options{Decider: memory.ModelJudge{Model: m}})
	b.learner = learn.NewLearner(b.db.DB, b.store, m, zerolog.Nop())
	ctx := context.Background()

	dm := provenance.Place{Team: team, Channel: "DA", SourceKey: "slack:T1:DA:1800000000.000100", Visibility: provenance.DM}
	health, err := b.store.Remember(ctx, memory.WriteRequest{Actor: person("UA"), Place: dm, Content: "I prefer reminders to take my antidepressants at nine", WrittenBy: provenance.ByExplicit})
	require.NoError(t, err)
	require.Equal(t, memory.Stored, health.Status, health.Reason)
	require.Equal(t, "health", health.Memory.Sensitive)

	turn := b.turn(t, "UA", msg{"UA", true, "@mnemo I'd like reminders to take vitamins at nine too"})
	res, err := b.learner.Learn(ctx, turn)
	require.NoError(t, err)
	require.Equal(t, 1, res.Stored, "%+v", res.Decisions)

	got := b.personal(t, "UA")
	require.Len(t, got, 2, "the public preference is its own memory")
	for _, g := range got {
		if g.ID == health.Memory.ID {
			require.Nil(t, g.ArchivedAt, "the DM memory is untouched")
			continue
		}
		require.Equal(t, provenance.Public, g.Visibility)
		require.NotContains(t, g.Content, "antidepressants")
	}
	for _, r := range model.Requests() {
		require.NotContains(t, r.Transcript(), "antidepressants", "a model request of the public turn's learning")
	}
}

package learn_test

import (
	"context"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/rs/zerolog"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/learn"
	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
)

// Issue 30, item 2, through passive learning: the detectors read the
// evidence lines a proposal cites, not only the sentence the model wrote.
// Alice says two health facts in the first person; extraction restates
// them in the third person, one without naming anything sensitive. Neither
// is learned. Control: her ordinary preference in the same turn is, and
// the query below finds it.
func TestPassiveLearningReadsTheEvidenceLines(t *testing.T) {
	t.Parallel()
	b := setup(t, []learn.Proposal{
		{Kind: memory.KindPreference, Content: "Has a standing appointment every Tuesday at four", Evidence: []int{0}},
		{Kind: memory.KindPreference, Content: "Takes antidepressants every morning at nine", Evidence: []int{1}},
		{Kind: memory.KindPreference, Content: "Prefers terse replies", Evidence: []int{2}},
	})
	turn := b.turn(t, "UA",
		msg{"UA", true, "I see my therapist every Tuesday at four"},
		msg{"UA", true, "I take antidepressants every morning at nine"},
		msg{"UA", true, "I prefer terse replies"},
	)
	res, err := b.learner.Learn(context.Background(), turn)
	require.NoError(t, err)
	require.Len(t, res.Decisions, 3)
	for _, d := range res.Decisions[:2] {
		require.False(t, d.Store, d.Proposal.Content)
		require.Contains(t, d.Reason, "sensitive personal data (health) is never learned from conversation", d.Proposal.Content)
	}
	require.True(t, res.Decisions[2].Store, res.Decisions[2].Reason)
	got := b.personal(t, "UA")
	require.Len(t, got, 1, "control: the query finds what was learned")
	require.Equal(t, "Prefers terse replies", got[0].Content)
}

// candidateLog is a Decider that records the candidates it is shown.
type candidateLog struct {
	mu    sync.Mutex
	shown []uuid.UUID
}

func (c *candidateLog) Decide(_ context.Context, _ string, _ memory.Kind, cands []memory.Memory) (memory.Decision, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range cands {
		c.shown = append(c.shown, m.ID)
	}
	return memory.Decision{Action: memory.ActionAdd}, nil
}

// Issue 30, item 3, passive learning's candidates: a fact from Alice's DM
// that only the words behind it mark sensitive is never a candidate of what
// is learned from her elsewhere, and no model request of that learning
// carries it. Control: learned in the DM itself, it is a candidate.
func TestPassiveLearningNeverOffersASensitiveDMFactElsewhere(t *testing.T) {
	t.Parallel()
	proposal := []learn.Proposal{{Kind: memory.KindPreference, Content: "Has a standing coffee every morning at nine", Evidence: []int{0}}}
	b := setup(t, proposal)
	log := &candidateLog{}
	b.store = memory.New(b.db.DB, memory.Options{Decider: log})
	b.learner = learn.NewLearner(b.db.DB, b.store, llm.NewOpenAI("k", b.model.URL+"/v1", "m"), zerolog.Nop())
	ctx := context.Background()
	dm := provenance.Place{Team: team, Channel: "DA", SourceKey: "slack:T1:DA:1800000000.000100", Visibility: provenance.DM}
	fact, err := b.store.Remember(ctx, memory.WriteRequest{Actor: person("UA"), Place: dm, Kind: memory.KindPreference,
		Content: "Has a standing appointment every morning at nine", Said: []string{"remember that I see my therapist every morning at nine"}, WrittenBy: provenance.ByExplicit})
	require.NoError(t, err)
	require.Equal(t, memory.Stored, fact.Status, fact.Reason)
	require.Equal(t, "health", fact.Memory.Sensitive)

	turn := b.turn(t, "UA", msg{"UA", true, "I have a standing coffee every morning at nine"})
	res, err := b.learner.Learn(ctx, turn)
	require.NoError(t, err)
	require.Equal(t, 1, res.Stored, "%+v", res.Decisions)
	require.NotContains(t, log.shown, fact.Memory.ID, "offered to the update decision in public")
	for _, r := range b.model.Requests() {
		require.NotContains(t, r.Transcript(), "appointment")
	}

	// Control: the same learning in the DM offers it.
	log.shown = nil
	_, err = b.store.Remember(ctx, memory.WriteRequest{Actor: person("UA"), Place: dm, Kind: memory.KindPreference, Content: "Has a standing call every morning at nine", WrittenBy: provenance.ByPassive})
	require.NoError(t, err)
	require.Contains(t, log.shown, fact.Memory.ID)
}

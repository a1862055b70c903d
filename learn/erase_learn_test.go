package learn_test

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/learn"
	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/threads"
)

// erasingBundle is setup's bundle whose model runs the erasure set in
// erase (once) when it is asked to extract: after learning read the turn
// and its transcript, before it writes what it found.
func erasingBundle(t *testing.T, erase *atomic.Pointer[func()], proposals []learn.Proposal) *testBundle {
	t.Helper()
	raw, err := json.Marshal(map[string]any{"memories": proposals})
	require.NoError(t, err)
	var once sync.Once
	b := &testBundle{db: testdb.New(t), ts: 1800000000}
	b.store = memory.New(b.db.DB, memory.Options{})
	b.log = b.db.DB.Sessions()
	b.model = fakellm.New(t, func(int, *fakellm.Request) fakellm.Reply {
		if f := erase.Load(); f != nil {
			once.Do(*f)
		}
		return fakellm.Reply{JSON: string(raw)}
	})
	b.learner = learn.NewLearner(b.db.DB, b.store, llm.NewOpenAI("k", b.model.URL+"/v1", "m"), zerolog.Nop())
	b.key = threads.Key{Team: team, Channel: channel, Root: b.nextTS()}
	return b
}

// Passive learning from a turn whose person is erased while it runs writes
// nothing of theirs and ends without an error (a retry would find nothing
// to learn either). Control: with no erasure the same turn's preference is
// stored, and the same count finds it.
func TestLearningOvertakenByErasureStoresNothingAndEnds(t *testing.T) {
	t.Parallel()
	for _, withErasure := range []bool{true, false} {
		name := "erased while learning runs"
		if !withErasure {
			name = "control: no erasure"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			var erase atomic.Pointer[func()]
			b := erasingBundle(t, &erase, []learn.Proposal{{Kind: memory.KindPreference, Content: "Prefers release notes as bullet lists", Evidence: []int{0}}})
			turnID := b.turn(t, "UA", msg{who: "UA", instruction: true, text: "@mnemo I prefer release notes as bullet lists"})
			erased := make(chan error, 1) // the model's handler is not the test's goroutine
			if withErasure {
				f := func() {
					_, err := b.db.DB.Erase(ctx, db.Erasure{Team: team, User: "UA", By: "U0ADMIN"})
					erased <- err
				}
				erase.Store(&f)
			}
			res, err := b.learner.Learn(ctx, turnID)
			require.NoError(t, err, "an erasure is nothing to retry")
			var n int
			require.NoError(t, b.db.Pool.QueryRow(ctx,
				`SELECT count(*) FROM memories WHERE team_id = $1 AND ((subject_type = 'user' AND subject_id = 'UA') OR actor_id = 'UA')`, team).Scan(&n))
			if !withErasure {
				require.Equal(t, 1, res.Stored)
				require.Equal(t, 1, n, "the count finds the memory learned")
				return
			}
			require.NoError(t, <-erased, "the erasure ran while learning extracted")
			require.Zero(t, res.Stored)
			require.Len(t, res.Decisions, 1)
			require.False(t, res.Decisions[0].Store)
			require.Equal(t, "erased while it was learned from", res.Decisions[0].Reason)
			require.Zero(t, n, "nothing of the erased person was learned")
		})
	}
}

// In a thread where two people spoke, the erasure of one while learning
// runs refuses what was learned of them, not what was learned of the
// other: their proposal is still stored.
func TestLearningOvertakenByOneSpeakersErasureKeepsTheOthers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var erase atomic.Pointer[func()]
	b := erasingBundle(t, &erase, []learn.Proposal{
		{Kind: memory.KindPreference, Content: "Prefers release notes as bullet lists", Evidence: []int{0}},
		{Kind: memory.KindKnowledge, Content: "The changelog is grouped by component", Evidence: []int{1}},
	})
	turnID := b.turn(t, "UA",
		msg{who: "UA", instruction: true, text: "@mnemo I prefer release notes as bullet lists"},
		msg{who: "UB", text: "Our changelog is grouped by component."})
	erased := make(chan error, 1)
	f := func() {
		_, err := b.db.DB.Erase(ctx, db.Erasure{Team: team, User: "UA", By: "U0ADMIN"})
		erased <- err
	}
	erase.Store(&f)
	res, err := b.learner.Learn(ctx, turnID)
	require.NoError(t, err)
	require.NoError(t, <-erased)
	count := func(user string) int {
		var n int
		require.NoError(t, b.db.Pool.QueryRow(ctx,
			`SELECT count(*) FROM memories WHERE team_id = $1 AND ((subject_type = 'user' AND subject_id = $2) OR actor_id = $2)`, team, user).Scan(&n))
		return n
	}
	require.Zero(t, count("UA"), "nothing of the erased person")
	require.Equal(t, 1, count("UB"), "the other speaker's knowledge is stored")
	require.Equal(t, 1, res.Stored, "%+v", res.Decisions)
}

// A learning job whose turn went with its DM's erasure before it ran finds
// nothing to learn and ends without an error, rather than fail on every
// retry.
func TestLearningOfAnErasedDMsTurnEnds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t)
	place := provenance.Place{Team: team, Channel: "DA", SourceKey: "slack:T1:DA:1800000000.000100", Visibility: provenance.DM}
	turn, _, err := b.db.DB.Turns().Open(ctx, db.TurnStart{Place: place, MessageTS: "1800000000.000100", ActorID: "UA"})
	require.NoError(t, err)
	_, err = b.db.DB.Erase(ctx, db.Erasure{Team: team, User: "UA", By: "U0ADMIN"})
	require.NoError(t, err)
	_, err = b.db.DB.Turns().Get(ctx, turn.ID)
	require.ErrorIs(t, err, db.ErrNotFound, "the erasure deleted the DM's turn")

	res, err := b.learner.Learn(ctx, turn.ID)
	require.NoError(t, err)
	require.Equal(t, "the turn is gone", res.Skipped)
	require.Empty(t, b.model.Requests(), "and no model was asked")
}

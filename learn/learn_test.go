package learn_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/agent"
	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/learn"
	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/threads"
)

type testBundle struct {
	db      *testdb.DB
	store   *memory.Store
	log     db.Sessions
	model   *fakellm.Server
	learner *learn.Learner
	ts      int64
	key     threads.Key
}

const team, channel = "T1", "C1"

func setup(t *testing.T, proposals ...[]learn.Proposal) *testBundle {
	t.Helper()
	var replies []fakellm.Reply
	for _, p := range proposals {
		raw, _ := json.Marshal(map[string]any{"memories": p})
		replies = append(replies, fakellm.Reply{JSON: string(raw)})
	}
	return setupReplies(t, replies...)
}

// setupReplies is setup with the model's answers as they are, valid or not.
func setupReplies(t *testing.T, replies ...fakellm.Reply) *testBundle {
	t.Helper()
	b := &testBundle{db: testdb.New(t), ts: 1800000000}
	b.store = memory.New(b.db.DB, memory.Options{})
	b.log = b.db.DB.Sessions()
	b.model = fakellm.New(t, fakellm.Queue(replies...))
	b.learner = learn.NewLearner(b.db.DB, b.store, llm.NewOpenAI("k", b.model.URL+"/v1", "m"), zerolog.Nop())
	b.key = threads.Key{Team: team, Channel: channel, Root: b.nextTS()}
	return b
}

func (b *testBundle) nextTS() threads.TS {
	b.ts += 3
	return threads.TS(fmt.Sprintf("%d.000100", b.ts))
}

func (b *testBundle) place() provenance.Place {
	return provenance.Place{Team: team, Channel: channel, SourceKey: b.key.SourceKey(), Visibility: provenance.Public}
}

func person(id string) provenance.Actor {
	return provenance.Actor{Kind: provenance.KindUser, Team: team, ID: id}
}

type msg struct {
	who         string
	instruction bool
	text        string
}

// turn logs msgs (then the bot's reply) as one delivered turn served for
// runActor, and returns its id.
func (b *testBundle) turn(t *testing.T, runActor string, msgs ...msg) int64 {
	t.Helper()
	ctx := context.Background()
	var lastTS threads.TS
	var turnID int64
	for _, m := range msgs {
		lastTS = b.nextTS()
		if m.who == runActor && m.instruction && turnID == 0 {
			turn, _, err := b.db.DB.Turns().Open(ctx, db.TurnStart{Place: b.place(), MessageTS: string(lastTS), ActorID: runActor})
			require.NoError(t, err)
			turnID = turn.ID
		}
		auth := provenance.Context
		var tid *int64
		if m.instruction {
			auth = provenance.Instruction
		}
		if turnID != 0 && m.instruction {
			tid = &turnID
		}
		_, err := b.log.Append(ctx, b.key, threads.Message{TS: lastTS, Role: threads.RoleUser, Actor: person(m.who), Authority: auth, Text: m.text, TurnID: tid})
		require.NoError(t, err)
	}
	require.NotZero(t, turnID, "a turn needs an instruction by its run actor")
	_, err := b.log.Append(ctx, b.key, threads.Message{TS: b.nextTS(), Role: threads.RoleAssistant, Actor: provenance.Actor{Kind: provenance.KindBot, ID: "UBOT"}, Authority: provenance.Context, Text: "Sure, here you go.", TurnID: &turnID})
	require.NoError(t, err)
	b.finish(t, turnID, false, nil)
	return turnID
}

func (b *testBundle) personal(t *testing.T, user string) []memory.Memory {
	t.Helper()
	ms, err := b.store.ListAll(context.Background(), memory.Filter{SubjectUser: user})
	require.NoError(t, err)
	return ms
}

func (b *testBundle) inChannel(t *testing.T) []memory.Memory {
	t.Helper()
	ms, err := b.store.ListAll(context.Background(), memory.Filter{Channel: channel})
	require.NoError(t, err)
	var out []memory.Memory
	for _, m := range ms {
		if m.Scope != memory.ScopePersonal {
			out = append(out, m)
		}
	}
	return out
}

func TestBystanderPreferenceIsNeverTheRunActors(t *testing.T) {
	t.Parallel()
	b := setup(t,
		// The model tries to pin Bob's words on Alice, and to read a task request as a preference.
		[]learn.Proposal{
			{Kind: memory.KindPreference, Content: "Prefers terse reviews", Evidence: []int{0}},
			{Kind: memory.KindPreference, Content: "Prefers PR summaries", Evidence: []int{1}},
		},
		// Control: Alice's own stated preference in her next turn.
		[]learn.Proposal{{Kind: memory.KindPreference, Content: "Prefers bullet points", Evidence: []int{3}}},
	)
	turn := b.turn(t, "UA", msg{"UB", false, "I prefer terse reviews"}, msg{"UA", true, "@mnemo summarize the PR"})
	res, err := b.learner.Learn(context.Background(), turn)
	require.NoError(t, err)
	require.Len(t, res.Decisions, 2)
	for _, d := range res.Decisions {
		require.False(t, d.Store, d.Reason)
	}
	require.Empty(t, b.personal(t, "UA"))
	require.Empty(t, b.personal(t, "UB"), "dropped, never re-attributed")

	next := b.turn(t, "UA", msg{"UA", true, "@mnemo I prefer bullet points in summaries"})
	_, err = b.learner.Learn(context.Background(), next)
	require.NoError(t, err)
	got := b.personal(t, "UA")
	require.Len(t, got, 1, "control: the same query finds Alice's own preference")
	require.Equal(t, "Prefers bullet points", got[0].Content)
	require.Equal(t, provenance.ByPassive, got[0].WrittenBy)
}

func TestConflictingPreferencesEachKeepTheirOwn(t *testing.T) {
	t.Parallel()
	b := setup(t,
		[]learn.Proposal{{Kind: memory.KindPreference, Content: "Prefers tabs for indentation", Evidence: []int{0}}},
		[]learn.Proposal{{Kind: memory.KindPreference, Content: "Prefers spaces for indentation", Evidence: []int{2}}},
	)
	t1 := b.turn(t, "UA", msg{"UA", true, "@mnemo I prefer tabs for indentation, always"})
	_, err := b.learner.Learn(context.Background(), t1)
	require.NoError(t, err)
	t2 := b.turn(t, "UB", msg{"UB", true, "@mnemo I prefer spaces for indentation"})
	_, err = b.learner.Learn(context.Background(), t2)
	require.NoError(t, err)
	a, bb := b.personal(t, "UA"), b.personal(t, "UB")
	require.Len(t, a, 1)
	require.Len(t, bb, 1)
	require.Equal(t, "Prefers tabs for indentation", a[0].Content)
	require.Equal(t, "Prefers spaces for indentation", bb[0].Content)
}

func TestBatchedMentionFromTwoPeopleStoresNoPreference(t *testing.T) {
	t.Parallel()
	b := setup(t, []learn.Proposal{
		{Kind: memory.KindPreference, Content: "Prefers dark mode", Evidence: []int{0}},
		{Kind: memory.KindPreference, Content: "Prefers light mode", Evidence: []int{1}},
	},
		// Control: Bob alone, next turn.
		[]learn.Proposal{{Kind: memory.KindPreference, Content: "Prefers light mode", Evidence: []int{3}}},
	)
	turn := b.turn(t, "UA", msg{"UA", true, "@mnemo I prefer dark mode"}, msg{"UB", true, "@mnemo I prefer light mode"})
	res, err := b.learner.Learn(context.Background(), turn)
	require.NoError(t, err)
	require.Len(t, res.Decisions, 2)
	for _, d := range res.Decisions {
		require.False(t, d.Store)
		require.Contains(t, d.Reason, "2 instruction actors")
	}
	require.Empty(t, b.personal(t, "UA"))
	require.Empty(t, b.personal(t, "UB"))

	alone := b.turn(t, "UB", msg{"UB", true, "@mnemo I prefer light mode, really"})
	_, err = b.learner.Learn(context.Background(), alone)
	require.NoError(t, err)
	require.Len(t, b.personal(t, "UB"), 1, "control: the same query finds a preference stated alone")
	require.Empty(t, b.personal(t, "UA"))
}

func TestSharedKnowledgeByAnotherPersonIsChannelKnowledge(t *testing.T) {
	t.Parallel()
	b := setup(t, []learn.Proposal{
		{Kind: memory.KindProcedure, Content: "Deploys go out on Tuesdays after QA sign-off", Evidence: []int{0}},
		{Kind: memory.KindKnowledge, Content: "Today's conversion is 8.4%", Evidence: []int{1}},
		{Kind: memory.KindKnowledge, Content: "Mnemo answered", Evidence: []int{3}},
	})
	turn := b.turn(t, "UA", msg{"UB", false, "Deploys go out on Tuesdays after QA sign-off."}, msg{"UB", false, "today's conversion is 8.4%"}, msg{"UA", true, "@mnemo when is the next deploy?"})
	res, err := b.learner.Learn(context.Background(), turn)
	require.NoError(t, err)
	require.Equal(t, 1, res.Stored)
	got := b.inChannel(t)
	require.Len(t, got, 1)
	require.Equal(t, "Deploys go out on Tuesdays after QA sign-off", got[0].Content)
	require.Equal(t, memory.ScopeChannel, got[0].Scope)
	require.Equal(t, "UB", got[0].ActorID, "attributed to who said it")
	require.Empty(t, b.personal(t, "UA"))
}

func TestLearningSkips(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t, []learn.Proposal{})
	settings := b.db.DB.Settings()

	used := b.turn(t, "UA", msg{"UA", true, "@mnemo remember I prefer tea"})
	b.finish(t, used, true, nil)
	res, err := b.learner.Learn(ctx, used)
	require.NoError(t, err)
	require.Contains(t, res.Skipped, "already wrote memory")

	require.NoError(t, settings.SetLearning(ctx, team, channel, false, "UADMIN"))
	off := b.turn(t, "UA", msg{"UA", true, "@mnemo I prefer coffee"})
	res, err = b.learner.Learn(ctx, off)
	require.NoError(t, err)
	require.Contains(t, res.Skipped, "learning is off")
	require.Empty(t, b.model.Requests(), "the model was never asked")

	// Control: turned back on, the next turn does ask the model.
	require.NoError(t, settings.SetLearning(ctx, team, channel, true, "UADMIN"))
	on := b.turn(t, "UA", msg{"UA", true, "@mnemo I prefer green tea"})
	_, err = b.learner.Learn(ctx, on)
	require.NoError(t, err)
	require.Len(t, b.model.Requests(), 1)
}

// A crash after the reply is recorded (and the job with it) but before any
// worker ran it: a fresh process extracts exactly once.
func TestCrashBetweenReplyAndExtractionExtractsOnceAfterRestart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t, []learn.Proposal{{Kind: memory.KindPreference, Content: "Prefers release notes as bullet lists", Evidence: []int{0}}})

	// The process that replied: it enqueues in the finishing transaction, then dies.
	dying, err := learn.NewQueue(b.db.DB, b.learner, learn.QueueOptions{})
	require.NoError(t, err)
	hook := dying.EnqueueTx
	turnID := b.turnWithHook(t, hook)
	var jobs int
	require.NoError(t, b.db.Pool.QueryRow(ctx, "SELECT count(*) FROM river_job WHERE kind = $1", learn.Args{}.Kind()).Scan(&jobs))
	require.Equal(t, 1, jobs, "the job is durable before any worker runs")
	require.Empty(t, b.personal(t, "UA"))

	// Enqueueing again (a retried delivery) does not add a second job.
	b.finish(t, turnID, false, hook)
	require.NoError(t, b.db.Pool.QueryRow(ctx, "SELECT count(*) FROM river_job WHERE kind = $1", learn.Args{}.Kind()).Scan(&jobs))
	require.Equal(t, 1, jobs)

	// After the restart, two replicas work the queue.
	for i := 0; i < 2; i++ {
		q, err := learn.NewQueue(b.db.DB, b.learner, learn.QueueOptions{Workers: 2, FetchPollInterval: 50 * time.Millisecond})
		require.NoError(t, err)
		require.NoError(t, q.Start(ctx))
		t.Cleanup(q.Stop)
	}
	require.Eventually(t, func() bool { return len(b.personal(t, "UA")) == 1 }, 15*time.Second, 50*time.Millisecond)
	require.Eventually(t, func() bool {
		var state string
		_ = b.db.Pool.QueryRow(ctx, "SELECT state FROM river_job WHERE kind = $1", learn.Args{}.Kind()).Scan(&state)
		return state == "completed"
	}, 15*time.Second, 50*time.Millisecond)
	// Running it again changes nothing.
	res, err := b.learner.Learn(ctx, turnID)
	require.NoError(t, err)
	require.Equal(t, "already learned", res.Skipped)
	require.Len(t, b.personal(t, "UA"), 1)
	require.Len(t, extractions(b), 1, "the model was asked once")
}

func extractions(b *testBundle) []*fakellm.Request {
	var out []*fakellm.Request
	for _, r := range b.model.Requests() {
		if strings.HasPrefix(r.System, learn.ExtractPromptMarker) {
			out = append(out, r)
		}
	}
	return out
}

func (b *testBundle) turnWithHook(t *testing.T, hook agent.TurnHook) int64 {
	t.Helper()
	ctx := context.Background()
	ts := b.nextTS()
	turn, _, err := b.db.DB.Turns().Open(ctx, db.TurnStart{Place: b.place(), MessageTS: string(ts), ActorID: "UA"})
	require.NoError(t, err)
	turnID := turn.ID
	_, err = b.log.Append(ctx, b.key, threads.Message{TS: ts, Role: threads.RoleUser, Actor: person("UA"), Authority: provenance.Instruction, Text: "@mnemo I prefer release notes as bullet lists", TurnID: &turnID})
	require.NoError(t, err)
	_, err = b.log.Append(ctx, b.key, threads.Message{TS: b.nextTS(), Role: threads.RoleAssistant, Actor: provenance.Actor{Kind: provenance.KindBot, ID: "UBOT"}, Text: "Noted.", TurnID: &turnID})
	require.NoError(t, err)
	b.finish(t, turnID, false, hook)
	return turnID
}

// finish records a turn as delivered, with its after-turn hook in the same
// transaction, as the turn runner does.
func (b *testBundle) finish(t *testing.T, turnID int64, usedWrite bool, hook agent.TurnHook) {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, b.db.DB.InTx(ctx, func(tx *db.Tx) error {
		// A repeated finish (a retried delivery) still runs the hook; the
		// store finishes a turn once, so a test's later flag is set by hand.
		err := tx.Turns().Finish(ctx, turnID, db.TurnDone, usedWrite, "")
		switch {
		case errors.Is(err, db.ErrTurnFinished) && usedWrite:
			if _, err := b.db.Pool.Exec(ctx, "UPDATE turns SET used_memory_write = true WHERE id = $1", turnID); err != nil {
				return err
			}
		case err != nil && !errors.Is(err, db.ErrTurnFinished):
			return err
		}
		if hook == nil {
			return nil
		}
		return hook(ctx, tx, turnID)
	}))
}

// A person who turned off learning about themselves (/mnemo learning me
// off) is never learned from: the model doesn't see their words, and a
// proposal citing them is dropped. Turned back on, the same turn shape
// stores their preference.
func TestLearningMeOffIsHonouredBeforeExtraction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setup(t,
		// The first turn never reaches the model; the second cites Alice's withheld line.
		[]learn.Proposal{{Kind: memory.KindProcedure, Content: "Deploys go out on Tuesdays after QA sign-off", Evidence: []int{2}}},
		[]learn.Proposal{{Kind: memory.KindPreference, Content: "Prefers bullet points", Evidence: []int{5}}},
		// The channel control: the mixed turn again, her line now allowed.
		[]learn.Proposal{{Kind: memory.KindProcedure, Content: "Deploys go out on Tuesdays after QA sign-off", Evidence: []int{7}}},
	)
	settings := b.db.DB.Settings()
	require.NoError(t, settings.SetUserLearning(ctx, team, "UA", false))

	off := b.turn(t, "UA", msg{"UA", true, "@mnemo I prefer bullet points in summaries"})
	res, err := b.learner.Learn(ctx, off)
	require.NoError(t, err)
	require.Contains(t, res.Skipped, "allows learning")
	require.Empty(t, extractions(b), "the model was never asked")

	// Bob allows learning; Alice's line in the same turn is withheld.
	mixed := b.turn(t, "UB", msg{"UA", false, "Deploys go out on Tuesdays after QA sign-off"}, msg{"UB", true, "@mnemo draft the release note"})
	res, err = b.learner.Learn(ctx, mixed)
	require.NoError(t, err)
	require.Len(t, extractions(b), 1)
	require.NotContains(t, extractions(b)[0].Messages[0].Text, "Tuesdays", "her words never reach the model")
	require.Len(t, res.Decisions, 1)
	require.False(t, res.Decisions[0].Store, "a proposal citing her is dropped: %s", res.Decisions[0].Reason)
	require.Empty(t, b.inChannel(t))

	// Control: turned back on, her preference is learned.
	require.NoError(t, settings.SetUserLearning(ctx, team, "UA", true))
	on := b.turn(t, "UA", msg{"UA", true, "@mnemo I prefer bullet points in summaries"})
	res, err = b.learner.Learn(ctx, on)
	require.NoError(t, err)
	require.Len(t, b.personal(t, "UA"), 1, "%+v", res)

	// Control for the channel: the same mixed turn, with her learning on,
	// stores the procedure her line states, and inChannel finds it; so the
	// empty channel above was her setting's doing.
	again := b.turn(t, "UB", msg{"UA", false, "Deploys go out on Tuesdays after QA sign-off"}, msg{"UB", true, "@mnemo draft the release note"})
	res, err = b.learner.Learn(ctx, again)
	require.NoError(t, err)
	got := b.inChannel(t)
	require.Len(t, got, 1, "%+v", res)
	require.Equal(t, "Deploys go out on Tuesdays after QA sign-off", got[0].Content)
	require.Equal(t, "UA", got[0].ActorID, "learned from her line, the one withheld before")
}

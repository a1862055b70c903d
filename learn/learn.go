package learn

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/rs/zerolog"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/threads"
)

// Args is the job: learn from one turn.
type Args struct {
	TurnID int64 `json:"turn_id"`
}

// Kind names the job in River.
func (Args) Kind() string { return "mnemo_learn_from_turn" }

// InsertOpts makes the job unique per turn.
func (Args) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 5, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// TranscriptLimit is how many of the thread's last messages extraction reads.
const TranscriptLimit = 20

// Structured events of passive learning in serve's JSON log (the "event"
// field; see agent.Event): tools match these, never the message text.
const (
	// EventDecision: one proposed memory decided. Fields: turn, kind,
	// stored, scope, speaker, evidence, reason.
	EventDecision = "learning.decision"
	// EventDecided: a turn's extraction finished. Fields: turn, skipped,
	// stored, dropped.
	EventDecided = "learning.decided"
)

// Learner runs passive learning for a turn.
type Learner struct {
	db    *db.DB
	store *memory.Store
	model llm.Model
	log   zerolog.Logger
}

// NewLearner returns a Learner.
func NewLearner(d *db.DB, store *memory.Store, model llm.Model, log zerolog.Logger) *Learner {
	return &Learner{db: d, store: store, model: model, log: log}
}

// Result says what one turn's learning did.
type Result struct {
	Skipped   string // why nothing was extracted, if so
	Decisions []Decision
	Stored    int
}

// Learn extracts and routes the memories of one turn. It decides once per
// turn: a repeated call after it has recorded its decision does nothing, and
// a repeat after a crash midway stores nothing twice (writes are deduped).
func (l *Learner) Learn(ctx context.Context, turnID int64) (Result, error) {
	turns := l.db.Turns()
	if done, err := turns.Learned(ctx, turnID); err != nil {
		return Result{}, fmt.Errorf("learn: %w", err)
	} else if done {
		return Result{Skipped: "already learned"}, nil
	}
	turn, err := turns.Get(ctx, turnID)
	if errors.Is(err, db.ErrNotFound) {
		// Its DM was erased (or the turn is past its retention) since the
		// job was queued: nothing is left to learn from, and retrying
		// would find nothing either.
		return Result{Skipped: "the turn is gone"}, nil
	}
	if err != nil {
		return Result{}, fmt.Errorf("learn: %w", err)
	}
	res, err := l.decide(ctx, turn)
	if err != nil {
		return res, err
	}
	dropped := len(res.Decisions) - res.Stored
	if _, err := turns.RecordLearning(ctx, turnID, res.Stored, dropped); errors.Is(err, db.ErrNotFound) {
		// Its DM was erased while it was learned from (the writes were
		// refused, decide says so): there is no row left to record it on,
		// and nothing to learn from on a retry.
		l.log.Info().Int64("turn", turnID).Msg("the turn's conversation was erased while it was learned from; nothing more is learned")
		return Result{Skipped: erasedMeanwhile, Decisions: res.Decisions}, nil
	} else if err != nil {
		return res, fmt.Errorf("learn: record: %w", err)
	}
	l.log.Info().Str("event", EventDecided).Int64("turn", turnID).Str("skipped", res.Skipped).Int("stored", res.Stored).Int("dropped", dropped).Msg("passive learning decided")
	return res, nil
}

// erasedMeanwhile is the reason of a decision whose write an erasure
// overtook (memory.ErrErased).
const erasedMeanwhile = "erased while it was learned from"

func (l *Learner) decide(ctx context.Context, turn db.Turn) (Result, error) {
	switch {
	case turn.Status != db.TurnDone:
		return Result{Skipped: "the turn did not complete"}, nil
	case turn.UsedMemoryWrite:
		return Result{Skipped: "the turn already wrote memory"}, nil
	}
	on, err := l.db.Settings().LearningEnabled(ctx, turn.Place.Team, turn.Place.Channel)
	if err != nil {
		return Result{}, fmt.Errorf("learn: %w", err)
	}
	if !on {
		return Result{Skipped: "learning is off in this channel"}, nil
	}
	msgs, prev, err := l.db.Sessions().ForTurn(ctx, turn.Place.SourceKey, turn.ID, TranscriptLimit)
	if err != nil {
		return Result{}, fmt.Errorf("learn: transcript: %w", err)
	}
	optedOut, err := l.optedOut(ctx, turn.Place.Team, msgs)
	if err != nil {
		return Result{}, fmt.Errorf("learn: %w", err)
	}
	lines, instructionActors, newHuman := transcript(msgs, prev, optedOut)
	if !newHuman {
		return Result{Skipped: "no new human text from anyone who allows learning"}, nil
	}
	proposals, err := Extract(ctx, l.model, lines)
	if err != nil {
		return Result{}, err
	}
	place := turn.Place
	var res Result
	for _, p := range proposals {
		d := Route(p, lines, instructionActors, place)
		if d.Store {
			// Extract has checked the end is a date: what is left to fail
			// here is an end already past, a decision to drop the memory.
			exp, err := memory.ParseExpiry(p.Expires, time.Now())
			if err != nil {
				d.Store, d.Reason = false, err.Error()
			} else {
				out, err := l.store.Remember(ctx, memory.WriteRequest{
					Actor: d.Speaker, Place: place, MessageTS: d.MessageTS, Scope: d.Scope, Kind: p.Kind,
					Content: p.Content, Said: d.Evidence, ExpiresAt: exp, WrittenBy: provenance.ByPassive, Turn: turn.ID,
				})
				switch {
				case errors.Is(err, memory.ErrErased):
					// Its speaker (or the DM it was said in) was erased
					// while this was learned: nothing of theirs is
					// stored; the other speakers' proposals still are.
					d.Store, d.Reason = false, erasedMeanwhile
				case err != nil:
					return res, fmt.Errorf("learn: store: %w", err)
				case out.Status == memory.Rejected:
					d.Store, d.Reason = false, "review: "+out.Reason
				case out.Status == memory.Duplicate:
					d.Reason = "already remembered"
					res.Stored++
				default:
					res.Stored++
				}
			}
		}
		l.log.Info().Str("event", EventDecision).Int64("turn", turn.ID).Str("kind", string(p.Kind)).Bool("stored", d.Store).Str("scope", string(d.Scope)).
			Str("speaker", d.Speaker.ID).Ints("evidence", p.Evidence).Str("reason", d.Reason).Msg("passive learning decision")
		res.Decisions = append(res.Decisions, d)
	}
	return res, nil
}

// transcript turns a turn's messages into the lines extraction reads. Only
// messages after prev (the last message of an earlier turn) are this turn's:
// earlier instructions are context now. It returns the people who addressed
// the bot in this turn, in first-seen order, and whether any person said
// anything new.
func transcript(msgs []threads.Message, prev int64, optedOut map[string]bool) (lines []Line, instructionActors []string, newHuman bool) {
	for i, r := range msgs {
		line := Line{
			Index: i, Text: r.Text, TS: string(r.TS), FromBot: r.Role == threads.RoleAssistant || r.Actor.Kind != provenance.KindUser,
			Actor: r.Actor, Authority: r.Authority,
		}
		if !line.FromBot && optedOut[r.Actor.ID] {
			// The model never sees what they said, so it can't propose it.
			line.Text, line.OptedOut = "(this person has turned off learning about them)", true
		}
		isNew := r.ID > prev && !line.OptedOut
		if !isNew {
			line.Authority = provenance.Context
		}
		if isNew && !line.FromBot {
			newHuman = true
			if line.Authority == provenance.Instruction && !contains(instructionActors, r.Actor.ID) {
				instructionActors = append(instructionActors, r.Actor.ID)
			}
		}
		lines = append(lines, line)
	}
	return lines, instructionActors, newHuman
}

// optedOut returns the people in msgs who turned passive learning about
// themselves off (/mnemo learning me off): in the thread's workspace, or,
// for an external member of a Slack Connect channel, in their own, where
// what is learned about them is kept.
func (l *Learner) optedOut(ctx context.Context, team string, msgs []threads.Message) (map[string]bool, error) {
	out := map[string]bool{}
	checked := map[string]bool{}
	for _, m := range msgs {
		id := m.Actor.ID
		if m.Actor.Kind != provenance.KindUser || id == "" || checked[id] {
			continue
		}
		checked[id] = true
		teams := []string{team}
		if m.Actor.Team != "" && m.Actor.Team != team {
			teams = append(teams, m.Actor.Team)
		}
		for _, t := range teams {
			on, err := l.db.Settings().UserLearningEnabled(ctx, t, id)
			if err != nil {
				return nil, err
			}
			if !on {
				out[id] = true
			}
		}
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Worker runs Args jobs.
type Worker struct {
	river.WorkerDefaults[Args]
	Learner *Learner
}

// Work learns from the job's turn.
func (w *Worker) Work(ctx context.Context, job *river.Job[Args]) error {
	_, err := w.Learner.Learn(ctx, job.Args.TurnID)
	w.Learner.logFailure(job, err)
	return err
}

// logFailure says at warn level that a learning job failed, with how many
// attempts it has left: a failure is otherwise seen only in river_job.
func (l *Learner) logFailure(job *river.Job[Args], err error) {
	if err == nil {
		return
	}
	l.log.Warn().Err(err).Int64("turn_id", job.Args.TurnID).Int("attempt", job.Attempt).Int("max_attempts", job.MaxAttempts).
		Msg("passive learning failed for a turn")
}

// Timeout bounds one extraction.
func (w *Worker) Timeout(*river.Job[Args]) time.Duration { return 2 * time.Minute }

package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/threads"
	"github.com/mnemo-bot/mnemo/tools"
)

// Post is one human message addressed to the bot, as every front end hands
// it to the Runner. Actor and Place come from the live event.
type Post struct {
	Key   threads.Key
	TS    threads.TS
	Actor provenance.Actor
	Place provenance.Place
	Text  string
}

// Phase is where a turn is, as a front end shows it (Slack with reactions).
type Phase int

const (
	Working Phase = iota
	Done
	Failed
)

// Surface is what differs between front ends (Slack, the terminal chat) in a
// turn's life. The Runner owns everything else.
type Surface interface {
	// Backfill returns a thread's earlier messages, for a thread whose log is
	// empty although the post is a reply. It may return none.
	Backfill(ctx context.Context, key threads.Key, current threads.TS) ([]threads.Message, error)
	// Progress shows the turn's phase on the post.
	Progress(ctx context.Context, p Post, phase Phase)
	// Reply posts the answer in the thread and returns what it posted, as the
	// bot's messages to log, even when it fails partway.
	Reply(ctx context.Context, key threads.Key, text string) ([]threads.Message, error)
	// Notify tells the person, in the thread, one sentence that is not part of
	// the conversation (what went wrong).
	Notify(ctx context.Context, key threads.Key, sentence string)
}

// TurnHook runs in the transaction that records a turn as delivered
// (passive learning enqueues its job there). It must not call the network.
type TurnHook func(ctx context.Context, tx *db.Tx, turnID int64) error

// Runner owns a turn's life for every front end: claim, backfill, log,
// recall and the model loop (Agent.Run), reply, finish, and the hand-off to
// learning. Build it with NewRunner.
type Runner struct {
	db        *db.DB
	agent     *Agent
	log       zerolog.Logger
	afterTurn TurnHook
	slots     chan struct{}
	now       func() time.Time
}

// RunnerOptions configures a Runner.
type RunnerOptions struct {
	Logger    zerolog.Logger
	AfterTurn TurnHook // optional
	// MaxConcurrent bounds the turns run at once; further posts wait for a
	// slot. Default 16.
	MaxConcurrent int
	Now           func() time.Time
}

// NewRunner returns a Runner.
func NewRunner(d *db.DB, a *Agent, o RunnerOptions) *Runner {
	n := o.MaxConcurrent
	if n <= 0 {
		n = 16
	}
	now := o.Now
	if now == nil {
		now = time.Now
	}
	return &Runner{db: d, agent: a, log: o.Logger, afterTurn: o.AfterTurn, slots: make(chan struct{}, n), now: now}
}

// ErrTurnClaimed is returned by Run when the post's turn was already
// claimed: the same post delivered twice, or taken by another replica.
var ErrTurnClaimed = db.ErrTurnClaimed

// Result is what Run did.
type Result struct {
	TurnID  int64
	Outcome Outcome
	// Failure is the sentence the person was told when the turn failed.
	Failure string
}

// Run answers one post once. It returns ErrTurnClaimed when another delivery
// already took the post, and otherwise an error only when the turn failed,
// after telling the person why.
func (r *Runner) Run(ctx context.Context, p Post, s Surface) (Result, error) {
	select {
	case r.slots <- struct{}{}:
	case <-ctx.Done():
		return Result{}, ctx.Err()
	}
	defer func() { <-r.slots }()

	log := r.log.With().Str("source_key", p.Key.SourceKey()).Str("ts", string(p.TS)).Logger()
	turnID, err := r.db.Turns().Claim(ctx, db.TurnStart{Place: p.Place, MessageTS: string(p.TS), ActorID: p.Actor.ID})
	if err != nil {
		return Result{}, err
	}
	res := Result{TurnID: turnID}
	fail := func(err error, sentence string, usedWrite bool) (Result, error) {
		log.Error().Err(err).Int("steps", res.Outcome.Steps).Msg("turn failed")
		s.Progress(ctx, p, Failed)
		if sentence != "" {
			s.Notify(ctx, p.Key, sentence)
		}
		res.Failure = sentence
		r.finish(ctx, log, turnID, db.TurnFailed, usedWrite)
		return res, err
	}

	sessions := r.db.Sessions()
	if p.Key.Root != p.TS {
		if err := r.backfill(ctx, p, s); err != nil {
			log.Warn().Err(err).Msg("thread backfill failed; continuing with what is logged")
		}
	}
	if _, err := sessions.Append(ctx, p.Key, threads.Message{TS: p.TS, Role: threads.RoleUser, Actor: p.Actor, Authority: provenance.Instruction, Text: p.Text, TurnID: &turnID}); err != nil {
		return fail(err, "I couldn't record your message in my database, so please try again in a minute.", false)
	}
	s.Progress(ctx, p, Working)

	if n := len([]rune(p.Text)); n > MaxMessageChars {
		return fail(fmt.Errorf("message of %d characters", n), fmt.Sprintf("Your message is %d characters long and I can read at most %d, so please shorten it or split it and try again.", n, MaxMessageChars), false)
	}
	history, err := r.history(ctx, p)
	if err != nil {
		return fail(err, "I couldn't read this thread's history from my database, so please try again in a minute.", false)
	}
	inv := tools.Invocation{Actor: p.Actor, Place: p.Place, MessageTS: string(p.TS), TurnID: turnID, WrittenBy: provenance.ByExplicit}
	res.Outcome, err = r.agent.Run(ctx, Turn{Inv: inv, History: history, Live: LiveFor(ctx, s, p)})
	if err != nil {
		return fail(err, FailureSentence(err), res.Outcome.UsedMemoryWrite)
	}
	posted, err := s.Reply(ctx, p.Key, res.Outcome.Reply)
	for i, m := range posted {
		m.TurnID = &turnID
		if i == 0 {
			m.Tools = strings.Join(res.Outcome.ToolTrace, "; ")
		}
		if _, lerr := sessions.Append(ctx, p.Key, m); lerr != nil {
			log.Error().Err(lerr).Msg("posted reply not logged")
		}
	}
	if err != nil {
		return fail(fmt.Errorf("reply: %w", err), "", res.Outcome.UsedMemoryWrite)
	}
	s.Progress(ctx, p, Done)
	log.Info().Int("steps", res.Outcome.Steps).Strs("tools", res.Outcome.ToolsRun).Int("recalled", len(res.Outcome.Recalled)).Msg("turn answered")
	r.finish(ctx, log, turnID, db.TurnDone, res.Outcome.UsedMemoryWrite)
	return res, nil
}

// backfill logs a thread's earlier messages the first time the bot sees a
// thread that already has some.
func (r *Runner) backfill(ctx context.Context, p Post, s Surface) error {
	n, err := r.db.Sessions().Len(ctx, p.Key)
	if err != nil || n > 0 {
		return err
	}
	msgs, err := s.Backfill(ctx, p.Key, p.TS)
	if err != nil {
		return err
	}
	for _, m := range msgs {
		if _, err := r.db.Sessions().Append(ctx, p.Key, m); err != nil {
			return err
		}
	}
	return nil
}

// finish records the turn's outcome and, for a delivered turn, runs the
// after-turn hook in the same transaction, so the learning job exists
// exactly when the turn is done.
func (r *Runner) finish(ctx context.Context, log zerolog.Logger, turnID int64, status db.TurnStatus, usedWrite bool) {
	// A turn cancelled midway is still recorded as finished.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), finishTimeout)
	defer cancel()
	err := r.db.InTx(ctx, func(tx *db.Tx) error {
		if err := tx.Turns().Finish(ctx, turnID, status, usedWrite); err != nil {
			return err
		}
		if status == db.TurnDone && r.afterTurn != nil {
			return r.afterTurn(ctx, tx, turnID)
		}
		return nil
	})
	if err != nil {
		log.Error().Err(err).Int64("turn", turnID).Msg("turn finish")
	}
}

const finishTimeout = 10 * time.Second

// FailureSentence says in one sentence what went wrong and whether to retry.
func FailureSentence(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "Sorry, I ran out of time working on this; please try again, perhaps with a narrower question."
	case errors.Is(err, context.Canceled):
		return "Sorry, I stopped working on this before I had an answer; please ask again."
	case errors.Is(err, ErrNoReply):
		return "Sorry, the model gave me an empty answer; please try again."
	}
	return "Sorry, I couldn't reach the language model to answer this; please try again in a minute."
}

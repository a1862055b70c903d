package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/rs/zerolog"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/detect"
	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/threads"
	"github.com/mnemo-bot/mnemo/tools"
	"github.com/mnemo-bot/mnemo/usage"
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

// Delivery is what a turn posts in its thread for a post: its answer, or a
// notice. Resume is set when an earlier attempt may have posted some of it
// before it stopped: the surface must look before it posts, so that nothing
// is posted twice.
type Delivery struct {
	Post   Post
	Text   string
	Resume bool
	// Streamed is the message an earlier attempt started streaming the
	// answer into and may not have finished ("" when none): the surface
	// finishes it rather than post beside it.
	Streamed string
}

// Surface is what differs between front ends (Slack, the terminal chat) in a
// turn's life. The Runner owns everything else. A turn may be run more than
// once (after a crash, a shutdown, a failure to post), so every method may
// be called again for the same post.
type Surface interface {
	// Backfill returns a thread's messages before current, at most limit
	// of them (the root and the newest replies), for a thread the bot did
	// not see start and has not yet read. It may return none; an error
	// means nothing was read.
	Backfill(ctx context.Context, key threads.Key, current threads.TS, limit int) ([]threads.Message, error)
	// Progress shows the turn's phase on the post.
	Progress(ctx context.Context, p Post, phase Phase)
	// Reply posts d.Text in the thread as the answer to d.Post and returns
	// the messages the answer is made of, to log as the bot's, including any
	// an earlier attempt posted. An error means the answer is not all
	// posted; the Runner tries again later.
	Reply(ctx context.Context, d Delivery) ([]threads.Message, error)
	// Notify posts d.Text in the thread: one sentence that is not part of the
	// conversation (why there is no answer). An error means it is not posted.
	Notify(ctx context.Context, d Delivery) error
}

// TurnHook runs in the transaction that records a turn as delivered
// (passive learning enqueues its job there). It must not call the network.
type TurnHook func(ctx context.Context, tx *db.Tx, turnID int64) error

// Runner owns a turn's life for every front end: accept (record the turn,
// backfill, log the post), recall and the model loop (Agent.Run), keep what
// it will say, post it, record it as posted, and hand the turn to learning.
// Every step can be repeated: a turn interrupted anywhere is finished by
// running it again, and posts its reply once. Build it with NewRunner.
type Runner struct {
	db        *db.DB
	agent     *Agent
	log       zerolog.Logger
	obs       Observer
	afterTurn TurnHook
	slots     chan struct{}
	backfill  int
	meter     *usage.Meter
	now       func() time.Time
}

// RunnerOptions configures a Runner.
type RunnerOptions struct {
	Logger    zerolog.Logger
	AfterTurn TurnHook // optional
	Observer  Observer // optional
	// MaxConcurrent bounds the turns run at once; further posts wait for a
	// slot. Default 16.
	MaxConcurrent int
	// BackfillMessages bounds the earlier messages read into the log of a
	// thread the bot sees for the first time. Default DefaultBackfill.
	BackfillMessages int
	// Meter records each turn's model usage and steps and enforces the
	// budgets; nil records nothing and limits nothing.
	Meter *usage.Meter
	Now   func() time.Time
}

// DefaultBackfill is how many earlier messages of a thread are read when
// the bot first sees it, unless RunnerOptions says otherwise.
const DefaultBackfill = 500

// NewRunner returns a Runner.
func NewRunner(d *db.DB, a *Agent, o RunnerOptions) *Runner {
	n := o.MaxConcurrent
	if n <= 0 {
		n = 16
	}
	r := &Runner{db: d, agent: a, log: o.Logger, obs: o.Observer, afterTurn: o.AfterTurn, slots: make(chan struct{}, n), backfill: o.BackfillMessages, meter: o.Meter, now: o.Now}
	if r.backfill <= 0 {
		r.backfill = DefaultBackfill
	}
	if r.obs == nil {
		r.obs = nopObserver{}
	}
	if r.now == nil {
		r.now = time.Now
	}
	return r
}

// ErrTurnFinished is returned by Run when the post's turn had already
// finished: the post was answered (or its failure told) by an earlier run.
var ErrTurnFinished = db.ErrTurnFinished

// ErrUndeliverable is returned (wrapped) by a Surface's Reply or Notify
// when posting in the thread can never work (the bot was removed from the
// channel, the channel was archived). The turn then ends, failed, without
// a reply, instead of being tried again and again.
var ErrUndeliverable = errors.New("the thread can't be posted in")

// ErrInterrupted is returned by Run when its context ended before the turn
// finished (a shutdown). Nothing was told to the person; running the turn
// again finishes it.
var ErrInterrupted = errors.New("turn interrupted")

// Result is what Run did.
type Result struct {
	TurnID  int64
	Outcome Outcome
	// Failure is the sentence the person was told when the turn failed.
	Failure string
}

// Accept records the turn of a post and logs the post in its thread (after
// backfilling a thread seen for the first time), once however often it is
// called; the call that records the turn shows the post as being worked on.
// A front end accepts a post as soon as it arrives, so the thread's log has
// it even while the thread is busy with an earlier turn.
func (r *Runner) Accept(ctx context.Context, p Post, s Surface) (db.Turn, error) {
	// A post accepted before (its job woke again, or Run after the
	// inbox's accept) is recorded and logged: one read says so.
	if t, err := r.db.Turns().Find(ctx, p.Place.Team, p.Place.Channel, string(p.TS)); err == nil || !errors.Is(err, db.ErrNotFound) {
		return t, err
	}
	if p.Key.Root != p.TS {
		// Slack is read before the transaction, never inside it.
		if err := r.readThread(ctx, p, s); err != nil {
			r.log.Warn().Err(err).Str("source_key", p.Key.SourceKey()).Msg("thread backfill failed; continuing with what is logged")
		}
	}
	// The turn and its post are recorded together: a turn on record has
	// its post in the thread's log.
	var t db.Turn
	var created bool
	// Relaxed: the inbox job runs the post again if a crash of the
	// database loses this (see db.InTxRelaxed).
	err := r.db.InTxRelaxed(ctx, func(tx *db.Tx) error {
		var err error
		if t, created, err = tx.Turns().Open(ctx, db.TurnStart{Place: p.Place, MessageTS: string(p.TS), ActorID: p.Actor.ID}); err != nil || !created {
			return err
		}
		if _, err := tx.Sessions().Append(ctx, p.Key, threads.Message{TS: p.TS, Role: threads.RoleUser, Actor: p.Actor, Authority: provenance.Instruction, Text: StoredText(p.Text), TurnID: &t.ID}); err != nil {
			return fmt.Errorf("log post: %w", err)
		}
		return nil
	})
	if err != nil {
		return t, err
	}
	if created {
		s.Progress(ctx, p, Working)
	}
	return t, nil
}

// Run answers one post. It may be called again for the same post, after an
// error or a crash: a turn that finished is not run again (ErrTurnFinished),
// an answer already decided is posted without asking the model again, and
// parts of it already posted are not posted twice.
//
// Run returns nil when the turn finished: answered, or failed and the person
// told why in one sentence (Result.Failure). It returns an error when the
// turn did not finish and must be run again later: ErrInterrupted when ctx
// ended, otherwise a failure of storage or of the surface.
func (r *Runner) Run(ctx context.Context, p Post, s Surface) (res Result, err error) {
	select {
	case r.slots <- struct{}{}:
	case <-ctx.Done():
		return Result{}, r.unfinished(ctx, ctx.Err())
	}
	defer func() { <-r.slots }()
	start := r.now()
	ctx, span := tracer.Start(ctx, "turn", trace.WithAttributes(attribute.String("slack.channel", p.Place.Channel), attribute.String("slack.ts", string(p.TS))))
	defer func() {
		outcome := outcomeOf(res, err)
		span.SetAttributes(attribute.String("mnemo.turn.outcome", outcome), attribute.Int64("mnemo.turn.id", res.TurnID))
		if err != nil && outcome != OutcomeDuplicate {
			span.SetStatus(codes.Error, outcome)
		}
		span.End()
		r.obs.TurnFinished(outcome, r.now().Sub(start))
	}()

	p.Text = Sanitize(p.Text)
	logc := r.log.With().Str("source_key", p.Key.SourceKey()).Str("ts", string(p.TS))
	traceID := ""
	if sc := span.SpanContext(); sc.HasTraceID() {
		traceID = sc.TraceID().String()
		logc = logc.Str("trace_id", traceID)
	}
	log := logc.Logger()
	t, err := r.Accept(ctx, p, s)
	if err != nil {
		return res, r.unfinished(ctx, err)
	}
	res.TurnID = t.ID
	if traceID != "" && t.TraceID == "" && t.Status == db.TurnRunning {
		// The first traced attempt's trace is the turn's.
		if err := r.db.Usage().SetTrace(ctx, t.ID, traceID); err != nil {
			log.Warn().Err(err).Msg("turn's trace id not recorded")
		}
	}
	if t.Status != db.TurnRunning {
		return res, ErrTurnFinished
	}
	// An attempt a crash of the database forgets is one more attempt at
	// most; the answer decided next is committed durably, and this with it.
	err = r.db.InTxRelaxed(ctx, func(tx *db.Tx) error {
		var err error
		t, err = tx.Turns().Attempt(ctx, t.ID)
		return err
	})
	if err != nil {
		return res, r.unfinished(ctx, err)
	}
	return r.runAttempt(ctx, log, p, s, t, nil, res)
}

// Taken is a post a job took up with its thread's lease (Runner.Take).
type Taken struct {
	db.Taken
	recalled *Recalled
	// span is the turn's trace span, begun by Take (recall runs in it)
	// and ended by RunTaken; Take ends it itself for a post it won't run.
	span trace.Span
}

// Take takes a post up for a job in one database round trip: it records
// the post's turn and logs the post (once, however often it is called; a
// thread seen for the first time is backfilled first), takes the thread's
// lease for the job while the turn runs, and counts the attempt. The
// turn's recall runs beside it. Taken.Leased false with a running turn
// means the thread is busy: the post waits for it, before later posts. The
// call that records the turn shows the post as being worked on.
func (r *Runner) Take(ctx context.Context, p Post, s Surface, lease db.Lease, ttl time.Duration) (Taken, error) {
	p.Text = Sanitize(p.Text)
	ctx, span := tracer.Start(ctx, "turn", trace.WithAttributes(attribute.String("slack.channel", p.Place.Channel), attribute.String("slack.ts", string(p.TS))))
	run := false
	defer func() {
		if !run {
			span.End()
		}
	}()
	// Recall needs only the post, so it runs while the thread is read from
	// Slack and the post is taken up, on a connection of its own, and is
	// joined before Take returns; it is wasted only when the thread is busy
	// or the turn already decided.
	var tk Taken
	var wg sync.WaitGroup
	if r.agent != nil && utf8.RuneCountInString(p.Text) <= MaxMessageChars {
		wg.Go(func() {
			tk.recalled = r.agent.Recall(ctx, r.invocation(p, 0), StoredText(p.Text))
		})
	}
	if p.Key.Root != p.TS {
		// Slack is read before the batch, never inside it.
		if err := r.readThread(ctx, p, s); err != nil {
			r.log.Warn().Err(err).Str("source_key", p.Key.SourceKey()).Msg("thread backfill failed; continuing with what is logged")
		}
	}
	taken, err := r.db.Turns().Take(ctx, db.TurnTake{
		Start: db.TurnStart{Place: p.Place, MessageTS: string(p.TS), ActorID: p.Actor.ID},
		Key:   p.Key,
		Post:  threads.Message{TS: p.TS, Role: threads.RoleUser, Actor: p.Actor, Authority: provenance.Instruction, Text: StoredText(p.Text)},
		Lease: &lease, TTL: ttl,
	})
	wg.Wait()
	if err != nil {
		return Taken{}, err
	}
	tk.Taken = taken
	if !taken.Leased || taken.Turn.Pending != nil {
		tk.recalled = nil
	}
	if taken.Created {
		s.Progress(ctx, p, Working)
	}
	if taken.Leased && taken.Turn.Status == db.TurnRunning {
		run, tk.span = true, span // RunTaken ends it
	} else {
		span.SetAttributes(attribute.String("mnemo.turn.outcome", "not run"), attribute.Int64("mnemo.turn.id", taken.Turn.ID))
	}
	return tk, nil
}

// RunTaken answers a post Take took up with its thread's lease, as Run does
// (the turn is recorded, its attempt counted, its recall made).
func (r *Runner) RunTaken(ctx context.Context, p Post, s Surface, tk Taken) (res Result, err error) {
	select {
	case r.slots <- struct{}{}:
	case <-ctx.Done():
		return Result{}, r.unfinished(ctx, ctx.Err())
	}
	defer func() { <-r.slots }()
	start := r.now()
	span := tk.span
	if span == nil {
		ctx, span = tracer.Start(ctx, "turn", trace.WithAttributes(attribute.String("slack.channel", p.Place.Channel), attribute.String("slack.ts", string(p.TS))))
	} else {
		ctx = trace.ContextWithSpan(ctx, span)
	}
	defer func() {
		outcome := outcomeOf(res, err)
		span.SetAttributes(attribute.String("mnemo.turn.outcome", outcome), attribute.Int64("mnemo.turn.id", res.TurnID))
		if err != nil && outcome != OutcomeDuplicate {
			span.SetStatus(codes.Error, outcome)
		}
		span.End()
		r.obs.TurnFinished(outcome, r.now().Sub(start))
	}()

	p.Text = Sanitize(p.Text)
	logc := r.log.With().Str("source_key", p.Key.SourceKey()).Str("ts", string(p.TS))
	t := tk.Turn
	res.TurnID = t.ID
	if sc := span.SpanContext(); sc.HasTraceID() {
		traceID := sc.TraceID().String()
		logc = logc.Str("trace_id", traceID)
		if t.TraceID == "" && t.Status == db.TurnRunning {
			// The first traced attempt's trace is the turn's.
			if err := r.db.Usage().SetTrace(ctx, t.ID, traceID); err != nil {
				r.log.Warn().Err(err).Int64("turn", t.ID).Msg("turn's trace id not recorded")
			}
		}
	}
	log := logc.Logger()
	if t.Status != db.TurnRunning {
		return res, ErrTurnFinished
	}
	if !tk.Leased {
		return res, fmt.Errorf("agent: turn %d run without its thread's lease", t.ID)
	}
	return r.runAttempt(ctx, log, p, s, t, tk.recalled, res)
}

// runAttempt runs an attempt at a running turn whose attempt is counted:
// it decides what to post, unless an earlier attempt did, and posts it.
func (r *Runner) runAttempt(ctx context.Context, log zerolog.Logger, p Post, s Surface, t db.Turn, recalled *Recalled, res Result) (Result, error) {
	var err error
	resume := t.Pending != nil
	if !resume {
		var pending db.Pending
		pending, res.Outcome, err = r.decide(ctx, p, s, t, recalled)
		if err != nil {
			log.Warn().Err(err).Int("attempt", t.Attempts).Msg("turn not finished; it will be run again")
			return res, r.unfinished(ctx, err)
		}
		// What is posted is what the turn keeps: redacted (Pending.Stored).
		if pending, err = r.db.Turns().Decide(ctx, t.ID, pending, res.Outcome.UsedMemoryWrite); err != nil {
			return res, r.unfinished(ctx, err)
		}
		t.Pending, t.UsedMemoryWrite = &pending, t.UsedMemoryWrite || res.Outcome.UsedMemoryWrite
	}
	return r.deliver(ctx, log, p, s, t, resume, res)
}

// decide runs the model for a post and returns what to post: the answer, or
// a notice when the answer can't be had (too long a message, a model
// error). An error means nothing was decided and the turn must run again.
func (r *Runner) decide(ctx context.Context, p Post, s Surface, t db.Turn, recalled *Recalled) (db.Pending, Outcome, error) {
	turnID := t.ID
	if n := utf8.RuneCountInString(p.Text); n > MaxMessageChars {
		return db.Pending{Kind: db.PendingNotice, Text: fmt.Sprintf("Your message is %s characters long and I can read at most %d, so please shorten it or split it and try again.", lengthOf(n), MaxMessageChars)}, Outcome{}, nil
	}
	history, err := r.history(ctx, p)
	if err != nil {
		return db.Pending{}, Outcome{}, err
	}
	ctx = r.meter.Begin(ctx, usage.Scope{TurnID: turnID, Team: p.Place.Team, Person: p.Actor.ID, Channel: p.Place.Channel})
	out, err := r.agent.Run(ctx, Turn{Inv: r.invocation(p, turnID), History: lastIs(history, p), Live: LiveFor(ctx, s, p, r.streamMessage(t)), Recalled: recalled})
	var limit *usage.LimitError
	switch {
	case err == nil:
		return db.Pending{Kind: db.PendingAnswer, Text: out.Reply}, out, nil
	case ctx.Err() != nil:
		return db.Pending{}, out, err
	case errors.As(err, &limit):
		r.log.Warn().Str("source_key", p.Key.SourceKey()).Str("limit", string(limit.Limit)).Int64("max", limit.Max).Msg("turn stopped by a budget")
		r.obs.BudgetExceeded(string(limit.Limit))
		if serr := usage.Step(ctx, db.StepBudget, string(limit.Limit), "stopped", 0); serr != nil {
			r.log.Warn().Err(serr).Msg("turn's budget stop not recorded")
		}
		out.Err = err
		return db.Pending{Kind: db.PendingNotice, Text: FailureSentence(err, out)}, out, nil
	case errors.Is(err, ErrNoReply), errors.As(err, new(*ModelError)):
		if serr := usage.Step(ctx, db.StepError, "model", errorClass(err), 0); serr != nil {
			r.log.Warn().Err(serr).Msg("turn's error not recorded")
		}
		r.log.Error().Err(err).Str("source_key", p.Key.SourceKey()).Int("steps", out.Steps).Strs("tools", out.ToolsRun).Msg("turn failed")
		out.Err = err
		return db.Pending{Kind: db.PendingNotice, Text: FailureSentence(err, out)}, out, nil
	}
	return db.Pending{}, out, err
}

// streamMessage is what turn t keeps of its answer's message: the one an
// earlier attempt started, and how this attempt records the one it starts.
func (r *Runner) streamMessage(t db.Turn) StreamMessage {
	return StreamMessage{Prior: t.StreamTS, Started: func(ctx context.Context, ts string) error {
		if ts == t.StreamTS {
			return nil
		}
		return r.db.Turns().Streamed(ctx, t.ID, ts)
	}}
}

// invocation is who runs a post's turn's tools, and where.
func (r *Runner) invocation(p Post, turnID int64) tools.Invocation {
	return tools.Invocation{Actor: p.Actor, Place: p.Place, MessageTS: string(p.TS), Said: p.Text, TurnID: turnID, WrittenBy: provenance.ByExplicit}
}

// lastIs returns the thread's history ending with the post being answered.
// A post that waited for an earlier turn of its thread is older than that
// turn's reply, but it is what the model must answer now.
func lastIs(history []threads.Message, p Post) []threads.Message {
	out := make([]threads.Message, 0, len(history)+1)
	var post *threads.Message
	for i := range history {
		if history[i].TS == p.TS && history[i].Role == threads.RoleUser {
			post = &history[i]
			continue
		}
		out = append(out, history[i])
	}
	if post == nil {
		post = &threads.Message{TS: p.TS, Role: threads.RoleUser, Actor: p.Actor, Authority: provenance.Instruction, Text: StoredText(p.Text)}
	}
	return append(out, *post)
}

// deliver posts what the turn decided and records it as posted, with the
// turn's outcome, in one transaction.
func (r *Runner) deliver(ctx context.Context, log zerolog.Logger, p Post, s Surface, t db.Turn, resume bool, res Result) (Result, error) {
	posted, err := r.post(ctx, p, s, t, resume, res.Outcome)
	status := db.TurnDone
	if t.Pending.Kind == db.PendingNotice {
		status, res.Failure = db.TurnFailed, t.Pending.Text
	}
	switch {
	case errors.Is(err, ErrUndeliverable):
		log.Error().Err(err).Int("posted", len(posted)).Msg("the thread can't be posted in; the turn ends without a reply")
		status, res.Failure = db.TurnFailed, err.Error()
	case err != nil:
		log.Warn().Err(err).Int("posted", len(posted)).Str("kind", string(t.Pending.Kind)).Msg("not posted; it will be posted again")
		return res, r.unfinished(ctx, fmt.Errorf("post %s: %w", t.Pending.Kind, err))
	}
	return r.finish(ctx, log, p, s, t, status, posted, resume, true, res)
}

// post posts what the turn decided in its thread: the answer, returning
// the messages it is made of, or the notice. An error means it is not all
// posted.
func (r *Runner) post(ctx context.Context, p Post, s Surface, t db.Turn, resume bool, out Outcome) ([]threads.Message, error) {
	d := Delivery{Post: p, Text: t.Pending.Text, Resume: resume, Streamed: t.StreamTS}
	var posted []threads.Message
	var err error
	ctx, span := tracer.Start(ctx, "slack.reply", trace.WithAttributes(attribute.String("mnemo.reply.kind", string(t.Pending.Kind)), attribute.Bool("mnemo.reply.resumed", resume)))
	defer span.End()
	if t.Pending.Kind == db.PendingNotice {
		err = s.Notify(ctx, d)
	} else {
		posted, err = s.Reply(ctx, d)
		if len(posted) > 0 && len(out.ToolTrace) > 0 {
			// What the turn's tools did rides with the reply, for the
			// asker's next turn (a resumed run no longer knows it).
			posted[0].Tools = strings.Join(out.ToolTrace, "; ")
		}
	}
	span.SetAttributes(attribute.Int("mnemo.reply.messages", len(posted)))
	if err != nil {
		span.SetStatus(codes.Error, "not posted")
	}
	return posted, err
}

// finish records a turn's outcome with what was posted for it, and then
// shows it on the post; told is false for a failed turn whose person
// nothing could tell (the caller logged why).
func (r *Runner) finish(ctx context.Context, log zerolog.Logger, p Post, s Surface, t db.Turn, status db.TurnStatus, posted []threads.Message, resume, told bool, res Result) (Result, error) {
	if err := r.record(ctx, p, t, status, posted); err != nil {
		if errors.Is(err, db.ErrTurnFinished) {
			return res, ErrTurnFinished
		}
		log.Error().Err(err).Msg("posted, but not recorded; the next run finds what was posted")
		return res, r.unfinished(ctx, err)
	}
	// Done or Failed is shown once it is recorded, so what the post shows
	// is never ahead of what the thread's log holds.
	if status == db.TurnDone {
		s.Progress(ctx, p, Done)
	} else {
		s.Progress(ctx, p, Failed)
	}
	switch {
	case status == db.TurnDone:
		log.Info().Str("event", string(EventTurnAnswered)).Int("steps", res.Outcome.Steps).Strs("tools", res.Outcome.ToolsRun).Int("recalled", len(res.Outcome.Recalled)).Bool("resumed", resume).Msg("turn answered")
	case told:
		log.Info().Str("event", string(EventTurnFailed)).Bool("resumed", resume).Msg("turn failed; the person was told why")
	}
	return res, nil
}

// record logs the posted messages and finishes the turn in one transaction
// and, for a delivered turn, runs the after-turn hook in it too, so the
// learning job exists exactly when the turn is done.
func (r *Runner) record(ctx context.Context, p Post, t db.Turn, status db.TurnStatus, posted []threads.Message) error {
	// What was posted must be recorded even when the run is being stopped.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	replyTS := ""
	if len(posted) > 0 {
		replyTS = string(posted[0].TS)
	}
	return r.db.InTx(ctx, func(tx *db.Tx) error {
		for _, m := range posted {
			m.TurnID = &t.ID
			if _, err := tx.Sessions().Append(ctx, p.Key, m); err != nil {
				return err
			}
		}
		if err := tx.Turns().Finish(ctx, t.ID, status, t.UsedMemoryWrite, replyTS); err != nil {
			return err
		}
		if status == db.TurnDone && r.afterTurn != nil {
			return r.afterTurn(ctx, tx, t.ID)
		}
		return nil
	})
}

const recordTimeout = 10 * time.Second

// GiveUpWindow bounds how long after its post a turn's decision (its
// answer, or its notice) is tried again by GiveUp. Within it, Slack
// refusing it is taken for a brief outage: GiveUp fails, and is called
// again by the inbox's last attempts and then by the abandoned-turn sweep.
// Past it, GiveUp tries it once more and, if Slack still refuses it, ends
// the turn failed anyway, so that no sweep tries it for ever. Two hours
// outlast the inbox's attempts (minutes) and leave the sweep (every
// AbandonedAfter, an hour by default) a try inside the window.
//
// It is counted from the turn's CreatedAt, by the app's clock. The turn's
// updated_at would count from its last attempt, but the sweep's claim
// (TurnClaimAbandoned) and GiveUp's own Decide touch it: the window would
// start again at every sweep and never pass. No column records the last
// attempt alone (that needs a migration). So time a post spent snoozed
// behind a busy thread counts too: one that waited past the window and
// then met an outage has only the inbox's attempts and one more try in
// GiveUp, no sweep's, before its turn ends failed. Clock skew with the
// database is seconds against hours.
const GiveUpWindow = 2 * time.Hour

// GiveUp ends a post's turn, unless it already finished: as failed, the
// person told sentence (or the notice the turn already decided), when the
// turn decided nothing to say; as done, its answer delivered, when it had
// decided one. The inbox calls it when a post's last attempt failed. An
// error means the person was not told; GiveUp may be called again. Past
// GiveUpWindow, a decision Slack still refuses ends the turn failed: the
// person is told sentence in place of the answer, if that can be posted.
func (r *Runner) GiveUp(ctx context.Context, p Post, s Surface, sentence string) error {
	t, _, err := r.db.Turns().Open(ctx, db.TurnStart{Place: p.Place, MessageTS: string(p.TS), ActorID: p.Actor.ID})
	if err != nil {
		return err
	}
	if t.Status != db.TurnRunning {
		return nil
	}
	// An answer decided is delivered as a resumed run delivers it: an
	// attempt that stopped after posting it (or some of its parts) before
	// it could record it left it in the thread, and the surface finds what
	// is there rather than post it again. A notice in its place would
	// leave the answer and, under it, a sentence saying there is none.
	if t.Pending == nil {
		pending, err := r.db.Turns().Decide(ctx, t.ID, db.Pending{Kind: db.PendingNotice, Text: sentence}, false)
		if err != nil {
			if errors.Is(err, db.ErrTurnFinished) {
				return nil
			}
			return err
		}
		t.Pending = &pending
	}
	log := r.log.With().Str("source_key", p.Key.SourceKey()).Str("ts", string(p.TS)).Logger()
	if r.now().Sub(t.CreatedAt) >= GiveUpWindow {
		err = r.giveUpLate(ctx, log, p, s, t, sentence)
	} else {
		_, err = r.deliver(ctx, log, p, s, t, true, Result{TurnID: t.ID})
	}
	if errors.Is(err, ErrTurnFinished) {
		return nil
	}
	return err
}

// giveUpLate is GiveUp past GiveUpWindow: the turn's decision is tried once
// more and, if Slack still refuses it, the turn ends failed all the same,
// with sentence posted in place of an answer if Slack takes that. An
// error means nothing was recorded (the database, or ctx ended): GiveUp is
// called again, and finds in the thread what this call posted.
func (r *Runner) giveUpLate(ctx context.Context, log zerolog.Logger, p Post, s Surface, t db.Turn, sentence string) error {
	res := Result{TurnID: t.ID}
	posted, err := r.post(ctx, p, s, t, true, res.Outcome)
	status := db.TurnDone
	if err != nil || t.Pending.Kind == db.PendingNotice {
		status = db.TurnFailed
	}
	if err != nil && !errors.Is(err, ErrUndeliverable) && t.Pending.Kind == db.PendingAnswer && ctx.Err() == nil {
		if nerr := s.Notify(ctx, Delivery{Post: p, Text: sentence, Resume: true, Streamed: t.StreamTS}); nerr != nil {
			err = errors.Join(err, fmt.Errorf("and its notice: %w", nerr))
		} else {
			log.Warn().Err(err).Int("posted", len(posted)).Dur("window", GiveUpWindow).Msg("the turn's answer was still refused past its window; the person was told it failed instead")
			err = nil
		}
	}
	told := err == nil
	if !told && ctx.Err() != nil {
		// Cut short, not refused: the next call tries again.
		return r.unfinished(ctx, err)
	}
	if _, ferr := r.finish(ctx, log, p, s, t, status, posted, true, told, res); ferr != nil {
		return ferr
	}
	if !told {
		// Logged once, by the call that ended the turn: a finished turn is
		// not given up again.
		log.Error().Err(err).Int("posted", len(posted)).Dur("window", GiveUpWindow).Msg("nothing the turn decided could be posted within its window; the turn ended failed, and nobody was told")
	}
	return nil
}

// Abandoned returns up to limit posts whose turns are still running though
// nothing touched them since before: their inbox jobs are gone, so nothing
// will finish them but GiveUp. Each is handed to one caller.
func (r *Runner) Abandoned(ctx context.Context, before time.Time, limit int) ([]Post, error) {
	turns, err := r.db.Turns().ClaimAbandoned(ctx, before, limit)
	if err != nil {
		return nil, err
	}
	var out []Post
	for _, t := range turns {
		key, err := threads.ParseSourceKey(t.Place.SourceKey)
		if err != nil {
			r.log.Error().Err(err).Int64("turn", t.ID).Msg("abandoned turn has a bad source key")
			continue
		}
		place := t.Place
		place.ThreadTS = string(key.Root)
		out = append(out, Post{Key: key, TS: threads.TS(t.MessageTS), Place: place, Actor: provenance.Actor{Kind: provenance.KindUser, Team: t.Place.Team, ID: t.ActorID}})
	}
	return out, nil
}

// unfinished is the error Run returns for a turn that must run again.
func (r *Runner) unfinished(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%w: %w", ErrInterrupted, err)
	}
	return err
}

func outcomeOf(res Result, err error) string {
	switch {
	case errors.Is(err, ErrTurnFinished):
		return OutcomeDuplicate
	case errors.Is(err, ErrInterrupted):
		return OutcomeInterrupted
	case err != nil:
		return OutcomeRetry
	case res.Failure != "":
		return OutcomeFailed
	}
	return OutcomeAnswered
}

// readThread logs a thread's earlier messages the first time the bot sees a
// thread it did not see start. They are written in one statement with the
// mark that the thread was read, so a backfill that failed leaves nothing
// behind and the thread's next post tries it again.
func (r *Runner) readThread(ctx context.Context, p Post, s Surface) error {
	need, err := r.db.Sessions().BackfillNeeded(ctx, p.Key)
	if err != nil || !need {
		return err
	}
	msgs, err := s.Backfill(ctx, p.Key, p.TS, r.backfill)
	if err != nil {
		return err
	}
	// Backfill sanitizes what it stores.
	_, err = r.db.Sessions().Backfill(ctx, p.Key, msgs)
	return err
}

// Sanitize makes text storable: without NUL bytes, invalid UTF-8, control
// characters and bidirectional overrides. It is db.Sanitize, the one rule
// for every text mnemo stores.
func Sanitize(s string) string { return db.Sanitize(s) }

// StoredText is a post's text as the thread's log keeps it: sanitised and redacted, and,
// past MaxMessageChars, cut there with a marker that says how long it was.
func StoredText(s string) string {
	// Redacted before the cut: a secret the cut ran through would no
	// longer look like one.
	s = detect.Redact(Sanitize(s))
	n := utf8.RuneCountInString(s)
	if n <= MaxMessageChars {
		return s
	}
	return string([]rune(s)[:MaxMessageChars]) + fmt.Sprintf("… [truncated: the message was %s characters; the first %d are kept]", lengthOf(n), MaxMessageChars)
}

// FailureSentence says in one sentence what went wrong and whether asking
// again can help, and what the turn stored before it failed.
func FailureSentence(err error, out Outcome) string {
	s := failureReason(err)
	var did []string
	if len(out.Remembered) > 0 {
		did = append(did, "I did remember "+quoteList(out.Remembered))
	}
	if len(out.Forgotten) > 0 {
		did = append(did, "I did forget "+quoteList(out.Forgotten))
	}
	if len(did) > 0 {
		s += "; before that, " + strings.Join(did, " and ")
	}
	return s + "."
}

// errorClass names a failed turn's cause for its record: the model
// error's class, or what else ended it.
func errorClass(err error) string {
	var le *llm.Error
	switch {
	case errors.As(err, &le):
		return string(le.Class)
	case errors.Is(err, ErrNoReply):
		return "no_reply"
	case errors.Is(err, context.DeadlineExceeded):
		return "deadline"
	}
	return "other"
}

func failureReason(err error) string {
	var le *llm.Error
	var limit *usage.LimitError
	switch {
	case errors.As(err, &limit):
		return strings.TrimSuffix(limit.Sentence(time.Now()), ".")
	case errors.Is(err, context.DeadlineExceeded):
		return "Sorry, I ran out of time working on this; please try again, perhaps with a narrower question"
	case errors.Is(err, context.Canceled):
		return "Sorry, I stopped working on this before I had an answer; please ask again"
	case errors.Is(err, ErrNoReply):
		return "Sorry, the model gave me an empty answer; please try again"
	case errors.As(err, &le):
		return modelReason(le)
	case errors.As(err, new(*ModelError)):
		return "Sorry, that failed because of a problem on my side (my request to the model was invalid), which an admin can find in mnemo's logs; asking again is unlikely to help"
	}
	return "Sorry, something went wrong on my side while answering this; please ask again"
}

func modelReason(e *llm.Error) string {
	wait := ""
	if e.RetryAfter > 0 {
		wait = llm.HumanDuration(e.RetryAfter)
	}
	switch e.Class {
	case llm.ClassRateLimited, llm.ClassOverloaded, llm.ClassServer:
		if wait != "" {
			return "Sorry, the model provider is busy and asked me to wait " + wait + ", so please ask again after that"
		}
		switch e.Class {
		case llm.ClassRateLimited:
			return "Sorry, the model provider is rate limiting me; please try again in a minute"
		case llm.ClassOverloaded:
			return "Sorry, the model provider is overloaded; please try again in a few minutes"
		}
		return fmt.Sprintf("Sorry, the model provider had an error (HTTP %d); please try again in a few minutes", e.Status)
	case llm.ClassAuth:
		return "Sorry, the model provider refused my API key, so I can't answer until an admin fixes mnemo's configuration"
	case llm.ClassBadRequest:
		return "Sorry, that failed because of a problem on my side (the model provider rejected my request), which an admin can find in mnemo's logs; asking again is unlikely to help"
	case llm.ClassMalformed:
		return "Sorry, that failed because of a problem on my side (I couldn't read the model provider's answer), which an admin can find in mnemo's logs"
	}
	return "Sorry, I couldn't reach the language model to answer this; please try again in a minute"
}

func quoteList(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = "“" + strings.TrimRight(s, ". ") + "”"
	}
	return strings.Join(q, ", ")
}

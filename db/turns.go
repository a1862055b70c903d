package db

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mnemo-bot/mnemo/db/internal/dbsqlc"
	"github.com/mnemo-bot/mnemo/provenance"
)

// TurnStatus is where a turn is in its life.
type TurnStatus string

const (
	TurnRunning TurnStatus = "running"
	TurnDone    TurnStatus = "done"
	TurnFailed  TurnStatus = "failed"
)

// PendingKind says what a turn decided to post: its answer, or a notice
// (one sentence saying why there is no answer).
type PendingKind string

const (
	PendingAnswer PendingKind = "answer"
	PendingNotice PendingKind = "notice"
)

// Pending is what a turn decided to post and has not yet recorded as posted.
type Pending struct {
	Kind PendingKind
	Text string
}

// Stored is p as Decide stores it: its text sanitized (Sanitize) and with
// the secrets the detectors find replaced with detect.RedactedMarker, as
// the session log keeps a message (Sessions.Append). The model's reply may
// quote a secret (a tool's result, say), and the turn keeps it for the
// conversation's retention; it may hold a NUL, which PostgreSQL would
// refuse on every attempt. What is posted is this text too, so the post
// and the turn agree.
func (p Pending) Stored() Pending {
	p.Text = storedText(p.Text)
	return p
}

// ErrTurnFinished is returned when a turn that already finished is asked to
// change: a retry of a post that was answered meanwhile.
var ErrTurnFinished = errors.New("turn already finished")

// Turn is one human post the bot answers.
type Turn struct {
	ID              int64
	Place           provenance.Place
	MessageTS       string
	ActorID         string
	Status          TurnStatus
	UsedMemoryWrite bool
	// Attempts counts the times a runner took the turn up.
	Attempts int
	// Pending is what the turn decided to post, until it is recorded as
	// posted; nil before the turn has decided.
	Pending *Pending
	// ReplyTS is the first message of the posted reply, once it is recorded.
	ReplyTS string
	// StreamTS is the message an attempt started streaming the answer
	// into (Streamed), "" when none did.
	StreamTS string
	// TraceID is the turn's OpenTelemetry trace, "" when none was recorded.
	TraceID    string
	CreatedAt  time.Time
	UpdatedAt  time.Time
	FinishedAt *time.Time
}

// TurnStart names the post a turn answers.
type TurnStart struct {
	Place     provenance.Place
	MessageTS string
	ActorID   string
}

// Turns owns the turns and turn_learning tables.
type Turns struct {
	e executor
	q *dbsqlc.Queries
}

// Open records the turn for one post, or returns the turn already recorded
// for it: every delivery of a post, and every retry, shares one turn.
// created is true only for the call that recorded it. While the team's
// erasure runs nothing is recorded nor returned (ErrErasing); an erasure
// that starts later waits for the transaction and deletes the turn.
func (s Turns) Open(ctx context.Context, t TurnStart) (turn Turn, created bool, err error) {
	r, err := s.q.TurnOpen(ctx, s.e, dbsqlc.TurnOpenParams{
		TeamID: t.Place.Team, ChannelID: t.Place.Channel, MessageTs: t.MessageTS,
		SourceKey: t.Place.SourceKey, ActorID: t.ActorID, Visibility: string(t.Place.Visibility),
		Shared: t.Place.Shared, Org: t.Place.Org,
	})
	if err = mapErr(err); errors.Is(err, ErrNotFound) {
		err = ErrErasing // the turn finds no row only then
	}
	if err != nil {
		return Turn{}, false, fmt.Errorf("open turn: %w", err)
	}
	return turnFromRow(dbsqlc.Turn{
		ID: r.ID, TeamID: r.TeamID, ChannelID: r.ChannelID, MessageTs: r.MessageTs, SourceKey: r.SourceKey, ActorID: r.ActorID,
		Status: r.Status, UsedMemoryWrite: r.UsedMemoryWrite, CreatedAt: r.CreatedAt, FinishedAt: r.FinishedAt, Visibility: r.Visibility,
		Attempts: r.Attempts, PendingKind: r.PendingKind, PendingText: r.PendingText, ReplyTs: r.ReplyTs, UpdatedAt: r.UpdatedAt, TraceID: r.TraceID,
		StreamTs: r.StreamTs, Shared: r.Shared, Org: r.Org,
	}), r.Created, nil
}

// Find returns the turn of the post at (team, channel, ts), or ErrNotFound.
func (s Turns) Find(ctx context.Context, team, channel, ts string) (Turn, error) {
	r, err := s.q.TurnGetByPost(ctx, s.e, dbsqlc.TurnGetByPostParams{TeamID: team, ChannelID: channel, MessageTs: ts})
	if err != nil {
		return Turn{}, fmt.Errorf("turn of post %s: %w", ts, mapErr(err))
	}
	return turnFromRow(r), nil
}

// ByMessage returns the turn of the message at (channel, ts): the post it
// answers, or the first message of its reply. ErrNotFound when none; an
// error when two workspaces have one.
func (s Turns) ByMessage(ctx context.Context, channel, ts string) (Turn, error) {
	t, err := s.ByMessageIn(ctx, channel, ts, nil)
	if errors.Is(err, errTwoTurns) {
		return Turn{}, fmt.Errorf("%w; give the turn's id", err)
	}
	return t, err
}

// errTwoTurns is two workspaces having a turn of one message.
var errTwoTurns = errors.New("more than one workspace has one")

// ByMessageIn is ByMessage among the turns of the workspaces keep accepts
// (all, when keep is nil): in a channel shared between organisations each
// one's installation may have recorded a turn of the same post, and
// whether another's did is not this caller's to learn. keep's error is
// returned.
func (s Turns) ByMessageIn(ctx context.Context, channel, ts string, keep func(Turn) (bool, error)) (Turn, error) {
	rows, err := s.q.TurnGetByMessage(ctx, s.e, dbsqlc.TurnGetByMessageParams{ChannelID: channel, Ts: ts})
	if err != nil {
		return Turn{}, fmt.Errorf("turn of message %s: %w", ts, mapErr(err))
	}
	var found []Turn
	for _, r := range rows {
		t := turnFromRow(r)
		if keep != nil {
			ok, err := keep(t)
			if err != nil {
				return Turn{}, fmt.Errorf("turn of message %s: %w", ts, err)
			}
			if !ok {
				continue
			}
		}
		found = append(found, t)
	}
	switch {
	case len(found) == 0:
		return Turn{}, fmt.Errorf("turn of message %s: %w", ts, ErrNotFound)
	case len(found) > 1:
		return Turn{}, fmt.Errorf("turn of message %s: %w", ts, errTwoTurns)
	}
	return found[0], nil
}

// Attempt counts one more attempt at a turn and returns the turn as it
// stands.
func (s Turns) Attempt(ctx context.Context, id int64) (Turn, error) {
	r, err := s.q.TurnAttempt(ctx, s.e, id)
	if err != nil {
		return Turn{}, fmt.Errorf("attempt turn %d: %w", id, mapErr(err))
	}
	return turnFromRow(r), nil
}

// Decide keeps what a running turn will post until Finish records it as
// posted, redacted (Pending.Stored), and returns it as kept: what is
// posted is that. It returns ErrTurnFinished when the turn already
// finished.
func (s Turns) Decide(ctx context.Context, id int64, p Pending, usedMemoryWrite bool) (Pending, error) {
	p = p.Stored()
	kind := string(p.Kind)
	n, err := s.q.TurnDecide(ctx, s.e, dbsqlc.TurnDecideParams{ID: id, PendingKind: &kind, PendingText: &p.Text, UsedMemoryWrite: usedMemoryWrite})
	if err != nil {
		return p, fmt.Errorf("decide turn %d: %w", id, mapErr(err))
	}
	if n == 0 {
		return p, fmt.Errorf("decide turn %d: %w", id, ErrTurnFinished)
	}
	return p, nil
}

// Streamed records the message a running turn's answer started in, so
// that an attempt after a crash continues in it. It returns
// ErrTurnFinished when the turn already finished.
func (s Turns) Streamed(ctx context.Context, id int64, ts string) error {
	n, err := s.q.TurnStreamed(ctx, s.e, dbsqlc.TurnStreamedParams{ID: id, StreamTs: ts})
	if err != nil {
		return fmt.Errorf("record turn %d's stream: %w", id, mapErr(err))
	}
	if n == 0 {
		return fmt.Errorf("record turn %d's stream: %w", id, ErrTurnFinished)
	}
	return nil
}

// Finish records a running turn's outcome, with the ts of the reply's first
// message when there is one. It returns ErrTurnFinished when the turn had
// already finished, so a retry that lost a race records nothing twice.
func (s Turns) Finish(ctx context.Context, id int64, status TurnStatus, usedMemoryWrite bool, replyTS string) error {
	var reply *string
	if replyTS != "" {
		reply = &replyTS
	}
	n, err := s.q.TurnFinish(ctx, s.e, dbsqlc.TurnFinishParams{ID: id, Status: string(status), UsedMemoryWrite: usedMemoryWrite, ReplyTs: reply})
	if err != nil {
		return fmt.Errorf("finish turn %d: %w", id, mapErr(err))
	}
	if n == 0 {
		return fmt.Errorf("finish turn %d: %w", id, ErrTurnFinished)
	}
	return nil
}

// Get returns one turn.
func (s Turns) Get(ctx context.Context, id int64) (Turn, error) {
	r, err := s.q.TurnGetByID(ctx, s.e, id)
	if err != nil {
		return Turn{}, fmt.Errorf("turn %d: %w", id, mapErr(err))
	}
	return turnFromRow(r), nil
}

// ClaimAbandoned returns up to limit running turns that nothing has touched
// since before, and touches them, so that another replica asking at the
// same time gets others.
func (s Turns) ClaimAbandoned(ctx context.Context, before time.Time, limit int) ([]Turn, error) {
	rows, err := s.q.TurnClaimAbandoned(ctx, s.e, dbsqlc.TurnClaimAbandonedParams{Before: before, MaxTurns: int32(limit)})
	if err != nil {
		return nil, fmt.Errorf("abandoned turns: %w", mapErr(err))
	}
	out := make([]Turn, 0, len(rows))
	for _, r := range rows {
		out = append(out, turnFromRow(r))
	}
	return out, nil
}

// Learned reports whether a turn's passive learning has decided.
func (s Turns) Learned(ctx context.Context, id int64) (bool, error) {
	_, err := s.q.TurnLearningGet(ctx, s.e, id)
	switch err = mapErr(err); err {
	case nil:
		return true, nil
	case ErrNotFound:
		return false, nil
	}
	return false, fmt.Errorf("turn learning %d: %w", id, err)
}

// RecordLearning records that a turn's learning decided; false means it
// already had.
func (s Turns) RecordLearning(ctx context.Context, id int64, stored, dropped int) (bool, error) {
	n, err := s.q.TurnLearningRecord(ctx, s.e, dbsqlc.TurnLearningRecordParams{TurnID: id, Stored: int32(stored), Dropped: int32(dropped)})
	if err != nil {
		return false, fmt.Errorf("record learning %d: %w", id, mapErr(err))
	}
	return n > 0, nil
}

func turnFromRow(r dbsqlc.Turn) Turn {
	t := Turn{
		ID: r.ID, MessageTS: r.MessageTs, ActorID: r.ActorID, Status: TurnStatus(r.Status),
		UsedMemoryWrite: r.UsedMemoryWrite, Attempts: int(r.Attempts), CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, FinishedAt: r.FinishedAt, TraceID: r.TraceID,
		Place:    provenance.Place{Team: r.TeamID, Org: r.Org, Channel: r.ChannelID, SourceKey: r.SourceKey, Visibility: provenance.Visibility(r.Visibility), Shared: r.Shared},
		StreamTS: r.StreamTs,
	}
	if r.PendingKind != nil && r.PendingText != nil {
		t.Pending = &Pending{Kind: PendingKind(*r.PendingKind), Text: *r.PendingText}
	}
	if r.ReplyTs != nil {
		t.ReplyTS = *r.ReplyTs
	}
	return t
}

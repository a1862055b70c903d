package db

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mnemo-bot/mnemo/db/internal/dbsqlc"
	"github.com/mnemo-bot/mnemo/detect"
	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/threads"
)

// Sessions owns session_messages: the per-thread session log that gives
// every turn its conversation so far.
type Sessions struct {
	e executor
	q *dbsqlc.Queries
}

// Append logs a message of the thread key. A message already logged (same
// ts) is left as it was and returned. Its text and its tools' trace are
// sanitized (Sanitize: a model's tool input may hold a NUL), and secrets the
// detectors find are replaced with detect.RedactedMarker before they are
// stored: the log goes back to the model on every later turn of the thread.
// A message of no turn is not logged while its team's erasure runs
// (ErrErasing), and an erasure that starts later waits for it and deletes
// it; a turn's message is its turn's, which the erasure deletes.
func (s Sessions) Append(ctx context.Context, key threads.Key, m threads.Message) (threads.Message, error) {
	m.Text, m.Tools = storedText(m.Text), storedText(m.Tools)
	if m.Authority == "" {
		m.Authority = provenance.Context
	}
	kind := m.Actor.Kind
	if kind == "" {
		kind = provenance.KindSystem
	}
	row, err := s.q.SessionMessageAppend(ctx, s.e, dbsqlc.SessionMessageAppendParams{
		SourceKey: key.SourceKey(), TeamID: key.Team, ChannelID: key.Channel, Ts: string(m.TS),
		Role: string(m.Role), ActorKind: string(kind), ActorID: m.Actor.ID, ActorTeam: actorTeam(key, m.Actor), Authority: string(m.Authority),
		Text: m.Text, TurnID: m.TurnID, Tools: m.Tools,
	})
	if err = mapErr(err); errors.Is(err, ErrNotFound) {
		err = ErrErasing // a context line finds no row only then
	}
	if err != nil {
		return threads.Message{}, fmt.Errorf("session log append: %w", err)
	}
	return messageFromRow(row), nil
}

// storedText is a text as the session log keeps it: sanitized, then
// redacted, so that a secret a control character ran through is found.
func storedText(s string) string { return detect.Redact(Sanitize(s)) }

// History returns the last limit messages of the thread, oldest first.
func (s Sessions) History(ctx context.Context, key threads.Key, limit int) ([]threads.Message, error) {
	rows, err := s.q.SessionMessageListByThread(ctx, s.e, dbsqlc.SessionMessageListByThreadParams{SourceKey: key.SourceKey(), MaxMessages: int32(limit)})
	if err != nil {
		return nil, fmt.Errorf("session log history: %w", mapErr(err))
	}
	return messagesFromRows(rows), nil
}

// BackfillNeeded reports whether the thread's earlier messages must still be
// read from Slack: no backfill of it completed, and the log does not hold
// its root (a thread the bot saw start has nothing earlier to read).
func (s Sessions) BackfillNeeded(ctx context.Context, key threads.Key) (bool, error) {
	need, err := s.q.SessionBackfillNeeded(ctx, s.e, dbsqlc.SessionBackfillNeededParams{SourceKey: key.SourceKey(), RootTs: string(key.Root)})
	if err != nil {
		return false, fmt.Errorf("session log backfill check: %w", mapErr(err))
	}
	return need, nil
}

// Backfill records a thread's backfill as done and logs its earlier
// messages, in one statement: all of it or none, so a failed backfill is
// tried again. Messages already logged are kept as they were; texts are
// sanitized and redacted as Append does. It reports false, and logs
// nothing, when an earlier backfill of the thread had completed (another
// replica's, say). Nothing is logged while the team's erasure runs
// (ErrErasing), as with Append.
func (s Sessions) Backfill(ctx context.Context, key threads.Key, msgs []threads.Message) (bool, error) {
	// Empty arrays, not NULL, for a thread with nothing before its post:
	// the mark's count is cardinality(ts), which is NULL for NULL.
	p := dbsqlc.SessionBackfillParams{SourceKey: key.SourceKey(), TeamID: key.Team, ChannelID: key.Channel,
		Ts: []string{}, Role: []string{}, ActorKind: []string{}, ActorID: []string{}, ActorTeam: []string{}, Authority: []string{}, Text: []string{}}
	seen := make(map[threads.TS]bool, len(msgs))
	for _, m := range msgs {
		if seen[m.TS] {
			continue
		}
		seen[m.TS] = true
		if m.Authority == "" {
			m.Authority = provenance.Context
		}
		kind := m.Actor.Kind
		if kind == "" {
			kind = provenance.KindSystem
		}
		p.Ts = append(p.Ts, string(m.TS))
		p.Role = append(p.Role, string(m.Role))
		p.ActorKind = append(p.ActorKind, string(kind))
		p.ActorID = append(p.ActorID, m.Actor.ID)
		p.ActorTeam = append(p.ActorTeam, actorTeam(key, m.Actor))
		p.Authority = append(p.Authority, string(m.Authority))
		p.Text = append(p.Text, storedText(m.Text))
	}
	r, err := s.q.SessionBackfill(ctx, s.e, p)
	if err == nil && !r.Held {
		err = ErrErasing
	}
	if err != nil {
		return false, fmt.Errorf("session log backfill: %w", mapErr(err))
	}
	return r.Marked, nil
}

// ForTurn returns the thread's messages up to the turn's last one, the newest
// limit of them, oldest first, and the id of the last message that belongs
// to an earlier turn (0 if none): what passive learning reads.
func (s Sessions) ForTurn(ctx context.Context, sourceKey string, turnID int64, limit int) ([]threads.Message, int64, error) {
	rows, err := s.q.SessionMessageListForTurn(ctx, s.e, dbsqlc.SessionMessageListForTurnParams{SourceKey: sourceKey, TurnID: &turnID, MaxMessages: int32(limit)})
	if err != nil {
		return nil, 0, fmt.Errorf("session log for turn %d: %w", turnID, mapErr(err))
	}
	prev, err := s.q.SessionMessageLastIDBeforeTurn(ctx, s.e, dbsqlc.SessionMessageLastIDBeforeTurnParams{SourceKey: sourceKey, TurnID: &turnID})
	if err != nil {
		return nil, 0, fmt.Errorf("session log for turn %d: %w", turnID, mapErr(err))
	}
	return messagesFromRows(rows), prev, nil
}

func messagesFromRows(rows []dbsqlc.SessionMessage) []threads.Message {
	out := make([]threads.Message, 0, len(rows))
	for _, r := range rows {
		out = append(out, messageFromRow(r))
	}
	return out
}

// actorTeam is what the log keeps of a speaker's own workspace: "" when it
// is the thread's, else theirs (an external member of a Slack Connect
// channel), so that what is learned from their words is kept in their
// own workspace, as what they ask to be remembered is.
func actorTeam(key threads.Key, a provenance.Actor) string {
	if a.Team == key.Team {
		return ""
	}
	return a.Team
}

func messageFromRow(r dbsqlc.SessionMessage) threads.Message {
	return threads.Message{
		ID: r.ID, SourceKey: r.SourceKey, TS: threads.TS(r.Ts), Role: threads.Role(r.Role),
		Actor:     provenance.Actor{Kind: provenance.ActorKind(r.ActorKind), Team: cmp.Or(r.ActorTeam, r.TeamID), ID: r.ActorID},
		Authority: provenance.Authority(r.Authority), Text: r.Text, TurnID: r.TurnID, Tools: r.Tools,
	}
}

// RecentInChannel returns the channel's messages since since, outside the
// thread key, the newest limit of them, oldest first: in a DM, the recent
// conversation a new top-level message continues.
func (s Sessions) RecentInChannel(ctx context.Context, key threads.Key, since time.Time, limit int) ([]threads.Message, error) {
	rows, err := s.q.SessionMessageRecentInChannel(ctx, s.e, dbsqlc.SessionMessageRecentInChannelParams{
		TeamID: key.Team, ChannelID: key.Channel, SourceKey: key.SourceKey(), Since: since, MaxMessages: int32(limit),
	})
	if err != nil {
		return nil, fmt.Errorf("session log recent: %w", mapErr(err))
	}
	return messagesFromRows(rows), nil
}

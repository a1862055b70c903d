package threads

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mnemo-bot/mnemo/db/dbsqlc"
	"github.com/mnemo-bot/mnemo/provenance"
)

// Role is who a logged message is from, as the model sees it.
type Role string

const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Message is one entry of a thread's session log.
type Message struct {
	ID        int64
	SourceKey string
	TS        TS
	Role      Role
	Actor     provenance.Actor
	Authority provenance.Authority
	Text      string
	TurnID    *int64
}

// Log is the per-thread session log in PostgreSQL.
type Log struct {
	pool *pgxpool.Pool
	q    *dbsqlc.Queries
}

// NewLog returns the session log on pool.
func NewLog(pool *pgxpool.Pool) *Log { return &Log{pool: pool, q: dbsqlc.New()} }

// HistoryLimit is how many earlier messages of a thread a turn carries.
const HistoryLimit = 50

// Append logs a message of the thread key. A message already logged (same
// ts) is left as it was and returned.
func (l *Log) Append(ctx context.Context, key Key, m Message) (Message, error) {
	if m.Authority == "" {
		m.Authority = provenance.Context
	}
	kind := m.Actor.Kind
	if kind == "" {
		kind = provenance.KindSystem
	}
	row, err := l.q.SessionMessageAppend(ctx, l.pool, dbsqlc.SessionMessageAppendParams{
		SourceKey: key.SourceKey(), TeamID: key.Team, ChannelID: key.Channel, Ts: string(m.TS),
		Role: string(m.Role), ActorKind: string(kind), ActorID: m.Actor.ID, Authority: string(m.Authority),
		Text: m.Text, TurnID: m.TurnID,
	})
	if err != nil {
		return Message{}, fmt.Errorf("session log append: %w", err)
	}
	return fromRow(row), nil
}

// History returns the last limit messages of the thread, oldest first.
func (l *Log) History(ctx context.Context, key Key, limit int) ([]Message, error) {
	rows, err := l.q.SessionMessageListByThread(ctx, l.pool, dbsqlc.SessionMessageListByThreadParams{SourceKey: key.SourceKey(), MaxMessages: int32(limit)})
	if err != nil {
		return nil, fmt.Errorf("session log history: %w", err)
	}
	out := make([]Message, 0, len(rows))
	for _, r := range rows {
		out = append(out, fromRow(r))
	}
	return out, nil
}

// Len counts the thread's logged messages.
func (l *Log) Len(ctx context.Context, key Key) (int64, error) {
	n, err := l.q.SessionMessageCountByThread(ctx, l.pool, key.SourceKey())
	if err != nil {
		return 0, fmt.Errorf("session log count: %w", err)
	}
	return n, nil
}

func fromRow(r dbsqlc.SessionMessage) Message {
	return Message{
		ID: r.ID, SourceKey: r.SourceKey, TS: TS(r.Ts), Role: Role(r.Role),
		Actor:     provenance.Actor{Kind: provenance.ActorKind(r.ActorKind), Team: r.TeamID, ID: r.ActorID},
		Authority: provenance.Authority(r.Authority), Text: r.Text, TurnID: r.TurnID,
	}
}

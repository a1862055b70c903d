package agent

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/threads"
	"github.com/mnemo-bot/mnemo/tools"
)

// LocalSession is one conversation outside Slack (`mnemo chat`): its own
// thread, under a local identity, through the same agent, tools, memory,
// session log and learning as Slack turns.
type LocalSession struct {
	agent *Agent
	pool  *pgxpool.Pool
	log   *threads.Log
	hook  TurnHook
	actor provenance.Actor
	key   threads.Key
	place provenance.Place
	now   func() time.Time

	mu   sync.Mutex
	last time.Time
}

// NewLocalSession starts a session thread for actor. hook may be nil.
func NewLocalSession(a *Agent, pool *pgxpool.Pool, hook TurnHook, actor provenance.Actor, now func() time.Time) *LocalSession {
	if now == nil {
		now = time.Now
	}
	s := &LocalSession{agent: a, pool: pool, log: threads.NewLog(pool), hook: hook, actor: actor, now: now}
	root := s.tick()
	s.key = threads.Key{Team: actor.Team, Channel: "L" + actor.ID, Root: root}
	s.place = provenance.Place{Team: actor.Team, Channel: s.key.Channel, SourceKey: s.key.SourceKey(), ThreadTS: string(root), Visibility: provenance.DM}
	return s
}

// SourceKey is the session thread's key.
func (s *LocalSession) SourceKey() string { return s.key.SourceKey() }

// tick returns a strictly increasing timestamp for the session's messages.
func (s *LocalSession) tick() threads.TS {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.now().Truncate(time.Microsecond)
	if !t.After(s.last) {
		t = s.last.Add(time.Microsecond)
	}
	s.last = t
	return threads.TSFromTime(t)
}

// Say runs one turn and returns the reply.
func (s *LocalSession) Say(ctx context.Context, text string) (string, error) {
	if n := len([]rune(text)); n > MaxMessageChars {
		return "", fmt.Errorf("your message is %d characters long and I can read at most %d; shorten or split it", n, MaxMessageChars)
	}
	ts := s.tick()
	turnID, err := ClaimTurn(ctx, s.pool, TurnStart{Place: s.place, MessageTS: string(ts), ActorID: s.actor.ID})
	if err != nil {
		return "", fmt.Errorf("chat: %w", err)
	}
	if _, err := s.log.Append(ctx, s.key, threads.Message{TS: ts, Role: threads.RoleUser, Actor: s.actor, Authority: provenance.Instruction, Text: text, TurnID: &turnID}); err != nil {
		return "", err
	}
	history, err := s.log.History(ctx, s.key, threads.HistoryLimit)
	if err != nil {
		return "", err
	}
	out, err := s.agent.Run(ctx, Turn{Inv: tools.Invocation{Actor: s.actor, Place: s.place, MessageTS: string(ts), TurnID: turnID, WrittenBy: "explicit"}, History: history})
	if err != nil {
		_ = FinishTurn(ctx, s.pool, nil, turnID, false, out.UsedMemoryWrite)
		return "", err
	}
	bot := provenance.Actor{Kind: provenance.KindBot, Team: s.key.Team, ID: "mnemo", Name: "mnemo"}
	if _, err := s.log.Append(ctx, s.key, threads.Message{TS: s.tick(), Role: threads.RoleAssistant, Actor: bot, Authority: provenance.Context, Text: out.Reply, TurnID: &turnID}); err != nil {
		return "", err
	}
	if err := FinishTurn(ctx, s.pool, s.hook, turnID, true, out.UsedMemoryWrite); err != nil {
		return "", err
	}
	return out.Reply, nil
}

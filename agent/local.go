package agent

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/threads"
)

// LocalSession is one conversation outside Slack (`mnemo chat`): its own
// thread, under a local identity, through the same Runner, and so the same
// agent, tools, memory, session log and learning as Slack turns.
type LocalSession struct {
	runner *Runner
	actor  provenance.Actor
	key    threads.Key
	place  provenance.Place
	now    func() time.Time

	mu   sync.Mutex
	last time.Time
}

// NewLocalSession starts a session thread for actor.
func NewLocalSession(r *Runner, actor provenance.Actor, now func() time.Time) *LocalSession {
	if now == nil {
		now = time.Now
	}
	s := &LocalSession{runner: r, actor: actor, now: now}
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

// Say runs one turn and returns the reply. When the turn fails, the error's
// text is the sentence a person should read.
func (s *LocalSession) Say(ctx context.Context, text string) (string, error) {
	surface := &localSurface{s: s}
	res, err := s.runner.Run(ctx, Post{Key: s.key, TS: s.tick(), Actor: s.actor, Place: s.place, Text: text}, surface)
	switch {
	case err != nil:
		return "", err
	case res.Failure != "":
		return "", errors.New(res.Failure)
	}
	return surface.reply, nil
}

// localSurface is the terminal: no reactions, no backfill; the reply is
// handed back to Say, and a notice comes back as Run's Result.Failure.
type localSurface struct {
	s     *LocalSession
	reply string
}

func (l *localSurface) Backfill(context.Context, threads.Key, threads.TS) ([]threads.Message, error) {
	return nil, nil
}

func (l *localSurface) Progress(context.Context, Post, Phase) {}

func (l *localSurface) Reply(_ context.Context, d Delivery) ([]threads.Message, error) {
	l.reply = d.Text
	bot := provenance.Actor{Kind: provenance.KindBot, Team: d.Post.Key.Team, ID: "mnemo", Name: "mnemo"}
	return []threads.Message{{TS: l.s.tick(), Role: threads.RoleAssistant, Actor: bot, Authority: provenance.Context, Text: d.Text}}, nil
}

func (l *localSurface) Notify(context.Context, Delivery) error { return nil }

package terminal

import (
	"context"
	"io"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/mnemo-bot/mnemo/agent"
	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/threads"
)

// Session is one conversation outside Slack (`mnemo chat`): its own
// thread, under a local identity, through the same Runner, and so the same
// agent, tools, memory, session log and learning as Slack turns.
type Session struct {
	runner *agent.Runner
	log    zerolog.Logger
	actor  provenance.Actor
	key    threads.Key
	place  provenance.Place
	now    func() time.Time
	out    io.Writer         // answers streamed to (localstream.go)
	status func(text string) // the turn's steps shown to (localstream.go)

	mu   sync.Mutex
	last time.Time
}

// NewSession starts a session thread for actor; log is where a turn that
// could not be recorded is reported.
func NewSession(r *agent.Runner, actor provenance.Actor, log zerolog.Logger, now func() time.Time) *Session {
	if now == nil {
		now = time.Now
	}
	s := &Session{runner: r, log: log, actor: actor, now: now}
	root := s.tick()
	s.key = threads.Key{Team: actor.Team, Channel: "L" + actor.ID, Root: root}
	s.place = provenance.Place{Team: actor.Team, Channel: s.key.Channel, SourceKey: s.key.SourceKey(), ThreadTS: string(root), Visibility: provenance.DM}
	return s
}

// SourceKey is the session thread's key.
func (s *Session) SourceKey() string { return s.key.SourceKey() }

// tick returns a strictly increasing timestamp for the session's messages.
func (s *Session) tick() threads.TS {
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
func (s *Session) Say(ctx context.Context, text string) (string, error) {
	surface := &localSurface{s: s}
	post := agent.Post{Key: s.key, TS: s.tick(), Actor: s.actor, Place: s.place, Text: text}
	res, err := s.runner.Run(ctx, post, surface)
	switch {
	case err != nil && ctx.Err() != nil:
		// The terminal has no inbox to run the turn again: stopped (Ctrl-C)
		// is failed, recorded as such.
		stopped, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		s.log.Error().Err(err).Str("source_key", s.key.SourceKey()).Str("why", "stopped").Msg("turn failed")
		if gerr := s.runner.GiveUp(stopped, post, surface, "(stopped)"); gerr != nil {
			s.log.Error().Err(gerr).Msg("stopped turn not recorded")
		}
		return "", err
	case err != nil:
		return "", err
	case res.Failure != "":
		return "", &Failure{Sentence: res.Failure, Err: res.Outcome.Err}
	}
	return surface.reply, nil
}

// Failure is a failed turn: the sentence the person was told, and why.
type Failure struct {
	Sentence string
	Err      error
}

func (f *Failure) Error() string { return f.Sentence }
func (f *Failure) Unwrap() error { return f.Err }

// localSurface is the terminal: no reactions, no backfill; the reply and any
// notice are handed back to Say.
type localSurface struct {
	s     *Session
	reply string
	live  *localStream
}

func (l *localSurface) Backfill(context.Context, threads.Key, threads.TS, int) ([]threads.Message, error) {
	return nil, nil
}

func (l *localSurface) Progress(context.Context, agent.Post, agent.Phase) {}

func (l *localSurface) Reply(_ context.Context, d agent.Delivery) ([]threads.Message, error) {
	l.reply = d.Text
	l.showFinal(d.Text)
	bot := provenance.Actor{Kind: provenance.KindBot, Team: d.Post.Key.Team, ID: "mnemo", Name: "mnemo"}
	return []threads.Message{{TS: l.s.tick(), Role: threads.RoleAssistant, Actor: bot, Authority: provenance.Context, Text: d.Text}}, nil
}

func (l *localSurface) Notify(context.Context, agent.Delivery) error {
	l.endStream()
	return nil
}

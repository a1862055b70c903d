package slackapp

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"

	"github.com/mnemo-bot/mnemo/agent"
	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/memory"
)

// Config is what the Slack app needs.
type Config struct {
	API          *slack.Client
	Socket       *socketmode.Client
	DB           *db.DB
	Runner       *agent.Runner
	Memory       *memory.Store
	Directory    *Directory
	Logger       zerolog.Logger
	SlashCommand string // default "/mnemo"
}

// App handles Slack events. Build it with New and start it with Run.
type App struct {
	api     *slack.Client
	sm      *socketmode.Client
	db      *db.DB
	runner  *agent.Runner
	memory  *memory.Store
	dir     *Directory
	log     zerolog.Logger
	command string

	botUserID string
	botID     string
	homes     sync.Map // team/user → the App Home's DM channel
	chanTypes sync.Map // channel → channel_type, from conversations.info
	homeQueue chan homeRequest
	wg        sync.WaitGroup

	feedbackHook func(db.Verdict) // feedback.go
}

// New returns an App.
func New(c Config) *App {
	cmd := c.SlashCommand
	if cmd == "" {
		cmd = "/mnemo"
	}
	a := &App{
		api: c.API, sm: c.Socket, db: c.DB, runner: c.Runner, memory: c.Memory, dir: c.Directory,
		log: c.Logger, command: cmd, homeQueue: make(chan homeRequest, homeQueueSize),
	}
	// Any change to someone's personal memories, from a tool, learning or
	// an admin, republishes their App Home once the app runs.
	c.Memory.OnPersonalChange(func(team, subject string) { a.queueHome(team, subject) })
	return a
}

// EventRetention is how long event ids are kept for deduplicating Slack's
// retries, which stop within minutes.
const EventRetention = 24 * time.Hour

// Run connects over Socket Mode and handles events until ctx ends, then
// waits for turns in flight.
func (a *App) Run(ctx context.Context) error {
	auth, err := a.api.AuthTestContext(ctx)
	if err != nil {
		return fmt.Errorf("SLACK_BOT_TOKEN rejected by auth.test: %w", err)
	}
	a.botUserID, a.botID = auth.UserID, auth.BotID
	a.log.Info().Str("bot_user", a.botUserID).Str("team", auth.TeamID).Msg("connected to Slack")

	// The bot's whole Slack surface, one handler per event type.
	h := socketmode.NewSocketmodeHandler(a.sm)
	on := func(f func(context.Context, *socketmode.Event)) socketmode.SocketmodeHandlerFunc {
		return func(evt *socketmode.Event, _ *socketmode.Client) { f(ctx, evt) }
	}
	h.HandleEvents(slackevents.AppMention, on(a.onAppMention))
	h.HandleEvents(slackevents.Message, on(a.onMessage))
	h.HandleEvents(slackevents.AppHomeOpened, on(a.onAppHomeOpened))
	h.HandleEvents(slackevents.AssistantThreadStarted, on(a.onAssistantThreadStarted))
	h.HandleEvents(slackevents.AssistantThreadContextChanged, on(a.onAssistantContextChanged))
	h.HandleSlashCommand(a.command, on(a.onSlashCommand))
	h.Handle(socketmode.EventTypeInteractive, on(a.onInteractive))
	h.Handle(socketmode.EventTypeErrorBadMessage, on(a.onBadMessage))
	h.Handle(socketmode.EventTypeConnected, func(*socketmode.Event, *socketmode.Client) { a.log.Info().Msg("socket mode connected") })
	h.HandleDefault(on(a.onOther))

	a.wg.Add(2)
	go func() { defer a.wg.Done(); a.pruneEvents(ctx) }()
	go func() { defer a.wg.Done(); a.publishHomes(ctx) }()
	err = h.RunEventLoopContext(ctx)
	a.wg.Wait()
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// ack acknowledges an envelope at once, before any slow work.
func (a *App) ack(evt *socketmode.Event, payload ...any) {
	if evt.Request == nil || evt.Request.EnvelopeID == "" {
		return
	}
	if err := a.sm.Ack(*evt.Request, payload...); err != nil {
		a.log.Error().Err(err).Str("envelope_id", evt.Request.EnvelopeID).Msg("ack failed")
	}
}

// async runs slow work after the ack, tracked so shutdown can wait for it.
// The work outlives ctx's cancellation: turns finish while shutting down,
// within their own deadline.
func (a *App) async(ctx context.Context, f func(ctx context.Context)) {
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		defer func() {
			if r := recover(); r != nil {
				a.log.Error().Interface("panic", r).Msg("handler panicked")
			}
		}()
		f(context.WithoutCancel(ctx))
	}()
}

// pruneEvents drops event ids past EventRetention, hourly.
func (a *App) pruneEvents(ctx context.Context) {
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		n, err := a.db.Events().Prune(ctx, time.Now().Add(-EventRetention))
		if err != nil && ctx.Err() == nil {
			a.log.Warn().Err(err).Msg("event id pruning failed")
		} else if n > 0 {
			a.log.Debug().Int64("pruned", n).Msg("old event ids pruned")
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (a *App) onOther(_ context.Context, evt *socketmode.Event) {
	a.ack(evt)
	if evt.Type == socketmode.EventTypeEventsAPI {
		if e, ok := evt.Data.(slackevents.EventsAPIEvent); ok {
			a.log.Debug().Str("type", e.InnerEvent.Type).Msg("ignored event type")
		}
	}
}

// onBadMessage handles a frame slack-go could not parse: it is still acked,
// so Slack does not retry it forever, and logged with its envelope id.
func (a *App) onBadMessage(_ context.Context, evt *socketmode.Event) {
	bad, ok := evt.Data.(*socketmode.ErrorBadMessage)
	if !ok {
		return
	}
	var env struct {
		EnvelopeID string `json:"envelope_id"`
		Type       string `json:"type"`
	}
	_ = json.Unmarshal(bad.Message, &env)
	a.log.Error().Err(bad.Cause).Str("envelope_id", env.EnvelopeID).Str("type", env.Type).Msg("malformed socket mode message rejected")
	if env.EnvelopeID != "" {
		if err := a.sm.Ack(socketmode.Request{EnvelopeID: env.EnvelopeID}); err != nil {
			a.log.Error().Err(err).Msg("ack failed")
		}
	}
}

// claimEvent records an Events API event id; false means a retry or another
// replica already took it.
func (a *App) claimEvent(ctx context.Context, evt *socketmode.Event) bool {
	e, _ := evt.Data.(slackevents.EventsAPIEvent)
	cb, _ := e.Data.(*slackevents.EventsAPICallbackEvent)
	if cb == nil || cb.EventID == "" {
		return true
	}
	fresh, err := a.db.Events().Claim(ctx, cb.EventID, evt.Request.EnvelopeID)
	if err != nil {
		a.log.Error().Err(err).Str("event_id", cb.EventID).Msg("event claim failed")
		return false
	}
	if !fresh {
		a.log.Info().Str("event_id", cb.EventID).Int("retry_attempt", evt.Request.RetryAttempt).Msg("duplicate event ignored")
	}
	return fresh
}

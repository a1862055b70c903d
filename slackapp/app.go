package slackapp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/rs/zerolog"
	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"

	"github.com/mnemo-bot/mnemo/agent"
	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/inbox"
	"github.com/mnemo-bot/mnemo/install"
	"github.com/mnemo-bot/mnemo/internal/periodic"
	"github.com/mnemo-bot/mnemo/lifecycle"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/usage"
)

// Inbox takes a post in before its envelope is acked. *inbox.Inbox is one.
type Inbox interface {
	Enqueue(ctx context.Context, p inbox.Post) (duplicate bool, err error)
}

// Observer is told what happens to envelopes, for metrics. Every method
// must return at once.
type Observer interface {
	EventReceived(kind string)
	// EventAcked: the envelope was acked d after it arrived.
	EventAcked(kind string, d time.Duration)
	// EventDeduplicated: the post was already in the inbox.
	EventDeduplicated(kind string)
	// EventRefused: the inbox could not take the post in; not acked.
	EventRefused(kind string)
	// ChannelTypeUnknown: conversations.info failed, so a channel was
	// treated as private.
	ChannelTypeUnknown()
}

type nopObserver struct{}

func (nopObserver) EventReceived(string)             {}
func (nopObserver) EventAcked(string, time.Duration) {}
func (nopObserver) EventDeduplicated(string)         {}
func (nopObserver) EventRefused(string)              {}
func (nopObserver) ChannelTypeUnknown()              {}

// Config is what the Slack app needs.
type Config struct {
	// API is the client of SLACK_BOT_TOKEN, or nil when every workspace
	// is served by its installation (Clients).
	API    *slack.Client
	Socket *socketmode.Client
	// Clients gives each team its bot; nil serves every team with API.
	Clients      *install.Clients
	DB           *db.DB
	Runner       *agent.Runner
	Memory       *memory.Store
	Directory    *Directory
	Logger       zerolog.Logger
	SlashCommand string // default "/mnemo"
	// Inbox takes posts in; it may also be set with UseInbox before Run,
	// since the inbox needs the App as its handler.
	Inbox    Inbox
	Observer Observer // optional
	// RetryBudget is how long a Web API call is retried, through rate
	// limits and transient errors, before the turn gives up for now and
	// the inbox tries it later. Default 30 seconds.
	RetryBudget time.Duration
	// AbandonedAfter is how long a turn may stay unfinished and untouched
	// before its thread is told it failed (its inbox job is gone). Default
	// 1 hour, well past the inbox's last attempt.
	AbandonedAfter time.Duration
	Now            func() time.Time
	// Retention is shown by /mnemo stats; the sweep itself is a job.
	Retention lifecycle.Retention
	// EraseDeletedUsers erases a member when Slack says their account was
	// deleted (user_change).
	EraseDeletedUsers bool
	// OrgMemories are the Enterprise Grid organisations (E…) that opted
	// into org-scope memories (MNEMO_ORG_MEMORIES): in the workspaces their
	// org-wide installation serves, workspace memories are the
	// organisation's (provenance.Place.Org).
	OrgMemories []string
	// Prices turn tokens into estimated costs in /mnemo stats.
	Prices usage.Prices
	// AdminOversight lets an admin's Inspect show recalled memories not
	// visible to them in the turn's place, audited.
	AdminOversight bool
	// SlackAPIURL is the Web API base the bots were made with
	// (SLACK_API_URL). A response URL on its scheme and host is answered
	// to, beside Slack's own (hooks.slack.com): a proxy's, a test
	// server's. Empty: only Slack's.
	SlackAPIURL string
}

// App handles Slack events. Build it with New and start it with Run.
type App struct {
	api          *slack.Client // SLACK_BOT_TOKEN's, or nil
	clients      *install.Clients
	sm           *socketmode.Client
	db           *db.DB
	runner       *agent.Runner
	memory       *memory.Store
	dir          *Directory
	log          zerolog.Logger
	command      string
	inbox        Inbox
	obs          Observer
	budget       time.Duration
	stale        time.Duration
	now          func() time.Time
	keep         lifecycle.Retention
	prices       usage.Prices
	oversight    bool
	orgMemories  map[string]bool // MNEMO_ORG_MEMORIES
	eraseDeleted bool
	slackAPIURL  string // Config.SlackAPIURL: see responseURLAllowed

	authenticated bool
	connected     atomic.Bool
	httpMode      atomic.Bool                     // Mount was called: Slack delivers over HTTP
	homes         *lru.Cache[string, string]      // team/user → the App Home's DM channel; at most maxHomes
	chanTypes     *lru.Cache[string, channelInfo] // team/channel → from conversations.info; at most maxChannels
	working       sync.Map                        // channel/ts → closed when the post's Working reaction is shown
	homeQueue     chan homeRequest
	homeQueued    sync.Map       // homeRequest → struct{}: the Homes in homeQueue (queueHome)
	loops         sync.WaitGroup // Run's own loops
	handling      handlers       // Socket Mode's handlers (fromSocket)

	// The slow work after an ack (async): tracked until Close, and
	// cancelled by halt if Close's deadline passes first.
	tasksMu     sync.Mutex
	tasksClosed bool
	tasks       sync.WaitGroup
	halt        context.Context
	haltNow     context.CancelFunc

	feedbackHook func(db.Verdict) // feedback.go
}

// New returns an App.
func New(c Config) *App {
	cmd := c.SlashCommand
	if cmd == "" {
		cmd = "/mnemo"
	}
	a := &App{
		api: c.API, clients: c.Clients, sm: c.Socket, db: c.DB, runner: c.Runner, memory: c.Memory, dir: c.Directory,
		log: c.Logger, command: cmd, homeQueue: make(chan homeRequest, homeQueueSize),
		inbox: c.Inbox, obs: c.Observer, budget: c.RetryBudget, stale: c.AbandonedAfter, now: c.Now,
		keep: c.Retention, eraseDeleted: c.EraseDeletedUsers, prices: c.Prices, oversight: c.AdminOversight,
		slackAPIURL: c.SlackAPIURL, orgMemories: map[string]bool{},
		homes: newLRU[string, string](maxHomes), chanTypes: newLRU[string, channelInfo](maxChannels),
	}
	for _, e := range c.OrgMemories {
		a.orgMemories[e] = true
	}
	if a.obs == nil {
		a.obs = nopObserver{}
	}
	if a.clients == nil {
		a.clients = &install.Clients{}
	}
	if a.api != nil && a.clients.Single == nil {
		// Its identity is learnt by Authenticate.
		a.clients.Single = &install.Bot{API: a.api}
	}
	if a.budget <= 0 {
		a.budget = 30 * time.Second
	}
	if a.stale <= 0 {
		a.stale = time.Hour
	}
	if a.now == nil {
		a.now = time.Now
	}
	a.halt, a.haltNow = context.WithCancel(context.Background())
	// Any change to someone's personal memories, from a tool, learning or
	// an admin, republishes their App Home once the app runs.
	c.Memory.OnPersonalChange(func(team, subject string) { a.queueHome(team, subject) })
	return a
}

// UseInbox sets the inbox posts go to. Call it before Run.
func (a *App) UseInbox(in Inbox) { a.inbox = in }

// Authenticate checks the bot token (SLACK_BOT_TOKEN) with auth.test and
// learns the bot's identity, which serves that token's team. Run calls it
// if it was not called before; serve calls it first, so a bad token stops
// mnemo before it says it is serving. Without a bot token (every workspace
// installed through OAuth) there is nothing to check.
func (a *App) Authenticate(ctx context.Context) error {
	a.authenticated = true
	if a.api == nil {
		a.log.Info().Msg("no bot token set; each workspace is served with its own installation")
		return nil
	}
	auth, err := a.api.AuthTestContext(ctx)
	if err != nil {
		a.authenticated = false
		return tokenError("SLACK_BOT_TOKEN", "auth.test", err)
	}
	a.clients.Single = &install.Bot{Team: auth.TeamID, API: a.api, UserID: auth.UserID, BotID: auth.BotID, Organisation: auth.EnterpriseID}
	a.log.Info().Str("bot_user", auth.UserID).Str("team", auth.TeamID).Msg("connected to Slack")
	return nil
}

// bot is team's bot: its client and identity. ErrNotInstalled (wrapped)
// when the app is not installed there, or no longer.
func (a *App) bot(ctx context.Context, team string) (install.Bot, error) {
	return a.clients.Bot(ctx, team)
}

// orgOf is the organisation whose org-scope memories a workspace served
// by b shares (provenance.Place.Org): b's organisation, when its org-wide
// installation serves the workspace and it opted in (MNEMO_ORG_MEMORIES);
// "" otherwise.
func (a *App) orgOf(b install.Bot) string {
	if b.Enterprise != "" && a.orgMemories[b.Enterprise] {
		return b.Enterprise
	}
	return ""
}

// Connected returns nil while the Socket Mode connection is up; over HTTP,
// where Slack connects to mnemo, always.
func (a *App) Connected() error {
	if !a.httpMode.Load() && !a.connected.Load() {
		return errors.New("socket mode not connected")
	}
	return nil
}

// Run connects over Socket Mode (unless Mount took Slack's deliveries over
// HTTP) and handles events until ctx ends; then it
// stops reading the socket and returns once the envelopes it was handling
// are handled. Turns are not run here but by the inbox, which drains them;
// the slow work envelopes and turns started (reactions, replies to slash
// commands) is joined by Close, once the inbox has stopped.
func (a *App) Run(ctx context.Context) error {
	if !a.authenticated {
		if err := a.Authenticate(ctx); err != nil {
			return err
		}
	}
	if a.httpMode.Load() {
		// Slack delivers over HTTP (Mount): serve's server answers it, and
		// Run owns only the app's own loops.
		a.loops.Add(1)
		go func() { defer a.loops.Done(); a.publishHomes(ctx) }()
		if a.runner != nil {
			a.loops.Add(1)
			go func() { defer a.loops.Done(); periodic.Run(ctx, sweepEvery, sweepTimeout, a.sweepOnce) }()
		}
		a.loops.Wait()
		return nil
	}
	// The bot's whole Slack surface goes through dispatch, as HTTP's does;
	// what is left here is the connection's own life.
	h := socketmode.NewSocketmodeHandler(a.sm)
	h.Handle(socketmode.EventTypeEventsAPI, a.fromSocket(ctx))
	h.Handle(socketmode.EventTypeSlashCommand, a.fromSocket(ctx))
	h.Handle(socketmode.EventTypeInteractive, a.fromSocket(ctx))
	on := func(f func(context.Context, *socketmode.Event)) socketmode.SocketmodeHandlerFunc {
		return func(evt *socketmode.Event, _ *socketmode.Client) { f(ctx, evt) }
	}
	h.Handle(socketmode.EventTypeErrorBadMessage, on(a.onBadMessage))
	h.Handle(socketmode.EventTypeConnected, a.onConnection(true, "socket mode connected"))
	h.Handle(socketmode.EventTypeHello, a.onConnection(true, ""))
	for _, t := range []socketmode.EventType{socketmode.EventTypeConnecting, socketmode.EventTypeDisconnect} {
		h.Handle(t, a.onConnection(false, ""))
	}
	// A refused app token ends Run with an error that names it; a
	// connection that fails otherwise is retried, and said so at warn.
	runCtx, refuse := context.WithCancelCause(ctx)
	defer refuse(nil)
	h.Handle(socketmode.EventTypeInvalidAuth, a.onInvalidAuth(refuse))
	h.Handle(socketmode.EventTypeConnectionError, a.onConnectionError(refuse))
	h.HandleDefault(on(a.onOther))

	a.loops.Add(1)
	go func() { defer a.loops.Done(); a.publishHomes(runCtx) }()
	if a.runner != nil {
		a.loops.Add(1)
		go func() {
			defer a.loops.Done()
			periodic.Run(runCtx, sweepEvery, sweepTimeout, a.sweepOnce)
		}()
	}
	err := h.RunEventLoopContext(runCtx)
	refuse(errLoopEnded) // ends the app's own goroutines
	a.connected.Store(false)
	a.handling.close()
	a.loops.Wait()
	if ctx.Err() != nil {
		return nil
	}
	if cause := context.Cause(runCtx); cause != errLoopEnded && !errors.Is(cause, context.Canceled) {
		return cause
	}
	if refused(err) {
		return tokenError("SLACK_APP_TOKEN", "apps.connections.open", err)
	}
	return err
}

// errLoopEnded is the cause Run gives its own context once the event loop
// has returned by itself.
var errLoopEnded = errors.New("socket mode event loop ended")

// refusedHandshakes is how many Socket Mode websocket handshakes Slack
// may refuse in a row, with no connection between them, before the app
// token is taken to be refused.
const refusedHandshakes = 3

// onInvalidAuth ends Run: Slack does not know the app token.
func (a *App) onInvalidAuth(refuse context.CancelCauseFunc) socketmode.SocketmodeHandlerFunc {
	return func(*socketmode.Event, *socketmode.Client) {
		a.connected.Store(false)
		refuse(errors.New("SLACK_APP_TOKEN rejected by apps.connections.open: invalid_auth; check that it is this app's app-level token (xapp-…) with the connections:write scope"))
	}
}

// onConnectionError logs a failed connection attempt, which slack-go
// retries, and ends Run when Slack keeps refusing the websocket: a
// handshake refused (401 or 403) is the app token, not the network.
func (a *App) onConnectionError(refuse context.CancelCauseFunc) socketmode.SocketmodeHandlerFunc {
	var handshakes atomic.Int32
	return func(evt *socketmode.Event, _ *socketmode.Client) {
		a.connected.Store(false)
		ce, ok := evt.Data.(*slack.ConnectionErrorEvent)
		if !ok || ce.ErrorObj == nil {
			return
		}
		err := ce.ErrorObj
		switch {
		case refused(err):
			refuse(tokenError("SLACK_APP_TOKEN", "apps.connections.open", err))
			return
		case errors.Is(err, websocket.ErrBadHandshake):
			if n := handshakes.Add(1); n >= refusedHandshakes {
				refuse(fmt.Errorf("the Socket Mode websocket of SLACK_APP_TOKEN was refused by Slack %d times in a row (%w); check that the app-level token is this app's, with the connections:write scope, and that Socket Mode is on", n, err))
				return
			}
		default:
			handshakes.Store(0)
		}
		a.log.Warn().Err(reachError(err)).Int("attempt", ce.Attempt).Dur("retry_in", ce.Backoff).Msg("socket mode connection failed; retrying")
	}
}

// refusedCodes are the Web API errors that mean the token is refused.
var refusedCodes = map[string]bool{
	"invalid_auth": true, "not_authed": true, "account_inactive": true, "token_revoked": true,
	"token_expired": true, "not_allowed_token_type": true, "missing_scope": true, "no_permission": true,
}

// refused reports whether err is Slack refusing the token it was sent.
func refused(err error) bool {
	var se slack.SlackErrorResponse
	return errors.As(err, &se) && refusedCodes[se.Err]
}

// tokenError says why a call made with the token in variable failed:
// Slack refused it, Slack could not be reached, or Slack failed.
func tokenError(variable, method string, err error) error {
	var se slack.SlackErrorResponse
	if errors.As(err, &se) {
		if refusedCodes[se.Err] {
			return fmt.Errorf("%s rejected by %s: %w", variable, method, err)
		}
		// Worded so that no "NAME_TOKEN: value" reads as a setting to the
		// redactor, which every error line passes through.
		return fmt.Errorf("%s for %s failed, Slack answering with an error: %w", method, variable, err)
	}
	return reachError(err)
}

// reachError says that Slack could not be reached at all, at which URL,
// when err is a transport failure (DNS, connection refused, TLS, a
// timeout); other errors are returned as they are.
func reachError(err error) error {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return err
	}
	var se slack.StatusCodeError
	if errors.As(err, &se) {
		return err
	}
	where := ue.URL
	if u, perr := url.Parse(ue.URL); perr == nil {
		u.RawQuery = "" // the URL of a call may carry a token
		where = u.String()
	}
	return fmt.Errorf("cannot reach Slack at %s: %w", where, ue.Err)
}

func (a *App) onConnection(up bool, msg string) socketmode.SocketmodeHandlerFunc {
	return func(evt *socketmode.Event, _ *socketmode.Client) {
		a.connected.Store(up)
		if msg != "" {
			a.log.Info().Msg(msg)
		} else if !up {
			a.log.Debug().Str("event", string(evt.Type)).Msg("socket mode connection down")
		}
	}
}

// asyncTimeout bounds the slow work after an ack: a slash command's answer
// (which may ask the model to review a memory), an App Home, a reaction.
const asyncTimeout = 2 * time.Minute

// async runs slow work after the ack, tracked so that Close can join it.
// The work outlives ctx's cancellation (a shutdown lets it finish), within
// asyncTimeout, and is cancelled if Close's deadline passes. After Close it
// runs at once, in the caller's goroutine, under the same bounds.
func (a *App) async(ctx context.Context, f func(ctx context.Context)) {
	run := func() {
		defer func() {
			if r := recover(); r != nil {
				a.log.Error().Interface("panic", r).Msg("handler panicked")
			}
		}()
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), asyncTimeout)
		defer cancel()
		stop := context.AfterFunc(a.halt, cancel)
		defer stop()
		f(actx)
	}
	a.tasksMu.Lock()
	if a.tasksClosed {
		a.tasksMu.Unlock()
		run()
		return
	}
	a.tasks.Add(1)
	a.tasksMu.Unlock()
	go func() {
		defer a.tasks.Done()
		run()
	}()
}

// Close waits for the work async started, until ctx ends; then it cancels
// what is left and waits for it to return, which its own calls' deadlines
// bound. Call it once Run has returned and the inbox has stopped (the
// inbox's turns start async work too). It returns an error if ctx ended
// first.
func (a *App) Close(ctx context.Context) error {
	a.tasksMu.Lock()
	a.tasksClosed = true
	a.tasksMu.Unlock()
	done := make(chan struct{})
	go func() { a.tasks.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
	}
	a.haltNow()
	<-done
	return fmt.Errorf("slack app: background calls still running at the shutdown deadline were cancelled: %w", ctx.Err())
}

// sweepEvery is how often the app looks for abandoned turns, and
// sweepTimeout bounds one look (and telling the threads it finds).
const (
	sweepEvery   = 5 * time.Minute
	sweepTimeout = time.Minute
)

// sweepOnce tells the threads of turns nothing will finish (their inbox
// jobs ended, for instance with the process that ran their last attempt)
// that the request failed. It replaces waiting forever with :eyes: on the
// post.
func (a *App) sweepOnce(ctx context.Context) {
	posts, err := a.runner.Abandoned(ctx, a.now().Add(-a.stale), 20)
	if err != nil {
		a.log.Warn().Err(err).Msg("abandoned turn sweep failed")
		return
	}
	for _, p := range posts {
		s, err := a.surfaceFor(ctx, p.Key.Team)
		if err == nil {
			err = a.runner.GiveUp(ctx, p, s, giveUpSentence)
		}
		if err != nil {
			a.log.Error().Err(err).Str("source_key", p.Key.SourceKey()).Str("ts", string(p.TS)).Msg("abandoned turn: the thread could not be told")
			continue
		}
		a.log.Warn().Str("source_key", p.Key.SourceKey()).Str("ts", string(p.TS)).Msg("abandoned turn given up (the runner logs how it ended)")
	}
}

// onOther acks the envelopes no handler takes (hello aside).
func (a *App) onOther(_ context.Context, evt *socketmode.Event) {
	if evt.Request != nil && evt.Request.EnvelopeID != "" {
		if err := a.sm.Ack(*evt.Request); err != nil {
			a.log.Error().Err(err).Str("envelope_id", evt.Request.EnvelopeID).Msg("ack failed")
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

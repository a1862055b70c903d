package slackapp

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"
)

// delivery is one thing Slack delivered, by either transport: an Events
// API event, a slash command or an interaction. Each transport adapts its
// own envelope into a delivery and hands it to dispatch; the handlers read
// only the delivery and answer Slack through its acker, so no handler is
// written twice.
type delivery struct {
	// id names the delivery in logs: the Socket Mode envelope id, or over
	// HTTP the event id (or the command's or interaction's trigger id).
	id string
	// retry and reason are Slack's retry count and reason (retry_attempt
	// and retry_reason, or X-Slack-Retry-Num and X-Slack-Retry-Reason).
	retry  int
	reason string
	// data is a slackevents.EventsAPIEvent, a slack.SlashCommand or a
	// slack.InteractionCallback.
	data any
	kind string
	// context is an Events API envelope's context_team_id and
	// context_enterprise_id (routeOf).
	context envelopeContext
	arrived time.Time
	acker   acker
}

// acker answers Slack for one delivery: Socket Mode acks the envelope over
// the socket, HTTP writes the response. payload, when not nil, is the
// response body Slack reads (a command's or a view submission's answer).
// A delivery never acked is refused: Socket Mode leaves the envelope
// unacked and HTTP answers with an error status, and Slack delivers it
// again.
type acker interface {
	ack(payload any) error
}

// ack acknowledges a delivery and observes how long it took.
func (a *App) ack(d *delivery, payload ...any) {
	if d.acker == nil {
		return
	}
	var p any
	if len(payload) > 0 {
		p = payload[0]
	}
	if err := d.acker.ack(p); err != nil {
		a.log.Error().Err(err).Str("envelope_id", d.id).Msg("ack failed")
		return
	}
	a.obs.EventAcked(d.kind, a.now().Sub(d.arrived))
}

// kindOfData names a delivery for metrics: the inner event type of an
// Events API event, otherwise the Socket Mode envelope type (slash_commands,
// interactive), whichever transport brought it.
func kindOfData(data any, fallback string) string {
	switch e := data.(type) {
	case slackevents.EventsAPIEvent:
		if e.InnerEvent.Type != "" {
			return e.InnerEvent.Type
		}
		return string(socketmode.EventTypeEventsAPI)
	case slack.SlashCommand:
		return string(socketmode.EventTypeSlashCommand)
	case slack.InteractionCallback:
		return string(socketmode.EventTypeInteractive)
	}
	return fallback
}

// dispatch hands a delivery to its handler: the bot's whole Slack surface,
// one handler per event type, for both transports. Every path acks the
// delivery, except a post the inbox could not take in.
func (a *App) dispatch(ctx context.Context, d *delivery) {
	if d.kind == "" {
		d.kind = kindOfData(d.data, "unknown")
	}
	a.obs.EventReceived(d.kind)
	if e, ok := d.data.(slackevents.EventsAPIEvent); ok {
		e.TeamID, e.EnterpriseID = routeOf(e, d.context)
		d.data = e
	}
	// Nothing of a workspace without an active installation is read or
	// written: its deliveries are acked and dropped here, for both
	// transports. The lookup is the first part of the delivery's admission
	// (a post's inbox write is the rest, in the same budget): a delivery
	// whose installation can't be read in time is refused, and Slack
	// delivers it again.
	ictx, cancel := a.admission(ctx, d)
	ok := a.installed(ictx, d)
	cancel()
	if !ok {
		return
	}
	switch data := d.data.(type) {
	case slackevents.EventsAPIEvent:
		switch slackevents.EventsAPIType(data.InnerEvent.Type) {
		case slackevents.AppMention, slackevents.Message:
			a.onPost(ctx, d)
		case slackevents.AppHomeOpened:
			a.onAppHomeOpened(ctx, d)
		case slackevents.AssistantThreadStarted:
			a.onAssistantThreadStarted(ctx, d)
		case slackevents.AssistantThreadContextChanged:
			a.onAssistantContextChanged(ctx, d)
		case slackevents.UserChange:
			a.onUserChange(ctx, d)
		case slackevents.AppUninstalled, slackevents.TokensRevoked:
			a.onUninstalled(ctx, d)
		case slackevents.TeamAccessRevoked, slackevents.TeamAccessGranted:
			a.onTeamAccess(ctx, d)
		default:
			a.ack(d)
			a.log.Debug().Str("type", data.InnerEvent.Type).Msg("ignored event type")
		}
	case slack.SlashCommand:
		if data.Command != a.command {
			a.ack(d)
			a.log.Debug().Str("command", data.Command).Msg("ignored slash command")
			return
		}
		a.onSlashCommand(ctx, d)
	case slack.InteractionCallback:
		a.onInteractive(ctx, d)
	default:
		a.ack(d)
	}
}

// socketAcker acks a Socket Mode envelope.
type socketAcker struct {
	sm  *socketmode.Client
	req socketmode.Request
}

// ackTimeout bounds a Socket Mode ack: it waits for room in slack-go's
// queue of responses, which only the live connection's sender empties, so
// an ack sent while the socket reconnects or after it closed would
// otherwise wait for ever. An ack that times out is an unacked envelope,
// which Slack delivers again.
const ackTimeout = 2 * time.Second

func (s socketAcker) ack(payload any) error {
	ctx, cancel := context.WithTimeout(context.Background(), ackTimeout)
	defer cancel()
	return s.sm.AckCtx(ctx, s.req.EnvelopeID, payload)
}

// fromSocket adapts a Socket Mode envelope into a delivery.
func (a *App) fromSocket(ctx context.Context) socketmode.SocketmodeHandlerFunc {
	return func(evt *socketmode.Event, c *socketmode.Client) {
		// slack-go runs each handler on a goroutine of its own, which
		// nothing of slack-go's waits for: Run does (handling). One that
		// starts once the loop has ended leaves its envelope unacked, and
		// Slack delivers it again.
		if !a.handling.enter() {
			return
		}
		defer a.handling.leave()
		d := &delivery{data: evt.Data, arrived: a.now(), kind: kindOfData(evt.Data, string(evt.Type))}
		if evt.Request != nil {
			d.id, d.retry, d.reason = evt.Request.EnvelopeID, evt.Request.RetryAttempt, evt.Request.RetryReason
			if _, ok := evt.Data.(slackevents.EventsAPIEvent); ok {
				// slack-go parsed this payload already; a context it could
				// not read is absent, and the authorizations route.
				_ = json.Unmarshal(evt.Request.Payload, &d.context)
			}
			if evt.Request.EnvelopeID != "" {
				d.acker = socketAcker{sm: c, req: *evt.Request}
			}
		}
		a.dispatch(ctx, d)
	}
}

// handlers tracks the Socket Mode handlers' goroutines, so that Run
// returns only once each delivery it took is handled. Once closed, it
// takes none.
type handlers struct {
	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
}

// enter reports whether a handler may run, and counts it if so.
func (h *handlers) enter() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return false
	}
	h.wg.Add(1)
	return true
}

func (h *handlers) leave() { h.wg.Done() }

// close takes no more handlers and waits for those running.
func (h *handlers) close() {
	h.mu.Lock()
	h.closed = true
	h.mu.Unlock()
	h.wg.Wait()
}

package slackapp

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"sync"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
)

// MaxRequestBody bounds the body of a request Slack sends over HTTP. Slack's
// largest payloads (a view submission, a message event with its blocks)
// stay well below it.
const MaxRequestBody = 1 << 20

// Why a request over HTTP was refused before it was read, for metrics.
const (
	RefusedTooLarge     = "too_large"
	RefusedNoSignature  = "missing_signature"
	RefusedBadSignature = "bad_signature"
	RefusedStale        = "stale_timestamp"
	RefusedReplayed     = "replayed"
)

// maxSignatures bounds the signatures of commands and interactions kept to
// refuse a replay (see verified); past it, the oldest is forgotten.
const maxSignatures = 100000

// HTTPOptions configure the HTTP transport.
type HTTPOptions struct {
	// SigningSecret is the app's signing secret (SLACK_SIGNING_SECRET):
	// every request must carry its v0 signature.
	SigningSecret string
	// Refused is told why a request was refused before it was parsed (one
	// of the Refused* reasons); optional, it must return at once.
	Refused func(reason string)
}

// Mount adds the HTTP transport's routes to mux: POST /slack/events,
// /slack/interactivity and /slack/commands. Other handlers of the same
// Slack app (the OAuth install routes) can be mounted beside them. Every
// request is verified with the signing secret before anything but its
// size-limited body is read; then it goes through the same dispatch as a
// Socket Mode envelope. Run must be running (it owns the app's loops).
func (a *App) Mount(mux *http.ServeMux, o HTTPOptions) {
	if o.Refused == nil {
		o.Refused = func(string) {}
	}
	seen := newLRU[string, struct{}](maxSignatures)
	mux.Handle("POST /slack/events", a.verified(o, nil, a.serveEvent))
	mux.Handle("POST /slack/interactivity", a.verified(o, seen, a.serveInteraction))
	mux.Handle("POST /slack/commands", a.verified(o, seen, a.serveCommand))
	a.httpMode.Store(true)
}

// verified reads a request's body, at most MaxRequestBody bytes, checks
// its signature and timestamp (slack.NewSecretsVerifier: v0 HMAC-SHA256
// over "v0:timestamp:body", compared in constant time, timestamps within
// five minutes), and only then hands the body to next.
//
// With seen, a request whose signature was seen before is refused as a
// replay: a slash command or an interaction is sent once (Slack retries
// neither), and a copy of its signed request would otherwise run it again
// for as long as its timestamp is accepted. The signature covers the
// timestamp, so one older than that window can't match a request that
// verifies, and seen needs no expiry, only its bound. Events are not
// checked here: Slack does retry them, and they are deduplicated by
// event_id. seen is this process's: a replay sent to another replica is
// not caught.
func (a *App) verified(o HTTPOptions, seen *lru.Cache[string, struct{}], next func(w http.ResponseWriter, r *http.Request, body []byte)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxRequestBody))
		if err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				o.Refused(RefusedTooLarge)
				a.log.Warn().Str("path", r.URL.Path).Int64("limit", tooLarge.Limit).Msg("slack request refused: body too large")
				http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
				return
			}
			http.Error(w, "cannot read the request body", http.StatusBadRequest)
			return
		}
		if reason := verify(r.Header, body, o.SigningSecret); reason != "" {
			o.Refused(reason)
			a.log.Warn().Str("path", r.URL.Path).Str("reason", reason).Str("remote", r.RemoteAddr).Msg("slack request refused: not signed by Slack")
			http.Error(w, "invalid request signature", http.StatusUnauthorized)
			return
		}
		if seen != nil {
			if replayed, _ := seen.ContainsOrAdd(r.Header.Get("X-Slack-Signature"), struct{}{}); replayed {
				o.Refused(RefusedReplayed)
				a.log.Warn().Str("path", r.URL.Path).Str("remote", r.RemoteAddr).Msg("slack request refused: a replay of one already taken in")
				http.Error(w, "request already taken in", http.StatusUnauthorized)
				return
			}
		}
		next(w, r, body)
	})
}

// verify says why a request is not Slack's, or "" when it is.
func verify(h http.Header, body []byte, secret string) string {
	if secret == "" || h.Get("X-Slack-Signature") == "" || h.Get("X-Slack-Request-Timestamp") == "" {
		return RefusedNoSignature
	}
	sv, err := slack.NewSecretsVerifier(h, secret)
	switch {
	case errors.Is(err, slack.ErrExpiredTimestamp):
		return RefusedStale
	case errors.Is(err, strconv.ErrSyntax), errors.Is(err, strconv.ErrRange):
		return RefusedStale // a timestamp that is no number is no time either
	case err != nil:
		return RefusedBadSignature
	}
	if _, err := sv.Write(body); err != nil {
		return RefusedBadSignature
	}
	if sv.Ensure() != nil {
		return RefusedBadSignature
	}
	return ""
}

// httpAcker answers one HTTP request: the ack is the 200 response, with
// the payload as its JSON body. A request whose delivery was never acked
// gets 503, so Slack delivers it again.
type httpAcker struct {
	w     http.ResponseWriter
	mu    sync.Mutex
	acked bool
}

func (h *httpAcker) ack(payload any) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.acked {
		return nil
	}
	h.acked = true
	if payload == nil {
		h.w.WriteHeader(http.StatusOK)
	} else {
		b, err := json.Marshal(payload)
		if err != nil {
			h.w.WriteHeader(http.StatusInternalServerError)
			return err
		}
		h.w.Header().Set("Content-Type", "application/json")
		h.w.WriteHeader(http.StatusOK)
		_, _ = h.w.Write(b)
	}
	// The ack is the response: it goes now, not when the handler returns.
	return http.NewResponseController(h.w).Flush()
}

// finish answers a request whose delivery was not acked.
func (h *httpAcker) finish() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.acked {
		h.acked = true
		http.Error(h.w, "not taken in; retry", http.StatusServiceUnavailable)
	}
}

// serve dispatches one verified request's delivery and answers it.
func (a *App) serve(w http.ResponseWriter, r *http.Request, d *delivery) {
	ack := &httpAcker{w: w}
	d.acker = ack
	defer ack.finish()
	d.retry, _ = strconv.Atoi(r.Header.Get("X-Slack-Retry-Num"))
	d.reason = r.Header.Get("X-Slack-Retry-Reason")
	a.dispatch(r.Context(), d)
}

// serveEvent answers POST /slack/events: the URL check, then event callbacks.
func (a *App) serveEvent(w http.ResponseWriter, r *http.Request, body []byte) {
	arrived := a.now()
	var outer struct {
		Type      string `json:"type"`
		Challenge string `json:"challenge"`
		EventID   string `json:"event_id"`
		envelopeContext
	}
	if err := json.Unmarshal(body, &outer); err != nil {
		a.log.Error().Err(err).Msg("malformed Events API request rejected")
		http.Error(w, "malformed event", http.StatusBadRequest)
		return
	}
	if outer.Type == string(slackevents.URLVerification) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"challenge": outer.Challenge})
		return
	}
	// The signature already proved the request is Slack's; the legacy
	// verification token adds nothing.
	e, err := slackevents.ParseEvent(body, slackevents.OptionNoVerifyToken())
	if err != nil {
		// As a Socket Mode frame slack-go can't parse, it is answered so
		// that Slack does not send it again and again.
		a.log.Error().Err(err).Str("event_id", outer.EventID).Msg("malformed Events API request rejected")
		w.WriteHeader(http.StatusOK)
		return
	}
	if e.Type != slackevents.CallbackEvent {
		a.log.Debug().Str("type", e.Type).Msg("ignored Events API request")
		w.WriteHeader(http.StatusOK)
		return
	}
	a.serve(w, r, &delivery{id: outer.EventID, data: e, arrived: arrived, context: outer.envelopeContext})
}

// serveCommand answers POST /slack/commands.
func (a *App) serveCommand(w http.ResponseWriter, r *http.Request, body []byte) {
	arrived := a.now()
	form, err := url.ParseQuery(string(body))
	var cmd slack.SlashCommand
	if err == nil {
		cmd, err = slack.SlashCommandParse(&http.Request{Method: http.MethodPost, PostForm: form, Form: form})
	}
	if err != nil {
		// Refused like a malformed event or interaction, and logged like
		// them, so that no command is dropped without a trace.
		a.log.Error().Err(err).Msg("malformed slash command rejected")
		http.Error(w, "malformed command", http.StatusBadRequest)
		return
	}
	a.serve(w, r, &delivery{id: cmd.TriggerID, data: cmd, arrived: arrived})
}

// serveInteraction answers POST /slack/interactivity.
func (a *App) serveInteraction(w http.ResponseWriter, r *http.Request, body []byte) {
	arrived := a.now()
	form, err := url.ParseQuery(string(body))
	var cb slack.InteractionCallback
	if err == nil {
		err = json.NewDecoder(bytes.NewReader([]byte(form.Get("payload")))).Decode(&cb)
	}
	if err != nil {
		a.log.Error().Err(err).Msg("malformed interaction rejected")
		http.Error(w, "malformed interaction", http.StatusBadRequest)
		return
	}
	a.serve(w, r, &delivery{id: cb.TriggerID, data: cb, arrived: arrived})
}

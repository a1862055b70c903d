package fakeslack

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// HTTP delivery: instead of the Socket Mode websocket, the fake Slack POSTs
// what it sends to the app's request URLs, as Slack's Events API does:
// event callbacks to /slack/events as JSON, slash commands to
// /slack/commands and interactions to /slack/interactivity as forms, each
// signed with the signing secret (v0 HMAC-SHA256 over "v0:timestamp:body").
// A 200 answered within HTTPAckTimeout is the ack, its body the ack's
// payload. An event not acked so (a timeout, an error status, a refused
// connection) is sent again with X-Slack-Retry-Num and X-Slack-Retry-Reason,
// after the waits Redeliver set, or Slack's own schedule: at once, after a
// minute, after five.

// HTTPAckTimeout is how long Slack waits for an HTTP answer.
const HTTPAckTimeout = 3 * time.Second

// slackHTTPRetries is Slack's retry schedule for an event over HTTP.
var slackHTTPRetries = []time.Duration{0, time.Minute, 5 * time.Minute}

// DeliverHTTP makes the server deliver events, commands and interactions
// by signed POSTs to baseURL (the app's address, without /slack/…) instead
// of the websocket.
func (s *Server) DeliverHTTP(baseURL, signingSecret string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.appURL, s.secret = baseURL, signingSecret
	s.client = &http.Client{Timeout: HTTPAckTimeout}
}

// SetHTTPAckTimeout changes how long the server waits for the app's answer
// (HTTPAckTimeout, as Slack, unless a test needs its timeouts sooner).
func (s *Server) SetHTTPAckTimeout(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.client != nil {
		s.client.Timeout = d
	}
}

// HTTPDelivery reports whether the server delivers over HTTP.
func (s *Server) HTTPDelivery() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.appURL != ""
}

// Sign returns the X-Slack-Request-Timestamp and X-Slack-Signature headers
// Slack sends with body at ts, signed with secret.
func Sign(secret string, ts time.Time, body []byte) (timestamp, signature string) {
	timestamp = strconv.FormatInt(ts.Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(mac, "v0:%s:", timestamp)
	mac.Write(body)
	return timestamp, "v0=" + hex.EncodeToString(mac.Sum(nil))
}

// PostOptions tune one request of PostToApp.
type PostOptions struct {
	// At is the request's timestamp (default now).
	At time.Time
	// Secret signs the request (default the one DeliverHTTP was given).
	Secret string
	// Unsigned sends neither signature nor timestamp.
	Unsigned bool
	// RetryNum and RetryReason set X-Slack-Retry-Num and -Reason.
	RetryNum    int
	RetryReason string
}

// Answer is the app's answer to one request.
type Answer struct {
	Status int
	Body   []byte
	Err    error // the request failed or timed out
}

// PostToApp sends one signed request to the app at path (/slack/events…)
// and returns its answer; contentType is the body's.
func (s *Server) PostToApp(path, contentType string, body []byte, o PostOptions) Answer {
	s.mu.Lock()
	base, secret, client := s.appURL, s.secret, s.client
	s.mu.Unlock()
	if o.Secret != "" {
		secret = o.Secret
	}
	if o.At.IsZero() {
		o.At = time.Now()
	}
	if client == nil {
		return Answer{Err: errors.New("fakeslack: DeliverHTTP was not called")}
	}
	req, err := http.NewRequest(http.MethodPost, base+path, bytes.NewReader(body))
	if err != nil {
		return Answer{Err: err}
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("User-Agent", "Slackbot 1.0 (+https://api.slack.com/robots)")
	if !o.Unsigned {
		ts, sig := Sign(secret, o.At, body)
		req.Header.Set("X-Slack-Request-Timestamp", ts)
		req.Header.Set("X-Slack-Signature", sig)
	}
	if o.RetryNum > 0 {
		req.Header.Set("X-Slack-Retry-Num", strconv.Itoa(o.RetryNum))
		req.Header.Set("X-Slack-Retry-Reason", o.RetryReason)
	}
	resp, err := client.Do(req)
	if err != nil {
		return Answer{Err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return Answer{Status: resp.StatusCode, Body: b, Err: err}
}

// post sends one delivery over HTTP, records when it was sent and, on a
// 200, its ack; it reports why it was not acked ("" when it was), as
// Slack's retry reasons name it.
func (s *Server) post(envelope, eventID, path, contentType string, body []byte, o PostOptions) string {
	s.mu.Lock()
	s.sentAt[envelope] = time.Now()
	if eventID != "" {
		s.delivered[eventID]++
	}
	s.mu.Unlock()
	s.cond.Broadcast()
	a := s.PostToApp(path, contentType, body, o)
	var reason string
	switch {
	case a.Err != nil:
		var ne net.Error
		if errors.As(a.Err, &ne) && ne.Timeout() {
			reason = "http_timeout"
		} else {
			reason = "connection_failed"
		}
	case a.Status != http.StatusOK:
		reason = "http_error"
	}
	s.mu.Lock()
	s.answers[envelope] = a
	if reason == "" {
		var payload json.RawMessage
		if len(bytes.TrimSpace(a.Body)) > 0 && json.Valid(a.Body) {
			payload = json.RawMessage(a.Body)
		}
		s.acks[envelope] = payload
		if _, ok := s.ackedAt[envelope]; !ok {
			s.ackedAt[envelope] = time.Now()
		}
	}
	s.mu.Unlock()
	s.cond.Broadcast()
	return reason
}

// goHTTP runs f in a goroutine the server owns: Cleanup waits for it, and
// every request in it ends within HTTPAckTimeout.
func (s *Server) goHTTP(f func()) {
	s.httpWG.Add(1)
	go func() {
		defer s.httpWG.Done()
		f()
	}()
}

// sendEventHTTP POSTs an event callback, and again while it is not acked.
func (s *Server) sendEventHTTP(event map[string]any, o EventOptions) {
	body, _ := json.Marshal(s.callback(event, o))
	s.mu.Lock()
	waits := append([]time.Duration(nil), s.redeliver...)
	s.mu.Unlock()
	if waits == nil {
		waits = slackHTTPRetries
	}
	s.goHTTP(func() {
		reason := s.post(o.EnvelopeID, o.EventID, "/slack/events", "application/json", body, PostOptions{RetryNum: o.RetryAttempt})
		for i, wait := range waits {
			if reason == "" {
				return
			}
			select {
			case <-s.closed:
				return
			case <-time.After(wait):
			}
			env := fmt.Sprintf("%s-r%d", o.EnvelopeID, i+1)
			reason = s.post(env, o.EventID, "/slack/events", "application/json", body, PostOptions{RetryNum: o.RetryAttempt + i + 1, RetryReason: reason})
		}
	})
}

// sendFormHTTP POSTs a slash command or an interaction; Slack does not
// retry those (the person sees an error instead).
func (s *Server) sendFormHTTP(envelope, path string, form url.Values) {
	s.goHTTP(func() {
		s.post(envelope, "", path, "application/x-www-form-urlencoded", []byte(form.Encode()), PostOptions{})
	})
}

// HTTPAnswer is the app's answer to an envelope delivered over HTTP, and
// whether there was one yet.
func (s *Server) HTTPAnswer(envelopeID string) (Answer, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.answers[envelopeID]
	return a, ok
}

// WaitHTTPAnswer waits for the app's answer to an envelope sent over HTTP.
func (s *Server) WaitHTTPAnswer(envelopeID string, timeout time.Duration) Answer {
	s.t.Helper()
	var a Answer
	s.waitFor(timeout, "the app's answer to "+envelopeID, func() bool {
		var ok bool
		a, ok = s.answers[envelopeID]
		return ok
	})
	return a
}

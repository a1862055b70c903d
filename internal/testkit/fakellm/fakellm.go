// Package fakellm is a local model server for tests. It speaks the real wire
// protocols of Anthropic Messages (POST /v1/messages), OpenAI Chat
// Completions (POST /v1/chat/completions) and OpenAI Embeddings
// (POST /v1/embeddings), plain and streamed (SSE), so the real SDK clients
// drive it. A Script decides each reply from the request it receives (an
// answer, a provider-shaped HTTP error, a broken stream), and every request is
// recorded with what it carried: tools, tool_choice, response_format, stream.
package fakellm

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/mnemo-bot/mnemo/internal/testkit/harness"
	"github.com/mnemo-bot/mnemo/llm"
)

// Request is a recorded model request, decoded from either wire format.
type Request struct {
	Provider  string // "anthropic" or "openai"
	Model     string
	System    string
	Messages  []llm.Message
	Tools     []llm.ToolSpec
	MaxTokens int
	APIKey    string
	// Stream is true when the client asked for server-sent events.
	Stream bool
	// ToolChoice is the request's tool_choice, or nil when it had none.
	ToolChoice *ToolChoice
	// ResponseFormat is OpenAI's response_format, or nil when it had none.
	ResponseFormat *ResponseFormat
	Raw            json.RawMessage
}

// ToolChoice is a request's tool_choice. Type is Anthropic's "auto", "any",
// "tool" or "none", or OpenAI's "auto", "none", "required" or "function";
// Name is the tool a "tool" or "function" choice forces.
type ToolChoice struct {
	Type string
	Name string
}

// ResponseFormat is an OpenAI response_format. Name, Description, Strict and
// Schema come from its json_schema member.
type ResponseFormat struct {
	Type        string
	Name        string
	Description string
	Strict      bool
	Schema      json.RawMessage
}

// ForcedTool names the tool the request forces the model to call, or "".
func (r *Request) ForcedTool() string {
	if r.ToolChoice != nil && (r.ToolChoice.Type == "tool" || r.ToolChoice.Type == "function") {
		return r.ToolChoice.Name
	}
	return ""
}

// Reply is what the script answers.
type Reply struct {
	Text      string
	ToolCalls []llm.ToolCall
	// JSON is a structured answer. On Anthropic it becomes the input of a
	// tool_use block for the forced tool (or a text block when it is not valid
	// JSON, or no tool is forced: a model that answered in prose); on OpenAI
	// it is the message content.
	JSON string

	// Status answers with that HTTP error and a provider-shaped error body
	// carrying ErrorMessage (a provider-like default when empty).
	Status       int
	ErrorMessage string
	// ErrorType overrides the error type in the body or stream error event.
	ErrorType string
	// RetryAfter and RetryAfterMs set the Retry-After and retry-after-ms
	// headers, with any Status.
	RetryAfter   string
	RetryAfterMs string
	// Body, when set, is sent verbatim as application/json with Status (200
	// when zero), for malformed answers.
	Body string

	// CutAfter drops the connection of a streamed answer after that many
	// deltas (text or tool input); ErrorAfter sends an error event instead.
	CutAfter   int
	ErrorAfter int
	// CutOff ends the answer as a model that ran out of output tokens:
	// finish_reason "length" on OpenAI, stop_reason "max_tokens" on
	// Anthropic.
	CutOff bool

	// InputTokens and OutputTokens are the usage reported; when zero they are
	// counted as words of the request and of the answer.
	InputTokens  int
	OutputTokens int
	// CachedTokens is the part of InputTokens reported as read from the
	// provider's prompt cache.
	CachedTokens int
}

// Script decides a reply. n counts requests from 0.
type Script func(n int, req *Request) Reply

// Server is a running fake model server.
type Server struct {
	URL string

	mu       sync.Mutex
	script   Script
	requests []*Request
	embeds   []EmbedRequest
	embed    func(string) []float32 // nil: Embed
	srv      *httptest.Server
}

// New starts a server that answers with script, and stops it when t ends.
func New(t harness.TB, script Script) *Server {
	s := &Server{script: script}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/messages", s.anthropic)
	mux.HandleFunc("POST /v1/chat/completions", s.openai)
	mux.HandleFunc("POST /chat/completions", s.openai)
	mux.HandleFunc("POST /v1/embeddings", s.embeddings)
	mux.HandleFunc("POST /embeddings", s.embeddings)
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL
	t.Cleanup(s.srv.Close)
	return s
}

// Requests returns every model request so far (not embedding requests).
func (s *Server) Requests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Request(nil), s.requests...)
}

func (s *Server) record(r *Request) (int, Reply) {
	s.mu.Lock()
	n := len(s.requests)
	s.requests = append(s.requests, r)
	script := s.script
	s.mu.Unlock()
	if script == nil {
		return n, Reply{Text: "ok"}
	}
	return n, script(n, r)
}

// Queue is a Script that answers with replies in order, then with "done".
func Queue(replies ...Reply) Script {
	return func(n int, _ *Request) Reply {
		if n < len(replies) {
			return replies[n]
		}
		return Reply{Text: "done"}
	}
}

// LastToolResults returns the tool results of the request's last message.
func (r *Request) LastToolResults() []llm.ToolResult {
	if len(r.Messages) == 0 {
		return nil
	}
	return r.Messages[len(r.Messages)-1].ToolResults
}

// Transcript joins every text the request carries (system, messages, tool
// results), for assertions about what the model was shown.
func (r *Request) Transcript() string {
	var b strings.Builder
	b.WriteString(r.System)
	for _, m := range r.Messages {
		b.WriteString("\n[" + string(m.Role) + "] " + m.Text)
		for _, tr := range m.ToolResults {
			b.WriteString("\n[tool_result] " + tr.Content)
		}
	}
	return b.String()
}

// usage is the token count a reply reports.
func usage(req *Request, reply Reply) (in, out int) {
	in, out = reply.InputTokens, reply.OutputTokens
	if in == 0 {
		in = max(1, len(strings.Fields(req.Transcript())))
	}
	if out == 0 {
		out = len(strings.Fields(reply.Text)) + len(reply.JSON)/4
		for _, c := range reply.ToolCalls {
			out += 1 + len(c.Input)/4
		}
		out = max(1, out)
	}
	return in, out
}

// fail writes the scripted failure, if the reply is one, and reports whether
// it did.
func fail(w http.ResponseWriter, reply Reply, body func(status int, reply Reply) any) bool {
	if reply.RetryAfter != "" {
		w.Header().Set("Retry-After", reply.RetryAfter)
	}
	if reply.RetryAfterMs != "" {
		w.Header().Set("Retry-After-Ms", reply.RetryAfterMs)
	}
	if reply.Body != "" {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(orDefault(reply.Status, http.StatusOK))
		_, _ = w.Write([]byte(reply.Body))
		return true
	}
	if reply.Status == 0 {
		return false
	}
	writeJSON(w, reply.Status, body(reply.Status, reply))
	return true
}

func orDefault(v, fallback int) int {
	if v == 0 {
		return fallback
	}
	return v
}

// errorMessage is the provider-like message for a status, unless the reply
// names one.
func errorMessage(provider string, status int, reply Reply) string {
	if reply.ErrorMessage != "" {
		return reply.ErrorMessage
	}
	switch status {
	case http.StatusUnauthorized:
		if provider == "anthropic" {
			return "invalid x-api-key"
		}
		return "Incorrect API key provided."
	case http.StatusTooManyRequests:
		return "Number of request tokens has exceeded your per-minute rate limit"
	case 529:
		return "Overloaded"
	case http.StatusInternalServerError:
		return "Internal server error"
	}
	return "scripted failure"
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func readBody(r *http.Request, v any) (json.RawMessage, error) {
	var raw json.RawMessage
	if err := json.NewDecoder(r.Body).Decode(&raw); err != nil {
		return nil, fmt.Errorf("decode request: %w", err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return nil, fmt.Errorf("decode request: %w", err)
	}
	return raw, nil
}

// textOf reads a string, or the text of an array of text blocks.
func textOf(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []anthropicBlock
	if json.Unmarshal(raw, &blocks) == nil {
		var b strings.Builder
		for _, bl := range blocks {
			b.WriteString(bl.Text)
		}
		return b.String()
	}
	return string(raw)
}

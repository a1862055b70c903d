// Package fakellm is a local model server for tests. It speaks the real wire
// protocols of Anthropic Messages (POST /v1/messages) and OpenAI Chat
// Completions (POST /v1/chat/completions), so the real SDK clients drive it.
// A Script decides each reply from the request it receives, and every request
// is recorded.
package fakellm

import (
	"encoding/json"
	"fmt"
	"github.com/mnemo-bot/mnemo/internal/tb"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/mnemo-bot/mnemo/llm"
)

// Request is a recorded model request, decoded from either wire format.
type Request struct {
	Provider string // "anthropic" or "openai"
	Model    string
	System   string
	Messages []llm.Message
	Tools    []llm.ToolSpec
	APIKey   string
	Raw      json.RawMessage
}

// Reply is what the script answers. A non-zero Status makes the server
// answer with that HTTP error instead.
type Reply struct {
	Text      string
	ToolCalls []llm.ToolCall
	Status    int
}

// Script decides a reply. n counts requests from 0.
type Script func(n int, req *Request) Reply

// Server is a running fake model server.
type Server struct {
	URL string

	mu       sync.Mutex
	script   Script
	requests []*Request
	srv      *httptest.Server
}

// New starts a server that answers with script, and stops it when t ends.
func New(t tb.TB, script Script) *Server {
	s := &Server{script: script}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/messages", s.anthropic)
	mux.HandleFunc("POST /v1/chat/completions", s.openai)
	mux.HandleFunc("POST /chat/completions", s.openai)
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL
	t.Cleanup(s.srv.Close)
	return s
}

// Requests returns every request so far.
func (s *Server) Requests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Request(nil), s.requests...)
}

func (s *Server) record(r *Request) Reply {
	s.mu.Lock()
	n := len(s.requests)
	s.requests = append(s.requests, r)
	script := s.script
	s.mu.Unlock()
	if script == nil {
		return Reply{Text: "ok"}
	}
	return script(n, r)
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

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// --- Anthropic Messages ---

type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
}

func (s *Server) anthropic(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Model    string          `json:"model"`
		System   json.RawMessage `json:"system"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"input_schema"`
		} `json:"tools"`
	}
	raw, err := readBody(r, &body)
	if err != nil {
		writeJSON(w, 400, map[string]any{"type": "error", "error": map[string]string{"type": "invalid_request_error", "message": err.Error()}})
		return
	}
	req := &Request{Provider: "anthropic", Model: body.Model, Raw: raw, APIKey: r.Header.Get("X-Api-Key")}
	req.System = textOf(body.System)
	for _, m := range body.Messages {
		msg := llm.Message{Role: llm.Role(m.Role)}
		var blocks []anthropicBlock
		if err := json.Unmarshal(m.Content, &blocks); err != nil {
			msg.Text = textOf(m.Content)
		}
		for _, b := range blocks {
			switch b.Type {
			case "text":
				msg.Text += b.Text
			case "tool_use":
				msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: b.ID, Name: b.Name, Input: b.Input})
			case "tool_result":
				msg.ToolResults = append(msg.ToolResults, llm.ToolResult{CallID: b.ToolUseID, Content: textOf(b.Content), IsError: b.IsError})
			}
		}
		req.Messages = append(req.Messages, msg)
	}
	for _, t := range body.Tools {
		req.Tools = append(req.Tools, llm.ToolSpec{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema})
	}
	reply := s.record(req)
	if reply.Status != 0 {
		writeJSON(w, reply.Status, map[string]any{"type": "error", "error": map[string]string{"type": "api_error", "message": "scripted failure"}})
		return
	}
	content := []anthropicBlock{}
	if reply.Text != "" {
		content = append(content, anthropicBlock{Type: "text", Text: reply.Text})
	}
	stop := "end_turn"
	for i, c := range reply.ToolCalls {
		id := c.ID
		if id == "" {
			id = fmt.Sprintf("toolu_%d_%d", len(s.Requests()), i)
		}
		input := c.Input
		if len(input) == 0 {
			input = json.RawMessage(`{}`)
		}
		content = append(content, anthropicBlock{Type: "tool_use", ID: id, Name: c.Name, Input: input})
		stop = "tool_use"
	}
	writeJSON(w, 200, map[string]any{
		"id": "msg_fake", "type": "message", "role": "assistant", "model": body.Model,
		"content": content, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]int{"input_tokens": 1, "output_tokens": 1},
	})
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

// --- OpenAI Chat Completions ---

type openaiToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

func (s *Server) openai(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Model    string `json:"model"`
		Messages []struct {
			Role       string           `json:"role"`
			Content    json.RawMessage  `json:"content"`
			ToolCalls  []openaiToolCall `json:"tool_calls"`
			ToolCallID string           `json:"tool_call_id"`
		} `json:"messages"`
		Tools []struct {
			Type     string `json:"type"`
			Function struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
	}
	raw, err := readBody(r, &body)
	if err != nil {
		writeJSON(w, 400, map[string]any{"error": map[string]string{"message": err.Error(), "type": "invalid_request_error"}})
		return
	}
	req := &Request{Provider: "openai", Model: body.Model, Raw: raw, APIKey: strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")}
	for _, m := range body.Messages {
		switch m.Role {
		case "system", "developer":
			req.System += textOf(m.Content)
		case "tool":
			// Consecutive tool messages answer one assistant message.
			last := len(req.Messages) - 1
			res := llm.ToolResult{CallID: m.ToolCallID, Content: textOf(m.Content)}
			if last >= 0 && req.Messages[last].Role == llm.RoleUser && req.Messages[last].Text == "" {
				req.Messages[last].ToolResults = append(req.Messages[last].ToolResults, res)
			} else {
				req.Messages = append(req.Messages, llm.Message{Role: llm.RoleUser, ToolResults: []llm.ToolResult{res}})
			}
		case "assistant":
			msg := llm.Message{Role: llm.RoleAssistant, Text: textOf(m.Content)}
			if string(m.Content) == "null" {
				msg.Text = ""
			}
			for _, c := range m.ToolCalls {
				msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: c.ID, Name: c.Function.Name, Input: json.RawMessage(c.Function.Arguments)})
			}
			req.Messages = append(req.Messages, msg)
		default:
			req.Messages = append(req.Messages, llm.Message{Role: llm.RoleUser, Text: textOf(m.Content)})
		}
	}
	for _, t := range body.Tools {
		req.Tools = append(req.Tools, llm.ToolSpec{Name: t.Function.Name, Description: t.Function.Description, InputSchema: t.Function.Parameters})
	}
	reply := s.record(req)
	if reply.Status != 0 {
		writeJSON(w, reply.Status, map[string]any{"error": map[string]string{"message": "scripted failure", "type": "server_error"}})
		return
	}
	msg := map[string]any{"role": "assistant", "content": nil}
	if reply.Text != "" {
		msg["content"] = reply.Text
	}
	finish := "stop"
	if len(reply.ToolCalls) > 0 {
		var calls []openaiToolCall
		for i, c := range reply.ToolCalls {
			tc := openaiToolCall{ID: c.ID, Type: "function"}
			if tc.ID == "" {
				tc.ID = fmt.Sprintf("call_%d_%d", len(s.Requests()), i)
			}
			tc.Function.Name = c.Name
			tc.Function.Arguments = string(c.Input)
			if tc.Function.Arguments == "" {
				tc.Function.Arguments = "{}"
			}
			calls = append(calls, tc)
		}
		msg["tool_calls"] = calls
		finish = "tool_calls"
	}
	writeJSON(w, 200, map[string]any{
		"id": "chatcmpl-fake", "object": "chat.completion", "created": 1700000000, "model": body.Model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish, "logprobs": nil}},
		"usage":   map[string]int{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
	})
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

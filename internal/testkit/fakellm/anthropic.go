package fakellm

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/mnemo-bot/mnemo/llm"
)

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
		Model     string          `json:"model"`
		MaxTokens int             `json:"max_tokens"`
		Stream    bool            `json:"stream"`
		System    json.RawMessage `json:"system"`
		Messages  []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"input_schema"`
		} `json:"tools"`
		ToolChoice *struct {
			Type string `json:"type"`
			Name string `json:"name"`
		} `json:"tool_choice"`
	}
	raw, err := readBody(r, &body)
	if err != nil {
		writeJSON(w, 400, anthropicError(400, Reply{ErrorMessage: err.Error()}))
		return
	}
	req := &Request{
		Provider: "anthropic", Model: body.Model, MaxTokens: body.MaxTokens, Stream: body.Stream,
		Raw: raw, APIKey: r.Header.Get("X-Api-Key"),
	}
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
	if body.ToolChoice != nil {
		req.ToolChoice = &ToolChoice{Type: body.ToolChoice.Type, Name: body.ToolChoice.Name}
	}
	n, reply := s.record(req)
	if fail(w, reply, anthropicError) {
		return
	}
	content, stop := anthropicContent(n, req, reply)
	if reply.CutOff {
		stop = "max_tokens"
	}
	in, out := usage(req, reply)
	if req.Stream {
		anthropicStream(w, body.Model, content, stop, in, out, reply)
		return
	}
	writeJSON(w, 200, map[string]any{
		"id": "msg_fake", "type": "message", "role": "assistant", "model": body.Model,
		"content": content, "stop_reason": stop, "stop_sequence": nil,
		"usage": anthropicUsage(in, out, reply.CachedTokens),
	})
}

// anthropicContent renders a reply as content blocks: text first, then the
// forced tool's answer, then tool calls.
func anthropicContent(n int, req *Request, reply Reply) ([]anthropicBlock, string) {
	text := reply.Text
	var blocks []anthropicBlock
	stop := "end_turn"
	if reply.JSON != "" {
		if tool := req.ForcedTool(); tool != "" && json.Valid([]byte(reply.JSON)) {
			blocks = append(blocks, anthropicBlock{Type: "tool_use", ID: fmt.Sprintf("toolu_%d_answer", n), Name: tool, Input: json.RawMessage(reply.JSON)})
			stop = "tool_use"
		} else {
			text += reply.JSON
		}
	}
	for i, c := range reply.ToolCalls {
		id := c.ID
		if id == "" {
			id = fmt.Sprintf("toolu_%d_%d", n, i)
		}
		input := c.Input
		if len(input) == 0 {
			input = json.RawMessage(`{}`)
		}
		blocks = append(blocks, anthropicBlock{Type: "tool_use", ID: id, Name: c.Name, Input: input})
		stop = "tool_use"
	}
	if text != "" {
		blocks = append([]anthropicBlock{{Type: "text", Text: text}}, blocks...)
	}
	if blocks == nil {
		blocks = []anthropicBlock{}
	}
	return blocks, stop
}

// anthropicStream sends content as Messages streaming events.
func anthropicStream(w http.ResponseWriter, model string, content []anthropicBlock, stop string, in, out int, reply Reply) {
	s := newSSE(w, reply, func(s *sse) {
		s.event("error", anthropicError(529, Reply{ErrorMessage: reply.ErrorMessage, ErrorType: reply.ErrorType}))
	})
	s.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_fake", "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": anthropicUsage(in, 1, reply.CachedTokens),
	}})
	s.event("ping", map[string]string{"type": "ping"})
	for i, b := range content {
		// A block starts empty (text "", input {}) and fills through deltas.
		start := map[string]any{"type": b.Type}
		if b.Type == "text" {
			start["text"] = ""
		} else {
			start["id"], start["name"], start["input"] = b.ID, b.Name, map[string]any{}
		}
		s.event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": start})
		if b.Type == "text" {
			for _, d := range splitText(b.Text) {
				if !s.delta("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]string{"type": "text_delta", "text": d}}) {
					return
				}
			}
		} else {
			for _, d := range splitJSON(string(b.Input)) {
				if !s.delta("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]string{"type": "input_json_delta", "partial_json": d}}) {
					return
				}
			}
		}
		s.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	s.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]int{"output_tokens": out},
	})
	s.event("message_stop", map[string]string{"type": "message_stop"})
}

// anthropicUsage is a usage object: Anthropic counts tokens read from the
// prompt cache apart from input_tokens.
func anthropicUsage(in, out, cached int) map[string]int {
	cached = min(cached, in)
	return map[string]int{"input_tokens": in - cached, "output_tokens": out, "cache_read_input_tokens": cached, "cache_creation_input_tokens": 0}
}

// anthropicError is Anthropic's error body for a status.
func anthropicError(status int, reply Reply) any {
	typ := reply.ErrorType
	if typ == "" {
		switch status {
		case 400:
			typ = "invalid_request_error"
		case 401:
			typ = "authentication_error"
		case 403:
			typ = "permission_error"
		case 404:
			typ = "not_found_error"
		case 413:
			typ = "request_too_large"
		case 429:
			typ = "rate_limit_error"
		case 529:
			typ = "overloaded_error"
		default:
			typ = "api_error"
		}
	}
	return map[string]any{"type": "error", "error": map[string]string{"type": typ, "message": errorMessage("anthropic", status, reply)}}
}

package fakellm

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/mnemo-bot/mnemo/llm"
)

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
		Model               string `json:"model"`
		MaxCompletionTokens int    `json:"max_completion_tokens"`
		MaxTokens           int    `json:"max_tokens"`
		Stream              bool   `json:"stream"`
		StreamOptions       struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
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
		ToolChoice     json.RawMessage `json:"tool_choice"`
		ResponseFormat *struct {
			Type       string `json:"type"`
			JSONSchema struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Strict      bool            `json:"strict"`
				Schema      json.RawMessage `json:"schema"`
			} `json:"json_schema"`
		} `json:"response_format"`
	}
	raw, err := readBody(r, &body)
	if err != nil {
		writeJSON(w, 400, openaiError(400, Reply{ErrorMessage: err.Error()}))
		return
	}
	req := &Request{
		Provider: "openai", Model: body.Model, MaxTokens: max(body.MaxCompletionTokens, body.MaxTokens), Stream: body.Stream,
		Raw: raw, APIKey: strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "),
	}
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
	req.ToolChoice = openaiToolChoice(body.ToolChoice)
	if rf := body.ResponseFormat; rf != nil {
		req.ResponseFormat = &ResponseFormat{
			Type: rf.Type, Name: rf.JSONSchema.Name, Description: rf.JSONSchema.Description,
			Strict: rf.JSONSchema.Strict, Schema: rf.JSONSchema.Schema,
		}
	}
	n, reply := s.record(req)
	if fail(w, reply, openaiError) {
		return
	}
	text := reply.Text + reply.JSON
	var calls []openaiToolCall
	for i, c := range reply.ToolCalls {
		tc := openaiToolCall{ID: c.ID, Type: "function"}
		if tc.ID == "" {
			tc.ID = fmt.Sprintf("call_%d_%d", n, i)
		}
		tc.Function.Name = c.Name
		tc.Function.Arguments = string(c.Input)
		if tc.Function.Arguments == "" {
			tc.Function.Arguments = "{}"
		}
		calls = append(calls, tc)
	}
	finish := "stop"
	if len(calls) > 0 {
		finish = "tool_calls"
	}
	if reply.CutOff {
		finish = "length"
	}
	in, out := usage(req, reply)
	if req.Stream {
		openaiStream(w, body.Model, text, calls, finish, body.StreamOptions.IncludeUsage, in, out, reply)
		return
	}
	msg := map[string]any{"role": "assistant", "content": nil, "refusal": nil}
	if text != "" {
		msg["content"] = text
	}
	if len(calls) > 0 {
		msg["tool_calls"] = calls
	}
	writeJSON(w, 200, map[string]any{
		"id": "chatcmpl-fake", "object": "chat.completion", "created": 1700000000, "model": body.Model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish, "logprobs": nil}},
		"usage":   openaiUsage(in, out, reply.CachedTokens),
	})
}

// openaiUsage is a usage object; cached tokens are part of prompt_tokens.
func openaiUsage(in, out, cached int) map[string]any {
	return map[string]any{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out,
		"prompt_tokens_details": map[string]int{"cached_tokens": min(cached, in)}}
}

// openaiToolChoice reads tool_choice: a string ("auto", "none", "required")
// or {"type":"function","function":{"name":...}}.
func openaiToolChoice(raw json.RawMessage) *ToolChoice {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var mode string
	if json.Unmarshal(raw, &mode) == nil {
		return &ToolChoice{Type: mode}
	}
	var obj struct {
		Type     string `json:"type"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if json.Unmarshal(raw, &obj) != nil {
		return nil
	}
	return &ToolChoice{Type: obj.Type, Name: obj.Function.Name}
}

// openaiStream sends an answer as chat.completion.chunk events.
func openaiStream(w http.ResponseWriter, model, text string, calls []openaiToolCall, finish string, includeUsage bool, in, out int, reply Reply) {
	s := newSSE(w, reply, func(s *sse) {
		typ := reply.ErrorType
		if typ == "" {
			typ = "server_error"
		}
		s.event("", openaiError(500, Reply{ErrorMessage: reply.ErrorMessage, ErrorType: typ}))
	})
	chunk := func(delta map[string]any, finish any) map[string]any {
		return map[string]any{
			"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": nil}},
		}
	}
	s.event("", chunk(map[string]any{"role": "assistant", "content": ""}, nil))
	for _, d := range splitText(text) {
		if !s.delta("", chunk(map[string]any{"content": d}, nil)) {
			return
		}
	}
	for i, c := range calls {
		head := map[string]any{"index": i, "id": c.ID, "type": "function", "function": map[string]string{"name": c.Function.Name, "arguments": ""}}
		s.event("", chunk(map[string]any{"tool_calls": []any{head}}, nil))
		for _, d := range splitJSON(c.Function.Arguments) {
			part := map[string]any{"index": i, "function": map[string]string{"arguments": d}}
			if !s.delta("", chunk(map[string]any{"tool_calls": []any{part}}, nil)) {
				return
			}
		}
	}
	s.event("", chunk(map[string]any{}, finish))
	if includeUsage {
		s.event("", map[string]any{
			"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000, "model": model,
			"choices": []any{}, "usage": openaiUsage(in, out, reply.CachedTokens),
		})
	}
	s.raw("data: [DONE]\n\n")
}

// openaiError is OpenAI's error body for a status.
func openaiError(status int, reply Reply) any {
	typ, code := reply.ErrorType, any(nil)
	if typ == "" {
		switch status {
		case 401:
			typ, code = "invalid_request_error", "invalid_api_key"
		case 403:
			typ, code = "invalid_request_error", "unsupported_country_region_territory"
		case 404:
			typ, code = "invalid_request_error", "model_not_found"
		case 429:
			typ, code = "requests", "rate_limit_exceeded"
		default:
			if status >= 500 {
				typ = "server_error"
			} else {
				typ = "invalid_request_error"
			}
		}
	}
	return map[string]any{"error": map[string]any{"message": errorMessage("openai", status, reply), "type": typ, "param": nil, "code": code}}
}

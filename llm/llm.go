package llm

import (
	"context"
	"encoding/json"
	"errors"
)

// Role is who a message is from.
type Role string

const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Message is one turn of a conversation. A user message may carry tool
// results; an assistant message may carry tool calls.
type Message struct {
	Role        Role
	Text        string
	ToolCalls   []ToolCall
	ToolResults []ToolResult
}

// ToolCall is the model asking to run a tool.
type ToolCall struct {
	ID    string
	Name  string
	Input json.RawMessage
}

// ToolResult answers one ToolCall.
type ToolResult struct {
	CallID  string
	Content string
	IsError bool
}

// ToolSpec is a tool as the model sees it. InputSchema is a JSON Schema
// object; providers translate it into their own schema types.
type ToolSpec struct {
	Name        string
	Description string
	InputSchema json.RawMessage
}

// Request is one call to a model.
type Request struct {
	System    string
	Messages  []Message
	Tools     []ToolSpec
	MaxTokens int
}

// Response is the model's answer: text, tool calls, or both.
type Response struct {
	Text       string
	ToolCalls  []ToolCall
	StopReason string
}

// Model is a chat model.
type Model interface {
	Complete(ctx context.Context, req Request) (*Response, error)
}

// ErrBadSchema is returned when a tool's input schema is not a JSON object schema.
var ErrBadSchema = errors.New("tool input schema must be a JSON Schema object with type \"object\"")

func schemaObject(raw json.RawMessage) (map[string]any, error) {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, errors.Join(ErrBadSchema, err)
	}
	if t, _ := m["type"].(string); t != "object" {
		return nil, ErrBadSchema
	}
	return m, nil
}

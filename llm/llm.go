package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
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

// Schema asks for a structured answer: a JSON value matching JSON, a JSON
// Schema object. Name must be 1 to 64 letters, digits, '_' or '-', which both
// providers accept as a tool or response-format name.
type Schema struct {
	Name        string
	Description string
	JSON        json.RawMessage
}

// Request is one call to a model. With Schema set, the answer comes back as
// JSON in Response.Text (OpenAI through response_format json_schema, Anthropic
// through a forced tool call); Tools must then be empty, since Anthropic's
// forced call leaves no room for other tools. Use CompleteJSON to validate it.
type Request struct {
	System    string
	Messages  []Message
	Tools     []ToolSpec
	MaxTokens int
	Schema    *Schema
}

// Usage counts the tokens one call consumed, as the provider reported them
// (streamed or not). InputTokens includes tokens served from a prompt cache,
// so it is comparable across providers; CachedInputTokens is that part.
type Usage struct {
	InputTokens       int
	OutputTokens      int
	CachedInputTokens int
}

// Response is the model's answer: text, tool calls, or both.
type Response struct {
	Text       string
	ToolCalls  []ToolCall
	StopReason string
	Usage      Usage

	// answers counts the calls of a Schema's forced tool (Anthropic, and
	// OpenAI's tool mode): more than one is no answer, whatever Text says.
	answers int
	// refusal is the model's explanation for declining to answer (OpenAI's
	// message.refusal). It is model text about the request, so it stays out
	// of Text, traces and error messages; see RefusalError.
	refusal string
}

// Described is a Model that says which provider and model it calls, for
// accounting and traces (GenAI's gen_ai.provider.name and
// gen_ai.request.model).
type Described interface {
	Provider() string
	ModelName() string
}

// Describe returns m's provider and model, or "unknown" for a Model that
// does not say.
func Describe(m Model) (provider, model string) {
	if d, ok := m.(Described); ok {
		return d.Provider(), d.ModelName()
	}
	return "unknown", "unknown"
}

// Model is a chat model.
type Model interface {
	Complete(ctx context.Context, req Request) (*Response, error)
}

// Streamer is a Model that can hand over its text as it is generated.
// onText receives text deltas in order (with a Schema, the JSON answer's
// deltas); joined, they are Response.Text, and the returned Response is the
// same as Complete would return. A stream that fails after some deltas returns an
// error, and is not retried, since the deltas cannot be taken back.
type Streamer interface {
	Stream(ctx context.Context, req Request, onText func(delta string)) (*Response, error)
}

// Embedder turns texts into vectors, one per text, in order.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// ErrBadSchema is returned when a tool's input schema or a Request.Schema is
// not a JSON Schema object with type "object", or its name is not usable.
var ErrBadSchema = errors.New("schema must be a JSON Schema object with type \"object\"")

// ErrSchemaWithTools is returned for a Request that sets both Schema and Tools.
var ErrSchemaWithTools = errors.New("a request with a Schema cannot also offer Tools")

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

var schemaName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

func checkSchemaName(name string) error {
	if !schemaName.MatchString(name) {
		return fmt.Errorf("%w: name %q must be 1 to 64 letters, digits, '_' or '-'", ErrBadSchema, name)
	}
	return nil
}

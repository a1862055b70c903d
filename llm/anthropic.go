package llm

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

// Anthropic talks to the Anthropic Messages API.
type Anthropic struct {
	client anthropic.Client
	model  string
	cfg    config
}

var (
	_ Model    = (*Anthropic)(nil)
	_ Streamer = (*Anthropic)(nil)
)

// anthropicURL is Anthropic's API, where a model without a base URL goes.
const anthropicURL = "https://api.anthropic.com/"

// NewAnthropic returns a Messages API model. baseURL may be empty.
func NewAnthropic(apiKey, baseURL, model string, opts ...Option) *Anthropic {
	// The SDK's retries are off: withRetry retries, so that a Retry-After
	// longer than the caller's deadline ends the call at once instead of
	// being slept through.
	// The base URL is always given: the SDK would otherwise take
	// ANTHROPIC_BASE_URL from the environment, and send the model's key to
	// a host mnemo's settings never named.
	ro := []option.RequestOption{option.WithAPIKey(apiKey), option.WithMaxRetries(0), option.WithHTTPClient(httpClient),
		option.WithBaseURL(cmp.Or(baseURL, anthropicURL))}
	return &Anthropic{client: anthropic.NewClient(ro...), model: model, cfg: newConfig(opts)}
}

// Provider is "anthropic".
func (a *Anthropic) Provider() string { return "anthropic" }

// ModelName is the model requested.
func (a *Anthropic) ModelName() string { return a.model }

// Complete sends one Messages request.
func (a *Anthropic) Complete(ctx context.Context, req Request) (*Response, error) {
	params, err := a.params(req)
	if err != nil {
		return nil, fmt.Errorf("anthropic: %w", err)
	}
	return withRetry(ctx, a.cfg, "anthropic", a.classify, func(ctx context.Context) (*Response, bool, error) {
		msg, err := a.client.Messages.New(ctx, params)
		if err != nil {
			return nil, false, err
		}
		return anthropicResponse(msg, req.Schema), false, nil
	})
}

// Stream sends one streaming Messages request and accumulates the events
// into the same Response Complete returns.
func (a *Anthropic) Stream(ctx context.Context, req Request, onText func(delta string)) (*Response, error) {
	params, err := a.params(req)
	if err != nil {
		return nil, fmt.Errorf("anthropic: %w", err)
	}
	return withRetry(ctx, a.cfg, "anthropic", a.classify, func(ctx context.Context) (*Response, bool, error) {
		stream := a.client.Messages.NewStreaming(ctx, params)
		defer stream.Close()
		var msg anthropic.Message
		committed, stopped := false, false
		emit := func(delta string) {
			if delta == "" {
				return
			}
			committed = true
			if onText != nil {
				onText(delta)
			}
		}
		answerBlock := int64(-1) // the forced tool call's block, whose input is the answer
		for stream.Next() {
			ev := stream.Current()
			if err := msg.Accumulate(ev); err != nil {
				return nil, committed, &Error{Provider: "anthropic", Class: ClassMalformed, Message: err.Error(), err: err}
			}
			switch ev.Type {
			case "content_block_start":
				if req.Schema != nil && ev.ContentBlock.Type == "tool_use" && ev.ContentBlock.Name == req.Schema.Name {
					answerBlock = ev.Index
				}
			case "content_block_delta":
				switch {
				case ev.Delta.Type == "text_delta" && answerBlock < 0:
					emit(ev.Delta.Text)
				case ev.Delta.Type == "input_json_delta" && ev.Index == answerBlock:
					emit(ev.Delta.PartialJSON)
				}
			case "message_stop":
				stopped = true
			}
		}
		if err := stream.Err(); err != nil {
			return nil, committed, err
		}
		if !stopped {
			return nil, committed, &Error{Provider: "anthropic", Class: ClassNetwork, Message: "the stream ended before the message was complete"}
		}
		return anthropicResponse(&msg, req.Schema), false, nil
	})
}

func (a *Anthropic) params(req Request) (anthropic.MessageNewParams, error) {
	params := anthropic.MessageNewParams{
		Model:     anthropic.Model(a.model),
		MaxTokens: int64(max(req.MaxTokens, 1024)),
	}
	if req.System != "" {
		params.System = []anthropic.TextBlockParam{{Text: req.System}}
	}
	if req.Schema != nil {
		if len(req.Tools) > 0 {
			return params, ErrSchemaWithTools
		}
		if err := checkSchemaName(req.Schema.Name); err != nil {
			return params, err
		}
		tool, err := anthropicTool(req.Schema.Name, req.Schema.Description, req.Schema.JSON)
		if err != nil {
			return params, fmt.Errorf("schema %s: %w", req.Schema.Name, err)
		}
		params.Tools = []anthropic.ToolUnionParam{{OfTool: &tool}}
		// Only disable_parallel_tool_use guarantees exactly one tool use:
		// without it the model may call the answer tool more than once.
		params.ToolChoice = anthropic.ToolChoiceUnionParam{OfTool: &anthropic.ToolChoiceToolParam{
			Name: req.Schema.Name, DisableParallelToolUse: anthropic.Bool(true),
		}}
	}
	for _, t := range req.Tools {
		tool, err := anthropicTool(t.Name, t.Description, t.InputSchema)
		if err != nil {
			return params, fmt.Errorf("tool %s: %w", t.Name, err)
		}
		params.Tools = append(params.Tools, anthropic.ToolUnionParam{OfTool: &tool})
	}
	for _, m := range req.Messages {
		var blocks []anthropic.ContentBlockParamUnion
		for _, r := range m.ToolResults {
			blocks = append(blocks, anthropic.NewToolResultBlock(r.CallID, r.Content, r.IsError))
		}
		if m.Text != "" {
			blocks = append(blocks, anthropic.NewTextBlock(m.Text))
		}
		for _, c := range m.ToolCalls {
			var input any = map[string]any{}
			if len(c.Input) > 0 {
				input = json.RawMessage(c.Input)
			}
			blocks = append(blocks, anthropic.NewToolUseBlock(c.ID, input, c.Name))
		}
		if len(blocks) == 0 {
			continue
		}
		if m.Role == RoleAssistant {
			params.Messages = append(params.Messages, anthropic.NewAssistantMessage(blocks...))
		} else {
			params.Messages = append(params.Messages, anthropic.NewUserMessage(blocks...))
		}
	}
	return params, nil
}

// anthropicTool translates a JSON Schema object into the SDK's input schema,
// keeping every keyword beyond type, properties and required as extra fields
// so the schema reaches the wire unchanged.
func anthropicTool(name, description string, raw json.RawMessage) (anthropic.ToolParam, error) {
	schema, err := schemaObject(raw)
	if err != nil {
		return anthropic.ToolParam{}, err
	}
	in := anthropic.ToolInputSchemaParam{Properties: schema["properties"], ExtraFields: map[string]any{}}
	if req, ok := schema["required"].([]any); ok {
		for _, r := range req {
			if s, ok := r.(string); ok {
				in.Required = append(in.Required, s)
			}
		}
	}
	for k, v := range schema {
		if k != "type" && k != "properties" && k != "required" {
			in.ExtraFields[k] = v
		}
	}
	tool := anthropic.ToolParam{Name: name, InputSchema: in}
	if description != "" {
		tool.Description = anthropic.String(description)
	}
	return tool, nil
}

// anthropicResponse reads a message. With a schema, the forced tool call's
// input is the answer, and takes the place of any text around it. More than
// one call of it is no answer: Text is then their inputs joined, which is
// not one JSON value, and CompleteJSON refuses it (see Response.answers).
func anthropicResponse(msg *anthropic.Message, schema *Schema) *Response {
	u := msg.Usage
	out := &Response{
		StopReason: string(msg.StopReason),
		Usage: Usage{
			InputTokens:       int(u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens),
			OutputTokens:      int(u.OutputTokens),
			CachedInputTokens: int(u.CacheReadInputTokens),
		},
	}
	answer := ""
	for _, b := range msg.Content {
		switch b.Type {
		case "text":
			out.Text += b.Text
		case "tool_use":
			if schema != nil && b.Name == schema.Name {
				answer += string(b.Input)
				out.answers++
				continue
			}
			out.ToolCalls = append(out.ToolCalls, ToolCall{ID: b.ID, Name: b.Name, Input: json.RawMessage(b.Input)})
		}
	}
	if out.answers > 0 {
		out.Text = answer
	}
	return out
}

func (a *Anthropic) classify(err error) *Error {
	var ae *anthropic.Error
	if !errors.As(err, &ae) {
		return transportError("anthropic", err)
	}
	e := &Error{Provider: "anthropic", Status: ae.StatusCode, Message: redact(ae.Message), Model: a.model, err: err}
	if ae.Response != nil {
		e.RetryAfter = retryAfter(ae.Response.Header, a.cfg.retry.NowFunc())
	}
	switch {
	case ae.StatusCode < 400:
		// An error event inside a stream that began with 200.
		e.Status = 0
		e.Class = classForType(string(ae.Type()))
	case ae.Type() == "overloaded_error":
		e.Class = ClassOverloaded
	default:
		e.Class = classFor(ae.StatusCode)
	}
	return e
}

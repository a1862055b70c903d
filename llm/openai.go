package llm

import (
	"context"
	"fmt"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
)

// OpenAI talks to the OpenAI Chat Completions API or any server compatible
// with it (Ollama, vLLM, OpenRouter) through baseURL.
type OpenAI struct {
	client openai.Client
	model  string
}

// NewOpenAI returns a Chat Completions model. baseURL may be empty.
func NewOpenAI(apiKey, baseURL, model string) *OpenAI {
	opts := []option.RequestOption{option.WithAPIKey(apiKey), option.WithMaxRetries(2)}
	if baseURL != "" {
		opts = append(opts, option.WithBaseURL(baseURL))
	}
	return &OpenAI{client: openai.NewClient(opts...), model: model}
}

// Complete sends one Chat Completions request.
func (o *OpenAI) Complete(ctx context.Context, req Request) (*Response, error) {
	params := openai.ChatCompletionNewParams{Model: shared.ChatModel(o.model)}
	if req.MaxTokens > 0 {
		params.MaxCompletionTokens = openai.Int(int64(req.MaxTokens))
	}
	if req.System != "" {
		params.Messages = append(params.Messages, openai.SystemMessage(req.System))
	}
	for _, t := range req.Tools {
		schema, err := schemaObject(t.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("openai: tool %s: %w", t.Name, err)
		}
		params.Tools = append(params.Tools, openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name:        t.Name,
			Description: openai.String(t.Description),
			Parameters:  shared.FunctionParameters(schema),
		}))
	}
	for _, m := range req.Messages {
		switch m.Role {
		case RoleAssistant:
			am := openai.ChatCompletionAssistantMessageParam{}
			if m.Text != "" {
				am.Content.OfString = openai.String(m.Text)
			}
			for _, c := range m.ToolCalls {
				args := string(c.Input)
				if args == "" {
					args = "{}"
				}
				am.ToolCalls = append(am.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
						ID:       c.ID,
						Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: args},
					},
				})
			}
			params.Messages = append(params.Messages, openai.ChatCompletionMessageParamUnion{OfAssistant: &am})
		default:
			for _, r := range m.ToolResults {
				params.Messages = append(params.Messages, openai.ToolMessage(r.Content, r.CallID))
			}
			if m.Text != "" {
				params.Messages = append(params.Messages, openai.UserMessage(m.Text))
			}
		}
	}
	resp, err := o.client.Chat.Completions.New(ctx, params)
	if err != nil {
		return nil, fmt.Errorf("openai: %w", err)
	}
	if len(resp.Choices) == 0 {
		return nil, fmt.Errorf("openai: response has no choices")
	}
	choice := resp.Choices[0]
	out := &Response{Text: choice.Message.Content, StopReason: choice.FinishReason}
	for _, c := range choice.Message.ToolCalls {
		if c.Type != "function" {
			continue
		}
		out.ToolCalls = append(out.ToolCalls, ToolCall{ID: c.ID, Name: c.Function.Name, Input: []byte(c.Function.Arguments)})
	}
	return out, nil
}

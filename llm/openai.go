package llm

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/shared"
)

// OpenAI talks to the OpenAI Chat Completions API or any server compatible
// with it (Ollama, vLLM, OpenRouter) through baseURL.
type OpenAI struct {
	client  openai.Client
	model   string
	baseURL string
	cfg     config
}

var (
	_ Model    = (*OpenAI)(nil)
	_ Streamer = (*OpenAI)(nil)
)

// NewOpenAI returns a Chat Completions model. baseURL may be empty.
func NewOpenAI(apiKey, baseURL, model string, opts ...Option) *OpenAI {
	return &OpenAI{client: newOpenAIClient(apiKey, baseURL), model: model, baseURL: baseURL, cfg: newConfig(opts)}
}

// openAIURL is OpenAI's own API, where a model without a base URL goes.
const openAIURL = "https://api.openai.com/v1/"

func newOpenAIClient(apiKey, baseURL string) openai.Client {
	// The SDK's retries are off: withRetry retries (see NewAnthropic). The
	// base URL is always given: the SDK would otherwise take
	// OPENAI_BASE_URL from the environment, and send the model's key, and
	// OpenAI's own parameters, to a host mnemo's settings never named.
	ro := []option.RequestOption{option.WithAPIKey(apiKey), option.WithMaxRetries(0), option.WithHTTPClient(httpClient),
		option.WithBaseURL(cmp.Or(baseURL, openAIURL))}
	return openai.NewClient(ro...)
}

// openAIHost is the host of OpenAI's own API (openAIURL).
const openAIHost = "api.openai.com"

// ownAPI reports whether requests go to OpenAI's own API: no base URL, or
// one on its host. Any other is a compatible server, which may not take
// every parameter OpenAI's does.
func (o *OpenAI) ownAPI() bool {
	if o.baseURL == "" {
		return true
	}
	u, err := url.Parse(o.baseURL)
	return err == nil && strings.EqualFold(u.Hostname(), openAIHost)
}

// Provider is "openai" (for any OpenAI-compatible server).
func (o *OpenAI) Provider() string { return "openai" }

// ModelName is the model requested.
func (o *OpenAI) ModelName() string { return o.model }

// Complete sends one Chat Completions request. A request with a Schema
// goes by the structured-output mode this server and model take (see
// structuredMode), found by falling back on the first such request.
func (o *OpenAI) Complete(ctx context.Context, req Request) (*Response, error) {
	if req.Schema != nil {
		return o.completeStructured(ctx, req)
	}
	return o.complete(ctx, req, modeJSONSchema)
}

func (o *OpenAI) complete(ctx context.Context, req Request, mode structuredMode) (*Response, error) {
	params, err := o.params(req, mode)
	if err != nil {
		return nil, fmt.Errorf("openai: %w", err)
	}
	return withRetry(ctx, o.cfg, "openai", o.classify, func(ctx context.Context) (*Response, bool, error) {
		resp, err := o.client.Chat.Completions.New(ctx, params)
		if err != nil {
			return nil, false, err
		}
		out, err := openaiResponse(resp)
		return out, false, err
	})
}

// Stream sends one streaming Chat Completions request and accumulates the
// chunks into the same Response Complete returns.
func (o *OpenAI) Stream(ctx context.Context, req Request, onText func(delta string)) (*Response, error) {
	params, err := o.params(req, o.structuredMode())
	if err != nil {
		return nil, fmt.Errorf("openai: %w", err)
	}
	params.StreamOptions.IncludeUsage = openai.Bool(true)
	return withRetry(ctx, o.cfg, "openai", o.classify, func(ctx context.Context) (*Response, bool, error) {
		stream := o.client.Chat.Completions.NewStreaming(ctx, params)
		defer stream.Close()
		var acc openai.ChatCompletionAccumulator
		committed := false
		for stream.Next() {
			chunk := stream.Current()
			if !acc.AddChunk(chunk) {
				return nil, committed, &Error{Provider: "openai", Class: ClassMalformed, Message: "a stream chunk did not fit the ones before it"}
			}
			for _, c := range chunk.Choices {
				if c.Index == 0 && c.Delta.Content != "" {
					committed = true
					if onText != nil {
						onText(c.Delta.Content)
					}
				}
			}
		}
		if err := stream.Err(); err != nil {
			return nil, committed, err
		}
		if len(acc.Choices) == 0 || acc.Choices[0].FinishReason == "" {
			return nil, committed, &Error{Provider: "openai", Class: ClassNetwork, Message: "the stream ended before the message was complete"}
		}
		out, err := openaiResponse(&acc.ChatCompletion)
		return out, false, err
	})
}

func (o *OpenAI) params(req Request, mode structuredMode) (openai.ChatCompletionNewParams, error) {
	params := openai.ChatCompletionNewParams{Model: shared.ChatModel(o.model)}
	if req.MaxTokens > 0 {
		params.MaxCompletionTokens = openai.Int(int64(req.MaxTokens))
	}
	system := req.System
	if req.Schema != nil {
		if len(req.Tools) > 0 {
			return params, ErrSchemaWithTools
		}
		if err := checkSchemaName(req.Schema.Name); err != nil {
			return params, err
		}
		schema, err := schemaObject(req.Schema.JSON)
		if err != nil {
			return params, fmt.Errorf("schema %s: %w", req.Schema.Name, err)
		}
		switch mode {
		case modeJSONSchema:
			js := shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: req.Schema.Name, Schema: schema, Strict: openai.Bool(true)}
			if req.Schema.Description != "" {
				js.Description = openai.String(req.Schema.Description)
			}
			params.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{JSONSchema: js}}
		case modeJSONObject:
			// json_object promises JSON, not the schema: the prompt names it.
			system = withSchemaInstruction(system, req.Schema)
			params.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONObject: &shared.ResponseFormatJSONObjectParam{}}
		case modeTool:
			params.Tools = append(params.Tools, openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
				Name: req.Schema.Name, Description: openai.String(req.Schema.Description), Parameters: shared.FunctionParameters(schema),
			}))
			params.ToolChoice = openai.ToolChoiceOptionFunctionToolChoice(openai.ChatCompletionNamedToolChoiceFunctionParam{Name: req.Schema.Name})
			// One call, one answer: a second call of the tool is refused
			// as no answer (see structuredAnswer), so none is invited
			// where the parameter is known to be taken. A local server
			// may refuse it, with a 400 or a 5xx, and reaches this mode
			// because it lacks response_format: it is not sent there,
			// and the answer check holds without it.
			if o.ownAPI() {
				params.ParallelToolCalls = openai.Bool(false)
			}
		case modePlain:
			system = withSchemaInstruction(system, req.Schema)
		}
	}
	if system != "" {
		params.Messages = append(params.Messages, openai.SystemMessage(system))
	}
	for _, t := range req.Tools {
		schema, err := schemaObject(t.InputSchema)
		if err != nil {
			return params, fmt.Errorf("tool %s: %w", t.Name, err)
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
	return params, nil
}

func openaiResponse(resp *openai.ChatCompletion) (*Response, error) {
	if len(resp.Choices) == 0 {
		return nil, &Error{Provider: "openai", Class: ClassMalformed, Message: "the response has no choices"}
	}
	choice := resp.Choices[0]
	out := &Response{
		Text:       choice.Message.Content,
		StopReason: choice.FinishReason,
		refusal:    choice.Message.Refusal,
		Usage: Usage{
			InputTokens: int(resp.Usage.PromptTokens), OutputTokens: int(resp.Usage.CompletionTokens),
			CachedInputTokens: int(resp.Usage.PromptTokensDetails.CachedTokens),
		},
	}
	for _, c := range choice.Message.ToolCalls {
		if c.Type != "function" {
			continue
		}
		out.ToolCalls = append(out.ToolCalls, ToolCall{ID: c.ID, Name: c.Function.Name, Input: []byte(c.Function.Arguments)})
	}
	return out, nil
}

func (o *OpenAI) classify(err error) *Error {
	e := classifyOpenAI(err, o.cfg)
	e.Model = o.model
	return e
}

func classifyOpenAI(err error, c config) *Error {
	var ae *openai.Error
	if errors.As(err, &ae) {
		e := &Error{Provider: "openai", Status: ae.StatusCode, Class: classFor(ae.StatusCode), Message: redact(ae.Message), err: err}
		if ae.Response != nil {
			e.RetryAfter = retryAfter(ae.Response.Header, c.retry.NowFunc())
		}
		return e
	}
	var se *ssestream.StreamError
	if errors.As(err, &se) {
		// An error event inside a stream that began with 200.
		var body struct {
			Error struct {
				Message string `json:"message"`
				Type    string `json:"type"`
				Code    any    `json:"code"`
			} `json:"error"`
		}
		_ = json.Unmarshal(se.Event.Data, &body)
		return &Error{Provider: "openai", Class: classForType(body.Error.Type), Message: redact(body.Error.Message), err: err}
	}
	return transportError("openai", err)
}

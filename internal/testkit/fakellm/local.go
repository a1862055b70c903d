package fakellm

import (
	"encoding/json"

	"github.com/mnemo-bot/mnemo/llm"
)

// IgnoresResponseFormat is a server, like some local OpenAI-compatible
// ones, that takes response_format but ignores it: asked for a structured
// answer that way, the model writes prose. It honours a forced tool call,
// and answers JSON when only the prompt asks for it. next decides the
// answer as for any server (its Reply.JSON is the structured answer).
func IgnoresResponseFormat(next Script) Script {
	return func(n int, req *Request) Reply {
		r := next(n, req)
		if r.JSON == "" {
			return r
		}
		switch {
		case req.ResponseFormat != nil:
			return Reply{Text: "Sure! Here is what I found in the conversation, in a few words."}
		case req.ForcedTool() != "":
			return Reply{ToolCalls: []llm.ToolCall{{Name: req.ForcedTool(), Input: json.RawMessage(r.JSON)}}}
		}
		return r
	}
}

// RefusesResponseFormat is a server that answers a request carrying
// response_format with HTTP 400, as servers without structured output do.
func RefusesResponseFormat(next Script) Script {
	return func(n int, req *Request) Reply {
		if req.ResponseFormat != nil {
			return Reply{Status: 400, ErrorMessage: "response_format is not supported by this server"}
		}
		return next(n, req)
	}
}

// RefusesParameter is a server that answers any request carrying the
// top-level parameter name with HTTP status and an error that names it,
// as some local OpenAI-compatible servers answer one they do not know
// (parallel_tool_calls): a 400, or a 5xx from a server that fails on it.
func RefusesParameter(name string, status int, next Script) Script {
	return func(n int, req *Request) Reply {
		var top map[string]json.RawMessage
		if json.Unmarshal(req.Raw, &top) == nil {
			if _, ok := top[name]; ok {
				return Reply{Status: status, ErrorMessage: "unsupported parameter: " + name}
			}
		}
		return next(n, req)
	}
}

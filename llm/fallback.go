package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// structuredMode is how a request with a Schema asks an OpenAI-compatible
// server for JSON. Not every server takes every mode: OpenAI takes all,
// some local servers (Ollama, llama.cpp, vLLM versions) refuse or ignore
// response_format. The modes are tried in order until one answers.
type structuredMode int

const (
	// modeJSONSchema: response_format json_schema, strict.
	modeJSONSchema structuredMode = iota
	// modeJSONObject: response_format json_object, the schema in the prompt.
	modeJSONObject
	// modeTool: one tool whose parameters are the schema, its call forced.
	modeTool
	// modePlain: no mechanism, the schema in the prompt; CompleteJSON
	// validates the answer and asks once more.
	modePlain
)

func (m structuredMode) String() string {
	return [...]string{"json_schema", "json_object", "tool", "plain"}[m]
}

// structuredModes caches, per base URL and model, the mode that worked,
// for the life of the process: the fallback runs once, not every call.
var structuredModes sync.Map // string → structuredMode

func (o *OpenAI) modeKey() string { return o.baseURL + "\x00" + o.model }

func (o *OpenAI) structuredMode() structuredMode {
	if m, ok := structuredModes.Load(o.modeKey()); ok {
		return m.(structuredMode)
	}
	return modeJSONSchema
}

// completeStructured sends req in the cached mode, or finds the mode: a
// mode the server refuses (HTTP 400 or 422) or ignores (a finished answer
// that is not JSON, or no call of the forced tool) moves to the next. An
// answer cut off by the output token limit, empty, or a refusal, says
// nothing about the mode and is returned as it is. Only a mode that gave
// JSON is kept. Whether the JSON matches the schema is CompleteJSON's to
// check, not a reason to change modes.
func (o *OpenAI) completeStructured(ctx context.Context, req Request) (*Response, error) {
	start := o.structuredMode()
	var lastErr error
	for mode := start; mode <= modePlain; mode++ {
		resp, err := o.complete(ctx, req, mode)
		var pe *Error
		switch {
		case err == nil:
		case mode < modePlain && errors.As(err, &pe) && (pe.Status == 400 || pe.Status == 422):
			lastErr = err
			o.cfg.logger.Debug().Str("model", o.model).Str("mode", mode.String()).Int("status", pe.Status).Msg("structured output mode refused; trying the next")
			continue
		default:
			return nil, err
		}
		if resp.refusal != "" {
			// A refusal says nothing about the mode, and is not an answer
			// to look for in the next one: CompleteJSON reports it.
			return resp, nil
		}
		answer, answers, ok := structuredAnswer(resp, req.Schema.Name, mode)
		if !ok && mode < modePlain && !unfinished(resp) {
			o.cfg.logger.Debug().Str("model", o.model).Str("mode", mode.String()).Msg("structured output mode ignored; trying the next")
			continue
		}
		resp.Text, resp.ToolCalls, resp.answers = answer, nil, answers
		if !ok {
			// Not JSON, and no sign of which mode the server takes: the
			// answer is CompleteJSON's to refuse, and the mode stays as it
			// was, so that one bad answer does not turn the schema off for
			// every later call.
			return resp, nil
		}
		if prev, ok := structuredModes.Load(o.modeKey()); !ok || prev.(structuredMode) != mode {
			structuredModes.Store(o.modeKey(), mode)
			o.cfg.logger.Info().Str("model", o.model).Str("mode", mode.String()).Msg("structured output mode chosen")
		}
		return resp, nil
	}
	if lastErr != nil {
		return nil, lastErr
	}
	return nil, fmt.Errorf("openai: no structured output mode answered")
}

// unfinished reports an answer that ended before the model finished it
// (the output token limit, which a reasoning model can spend before it
// writes a word) or that has nothing in it: a mode's answer to judge it by.
func unfinished(resp *Response) bool {
	return resp.StopReason == "length" || (strings.TrimSpace(resp.Text) == "" && len(resp.ToolCalls) == 0)
}

// structuredAnswer is the JSON text of resp in mode, how many calls of the
// forced tool gave it (tool mode only), and whether the server honoured the
// mode. More than one call is no answer: the text is then their arguments
// joined, which is not one JSON value, and CompleteJSON refuses it.
func structuredAnswer(resp *Response, name string, mode structuredMode) (text string, answers int, ok bool) {
	if mode == modeTool {
		for _, c := range resp.ToolCalls {
			if c.Name == name {
				text += string(c.Input)
				answers++
			}
		}
		if answers == 0 {
			return resp.Text, 0, false
		}
		return text, answers, true
	}
	text = resp.Text
	if mode == modePlain {
		text = unfence(text)
	}
	return text, 0, json.Valid([]byte(strings.TrimSpace(text)))
}

var fenced = regexp.MustCompile("(?s)^\\s*```(?:json)?\\s*\\n(.*?)\\n?```\\s*$")

// unfence takes a JSON answer out of the code fence a model put it in.
func unfence(text string) string {
	if m := fenced.FindStringSubmatch(text); m != nil {
		return m[1]
	}
	return text
}

// withSchemaInstruction adds to system the instruction a mode without
// response_format json_schema needs: answer with JSON matching the schema.
func withSchemaInstruction(system string, s *Schema) string {
	instr := "Answer with one JSON object and nothing else, no prose and no code fence. It must match this JSON Schema"
	if s.Description != "" {
		instr += " (" + strings.TrimRight(s.Description, ".") + ")"
	}
	instr += ":\n" + string(s.JSON)
	if system == "" {
		return instr
	}
	return system + "\n\n" + instr
}

package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// ErrInvalidAnswer is returned by CompleteJSON when the model answered twice
// with something that is not JSON or does not match the schema. The error
// wraps the last JSON or validation error too.
var ErrInvalidAnswer = errors.New("model answer does not match the schema")

// ErrTruncated is returned by CompleteJSON when the model's answer was cut
// off at the output token limit (Anthropic's stop_reason max_tokens,
// OpenAI's finish_reason length) on the retry too. A cut-off answer is
// never accepted, even when what came back validates. It is an
// ErrInvalidAnswer as well: errors.Is matches both.
var ErrTruncated error = &invalidAnswer{"the model's answer was cut off at the output token limit"}

// ErrRefused is what a RefusalError matches with errors.Is.
var ErrRefused = errors.New("the model refused to answer")

// ErrNoSchema is returned by CompleteJSON for a Request without a Schema.
var ErrNoSchema = errors.New("CompleteJSON needs a Request with a Schema")

// invalidAnswer is an ErrInvalidAnswer with a message of its own.
type invalidAnswer struct{ msg string }

func (e *invalidAnswer) Error() string        { return e.msg }
func (e *invalidAnswer) Is(target error) bool { return target == ErrInvalidAnswer }

// RefusalError is returned by CompleteJSON when the model declined to
// answer (OpenAI's message.refusal, Anthropic's stop_reason refusal). It is
// not asked again: the same request would be refused the same way.
// Reason is the model's explanation, where the provider gives one; it is
// model text about the request, which may quote it, so it is not part of
// Error (errors are logged) and a caller shows it only deliberately.
type RefusalError struct {
	Schema string
	Reason string
}

func (e *RefusalError) Error() string {
	return "schema " + e.Schema + ": " + ErrRefused.Error()
}

// Unwrap makes errors.Is(err, ErrRefused) hold.
func (e *RefusalError) Unwrap() error { return ErrRefused }

// CompleteJSON asks m for a structured answer to req, which must carry a
// Schema, validates the answer against it and unmarshals it into v. An answer
// that is not valid JSON, fails validation, comes more than once (two calls
// of the forced tool) or was cut off at the output token limit is asked for
// once more, a cut-off one with twice the token budget; a second bad answer
// is ErrInvalidAnswer (ErrTruncated when cut off again), never a default. A
// refusal is a RefusalError at once. Provider errors are returned as they
// come (the provider has already retried what can be).
func CompleteJSON(ctx context.Context, m Model, req Request, v any) error {
	return CompleteJSONChecked(ctx, m, req, v, nil)
}

// CompleteJSONChecked is CompleteJSON with the rules a schema can't say:
// check is called once the answer is decoded into v, and an error from it
// makes the answer invalid like one that fails the schema, so it is asked
// for once more (v is reset to its zero value before each decode, so a
// second answer never mixes with the first). A second answer that fails
// check is ErrInvalidAnswer wrapping check's error, with v reset to zero.
// A nil check is none.
func CompleteJSONChecked(ctx context.Context, m Model, req Request, v any, check func() error) error {
	if req.Schema == nil {
		return ErrNoSchema
	}
	sch, err := compiledSchema(req.Schema.JSON)
	if err != nil {
		return fmt.Errorf("schema %s: %w", req.Schema.Name, err)
	}
	var invalid error
	for range 2 {
		resp, err := m.Complete(ctx, req)
		if err != nil {
			return err
		}
		if reason, ok := refused(resp); ok {
			return &RefusalError{Schema: req.Schema.Name, Reason: reason}
		}
		if cutOff(resp) {
			invalid = ErrTruncated
			if n := resp.Usage.OutputTokens; n > 0 {
				invalid = fmt.Errorf("%w (after %d output tokens)", ErrTruncated, n)
			}
			if req.MaxTokens > 0 {
				// The budget in effect is the larger of the one asked for
				// and the one spent: Anthropic is asked for at least 1024.
				// Without MaxTokens the limit was the model's own, which
				// cannot be raised; the retry is then as it was.
				req.MaxTokens = 2 * max(req.MaxTokens, resp.Usage.OutputTokens)
			}
			continue
		}
		if resp.answers > 1 {
			invalid = fmt.Errorf("the model gave %d answers where one was asked for", resp.answers)
			continue
		}
		answer, err := checkAnswer(sch, resp.Text)
		if err != nil {
			invalid = err
			continue
		}
		resetValue(v)
		if err := json.Unmarshal(answer, v); err != nil {
			return fmt.Errorf("schema %s: decode answer: %w", req.Schema.Name, err)
		}
		if check == nil {
			return nil
		}
		if invalid = check(); invalid == nil {
			return nil
		}
		resetValue(v)
	}
	if errors.Is(invalid, ErrTruncated) {
		return fmt.Errorf("schema %s: %w", req.Schema.Name, invalid)
	}
	return fmt.Errorf("schema %s: %w: %w", req.Schema.Name, ErrInvalidAnswer, invalid)
}

// resetValue sets what v points to to its zero value, so that decoding a
// second answer into it leaves nothing of the first (json.Unmarshal keeps
// fields and map entries the new document doesn't name).
func resetValue(v any) {
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv.Elem().SetZero()
	}
}

// cutOff reports an answer that ended at the output token limit, or at
// the end of the context window, before the model finished it.
func cutOff(resp *Response) bool {
	switch resp.StopReason {
	case "max_tokens", "model_context_window_exceeded", // Anthropic
		"length": // OpenAI
		return true
	}
	return false
}

// refused reports a model that declined to answer, and its explanation
// where the provider gives one.
func refused(resp *Response) (string, bool) {
	if resp.refusal != "" {
		return resp.refusal, true
	}
	return "", resp.StopReason == "refusal" // Anthropic
}

func checkAnswer(sch *jsonschema.Schema, text string) ([]byte, error) {
	answer := []byte(strings.TrimSpace(text))
	if len(answer) == 0 {
		return nil, errors.New("the answer is empty")
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(answer))
	if err != nil {
		return nil, fmt.Errorf("the answer is not valid JSON: %w", err)
	}
	if err := sch.Validate(inst); err != nil {
		return nil, err
	}
	return answer, nil
}

// schemas caches compiled schemas by their bytes: the same few schemas are
// asked for on every turn, and compiling is the expensive part.
var schemas sync.Map // string -> *jsonschema.Schema

func compiledSchema(raw json.RawMessage) (*jsonschema.Schema, error) {
	key := string(raw)
	if s, ok := schemas.Load(key); ok {
		return s.(*jsonschema.Schema), nil
	}
	s, err := compileSchema(raw)
	if err != nil {
		return nil, err
	}
	actual, _ := schemas.LoadOrStore(key, s)
	return actual.(*jsonschema.Schema), nil
}

func compileSchema(raw json.RawMessage) (*jsonschema.Schema, error) {
	if _, err := schemaObject(raw); err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, errors.Join(ErrBadSchema, err)
	}
	c := jsonschema.NewCompiler()
	const url = "mem://llm/schema.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, errors.Join(ErrBadSchema, err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, errors.Join(ErrBadSchema, err)
	}
	return s, nil
}

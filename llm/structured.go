package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// ErrInvalidAnswer is returned by CompleteJSON when the model answered twice
// with something that is not JSON or does not match the schema. The error
// wraps the last JSON or validation error too.
var ErrInvalidAnswer = errors.New("model answer does not match the schema")

// ErrNoSchema is returned by CompleteJSON for a Request without a Schema.
var ErrNoSchema = errors.New("CompleteJSON needs a Request with a Schema")

// CompleteJSON asks m for a structured answer to req, which must carry a
// Schema, validates the answer against it and unmarshals it into v. An answer
// that is not valid JSON or fails validation is asked for once more; a second
// bad answer is ErrInvalidAnswer, never a default. Provider errors are
// returned as they come (the provider has already retried what can be).
func CompleteJSON(ctx context.Context, m Model, req Request, v any) error {
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
		answer, err := checkAnswer(sch, resp.Text)
		if err == nil {
			if err := json.Unmarshal(answer, v); err != nil {
				return fmt.Errorf("schema %s: decode answer: %w", req.Schema.Name, err)
			}
			return nil
		}
		invalid = err
	}
	return fmt.Errorf("schema %s: %w: %w", req.Schema.Name, ErrInvalidAnswer, invalid)
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

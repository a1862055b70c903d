package llm

import (
	"encoding/json"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"
)

func TestCompiledSchemaIsCachedByBytes(t *testing.T) {
	t.Parallel()
	raw := json.RawMessage(`{"type":"object","properties":{"cached":{"type":"boolean"}}}`)
	first, err := compiledSchema(raw)
	require.NoError(t, err)
	again, err := compiledSchema(append(json.RawMessage(nil), raw...))
	require.NoError(t, err)
	require.Same(t, first, again, "the same bytes compile once")

	other, err := compiledSchema(json.RawMessage(`{"type":"object","properties":{"cached":{"type":"string"}}}`))
	require.NoError(t, err)
	require.NotSame(t, first, other)
}

// BenchmarkAnswerCheck measures checking one answer with the cached schema
// against compiling the schema for every answer, the baseline the cache saves.
func BenchmarkAnswerCheck(b *testing.B) {
	raw := json.RawMessage(`{"type":"object","properties":{"store":{"type":"boolean"},"reason":{"type":"string"}},"required":["store","reason"]}`)
	answer := `{"store":true,"reason":"a durable preference"}`
	for _, c := range []struct {
		name    string
		compile func(json.RawMessage) (*jsonschema.Schema, error)
	}{
		{"compile each time (baseline)", compileSchema},
		{"cached", compiledSchema},
	} {
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				sch, err := c.compile(raw)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := checkAnswer(sch, answer); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

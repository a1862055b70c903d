package llm

import (
	"context"
	"fmt"

	"github.com/openai/openai-go/v3"
)

// OpenAIEmbedder embeds texts through the OpenAI embeddings API
// (POST /v1/embeddings), or any server compatible with it through baseURL.
type OpenAIEmbedder struct {
	client openai.Client
	model  string
	cfg    config
}

var _ Embedder = (*OpenAIEmbedder)(nil)

// embedBatch bounds the inputs sent in one request; the API takes at most
// 2048, and smaller batches keep a retried request cheap.
const embedBatch = 256

// NewEmbedder returns an embedder for model. baseURL may be empty.
func NewEmbedder(apiKey, baseURL, model string, opts ...Option) *OpenAIEmbedder {
	return &OpenAIEmbedder{client: newOpenAIClient(apiKey, baseURL), model: model, cfg: newConfig(opts)}
}

// Embed returns one vector per text, in the order of texts.
func (e *OpenAIEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += embedBatch {
		batch := texts[start:min(start+embedBatch, len(texts))]
		vecs, err := withRetry(ctx, e.cfg, "openai", e.classify, func(ctx context.Context) ([][]float32, bool, error) {
			resp, err := e.client.Embeddings.New(ctx, openai.EmbeddingNewParams{
				Model:          openai.EmbeddingModel(e.model),
				Input:          openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: batch},
				EncodingFormat: openai.EmbeddingNewParamsEncodingFormatFloat,
			})
			if err != nil {
				return nil, false, err
			}
			vecs, err := embeddings(resp, len(batch))
			return vecs, false, err
		})
		if err != nil {
			return nil, fmt.Errorf("embed: %w", err)
		}
		out = append(out, vecs...)
	}
	return out, nil
}

// embeddings orders the vectors by their index, and refuses an answer that
// does not have exactly one vector for each input.
func embeddings(resp *openai.CreateEmbeddingResponse, n int) ([][]float32, error) {
	malformed := func(format string, args ...any) error {
		return &Error{Provider: "openai", Class: ClassMalformed, Message: fmt.Sprintf(format, args...)}
	}
	if len(resp.Data) != n {
		return nil, malformed("asked for %d embeddings, got %d", n, len(resp.Data))
	}
	out := make([][]float32, n)
	for _, d := range resp.Data {
		if d.Index < 0 || int(d.Index) >= n || out[d.Index] != nil {
			return nil, malformed("embedding index %d is out of range or repeated", d.Index)
		}
		if len(d.Embedding) == 0 {
			return nil, malformed("embedding %d is empty", d.Index)
		}
		v := make([]float32, len(d.Embedding))
		for i, x := range d.Embedding {
			v[i] = float32(x)
		}
		out[d.Index] = v
	}
	return out, nil
}

func (e *OpenAIEmbedder) classify(err error) *Error {
	ce := classifyOpenAI(err, e.cfg)
	ce.Model = e.model
	return ce
}

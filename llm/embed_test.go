package llm_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/llm"
)

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return dot / math.Sqrt(na*nb)
}

func TestEmbedderShapeAndDeterminism(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t, nil)
	e := llm.NewEmbedder("sk-test", srv.URL+"/v1", "text-embedding-test")
	texts := []string{"Alice prefers neovim", "Bob is in the Pacific time zone", "Carol wants PR summaries"}

	first, err := e.Embed(context.Background(), texts)
	require.NoError(t, err)
	require.Len(t, first, len(texts))
	for i, v := range first {
		require.Len(t, v, fakellm.Dim)
		var sq float64
		for _, x := range v {
			sq += float64(x) * float64(x)
		}
		require.InDelta(t, 1, math.Sqrt(sq), 1e-5, "L2-normalised")
		require.Equal(t, fakellm.Embed(texts[i]), v, "vector %d is the fake's, in input order", i)
	}
	require.NotEqual(t, first[0], first[1])

	again, err := e.Embed(context.Background(), texts)
	require.NoError(t, err)
	require.Equal(t, first, again)

	reqs := srv.EmbedRequests()
	require.Len(t, reqs, 2)
	require.Equal(t, fakellm.EmbedRequest{Model: "text-embedding-test", Input: texts, APIKey: "sk-test"}, reqs[0])
	require.Empty(t, srv.Requests(), "embeddings are not chat requests")
}

func TestEmbedderParaphrasesAreCloserThanUnrelatedTexts(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t, nil)
	e := llm.NewEmbedder("sk-test", srv.URL+"/v1", "text-embedding-test")
	cases := []struct{ text, paraphrase, unrelated string }{
		{"Alice prefers neovim as her editor", "Alice likes using vim", "The deploy failed on Friday"},
		{"Bob works in the Pacific time zone", "Bob's timezone is PT", "Bob wants short replies"},
		{"Send me summaries of my pull requests", "I want a PR summary", "Lunch is at noon in the big room"},
	}
	for _, c := range cases {
		v, err := e.Embed(context.Background(), []string{c.text, c.paraphrase, c.unrelated})
		require.NoError(t, err)
		near, far := cosine(v[0], v[1]), cosine(v[0], v[2])
		require.Greater(t, near, far, "%q vs %q (%.2f) and %q (%.2f)", c.text, c.paraphrase, near, c.unrelated, far)
		require.Greater(t, near, 0.5)
	}
}

func TestEmbedderBatchesLongInputs(t *testing.T) {
	t.Parallel()
	srv := fakellm.New(t, nil)
	e := llm.NewEmbedder("sk-test", srv.URL+"/v1", "text-embedding-test")
	texts := make([]string, 300)
	for i := range texts {
		texts[i] = fmt.Sprintf("note number %d about topic %d", i, i%7)
	}
	v, err := e.Embed(context.Background(), texts)
	require.NoError(t, err)
	require.Len(t, v, 300)
	require.Equal(t, fakellm.Embed(texts[299]), v[299])
	reqs := srv.EmbedRequests()
	require.Len(t, reqs, 2)
	require.Len(t, reqs[0].Input, 256)
	require.Len(t, reqs[1].Input, 44)

	none, err := e.Embed(context.Background(), nil)
	require.NoError(t, err)
	require.Empty(t, none)
	require.Len(t, srv.EmbedRequests(), 2, "nothing to embed sends nothing")
}

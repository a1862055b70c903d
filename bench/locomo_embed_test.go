package bench

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/llm"
)

// make eval-embed's code path with the fake embeddings server, through the
// OpenAI SDK client over HTTP: every memory is embedded by the background
// job's code, the hybrid store is hybrid and asks the endpoint for each
// question's embedding, every question is scored by all four methods in
// each shape, and the table has a row per category.
func TestRunEmbedWithTheFakeEmbedder(t *testing.T) {
	server := testdb.ServerURL(t)
	at := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	c := Conversation{Name: "26", SpeakerA: "Caroline", SpeakerB: "Melanie"}
	for i, text := range []string{
		"Hey Mel, how have you been?",
		"I painted a sunrise over the lake last year.",
		"I went to the LGBTQ support group yesterday.",
		"My kids love the pottery workshop.",
		"Adoption agencies have been so helpful.",
		"We went camping in the mountains with the family.",
	} {
		c.Turns = append(c.Turns, Turn{DiaID: fmt.Sprintf("D%d:%d", 1+i/3, 1+i%3), Speaker: []string{"Caroline", "Melanie"}[i%2], Text: text, At: at.AddDate(0, 0, 7*(i/3))})
	}
	c.Questions = []LoCoMoQuestion{
		{Text: "When did Melanie paint a sunrise?", Category: 2, Evidence: []string{"D1:2"}},
		{Text: "What pottery workshop and camping trips?", Category: 1, Evidence: []string{"D2:1", "D2:3"}},
		{Text: "Which adoption agencies helped?", Category: 4, Evidence: []string{"D2:2"}},
	}
	model := fakellm.New(t, nil)
	res, err := RunEmbed(context.Background(), []Conversation{c}, EmbedOptions{
		Server: server, Embedder: llm.NewEmbedder("test-key", model.URL+"/v1", "text-embedding-3-small"), Model: "text-embedding-3-small",
		Database: "mnemo_t_embed_" + randomSuffix() + "_",
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Shapes) != len(EmbedShapes) {
		t.Fatalf("%d shapes", len(res.Shapes))
	}
	for _, s := range res.Shapes {
		if s.Rows != 6 || s.Embedded != 6 || s.Dim != fakellm.Dim || !strings.HasPrefix(s.Mode, "hybrid") || s.Fallbacks != 0 {
			t.Errorf("%s: %d rows, %d embedded, %d dimensions, mode %q, %d fallbacks", s.Shape, s.Rows, s.Embedded, s.Dim, s.Mode, s.Fallbacks)
		}
		for _, name := range []string{MethodSearchLexical, MethodSearchHybrid, MethodForPromptLexical, MethodForPromptHybrid} {
			m := s.Method(name)
			k := 10
			if strings.HasPrefix(name, "ForPrompt") {
				k = 8
			}
			if m.All.N != 3 || m.ByCat[1].N != 1 || m.ByCat[3].N != 0 || m.All.R(k) != 1 {
				t.Errorf("%s, %s: %d questions, %d of category 1, recall@%d %.3f", s.Shape, name, m.All.N, m.ByCat[1].N, k, m.All.R(k))
			}
		}
	}
	// Each question's embedding was asked of the endpoint.
	var asked []string
	for _, r := range model.EmbedRequests() {
		asked = append(asked, r.Input...)
	}
	for _, q := range c.Questions {
		if !slices.Contains(asked, q.Text) {
			t.Errorf("the endpoint was not asked to embed %q", q.Text)
		}
	}
	md := res.Markdown()
	for _, want := range []string{"| all | 3 |", "| 1 multi-hop | 1 |", "| 3 open-domain | 0 |", "Search R@10 hybrid", "### personal"} {
		if !strings.Contains(md, want) {
			t.Errorf("no %q in\n%s", want, md)
		}
	}
	if _, err := RunEmbed(context.Background(), nil, EmbedOptions{Server: server, Shapes: []string{ShapeNoisy}}); err == nil || !strings.Contains(err.Error(), "half a million") {
		t.Errorf("the noisy shape: %v", err)
	}
}

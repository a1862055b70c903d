package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/mnemo-bot/mnemo/llm"
)

// ModelJudge is the model's part of memory review and supersession. Its
// prompts ask for JSON; an answer that isn't JSON is an error, and the
// deterministic decision stands.
type ModelJudge struct {
	Model llm.Model
}

// ReviewPromptMarker starts the review prompt, so scripted test models can
// tell review requests from turns.
const ReviewPromptMarker = "You review memories before a Slack assistant stores them."

// AdjudicatePromptMarker starts the supersession prompt.
const AdjudicatePromptMarker = "You decide whether a new preference replaces older ones."

// Review asks the model whether content is worth storing.
func (j ModelJudge) Review(ctx context.Context, content string, kind Kind) (ReviewVerdict, error) {
	system := ReviewPromptMarker + ` Refuse secrets, point-in-time figures, personal facts about a third party, and vague or not self-contained text. Otherwise accept, and give the memory as one canonical, self-contained sentence without "I" or "the user" (for example "Prefers terse PR summaries").
Answer with JSON only: {"store": true|false, "reason": "…", "canonical": "…"}`
	var v struct {
		Store     bool   `json:"store"`
		Reason    string `json:"reason"`
		Canonical string `json:"canonical"`
	}
	if err := j.ask(ctx, system, fmt.Sprintf("Kind: %s\nMemory: %s", kind, content), &v); err != nil {
		return ReviewVerdict{}, err
	}
	return ReviewVerdict{Store: v.Store, Reason: v.Reason, Canonical: v.Canonical}, nil
}

// Contradicted asks the model which candidates the newer preference replaces.
func (j ModelJudge) Contradicted(ctx context.Context, newer string, candidates []Memory) ([]uuid.UUID, error) {
	system := AdjudicatePromptMarker + ` A new preference replaces an older one only when both cannot hold at once (for example "Prefers terse PR summaries" and "Prefers detailed PR summaries").
Answer with JSON only: {"replaces": ["<id>", …]} using only the ids listed.`
	var b strings.Builder
	fmt.Fprintf(&b, "New: %s\nOlder:\n", newer)
	for _, c := range candidates {
		fmt.Fprintf(&b, "- id %s: %s\n", c.ID, c.Content)
	}
	var v struct {
		Replaces []string `json:"replaces"`
	}
	if err := j.ask(ctx, system, b.String(), &v); err != nil {
		return nil, err
	}
	var out []uuid.UUID
	for _, s := range v.Replaces {
		if id, err := uuid.Parse(strings.TrimSpace(s)); err == nil {
			out = append(out, id)
		}
	}
	return out, nil
}

func (j ModelJudge) ask(ctx context.Context, system, user string, v any) error {
	if j.Model == nil {
		return fmt.Errorf("memory judge: no model")
	}
	resp, err := j.Model.Complete(ctx, llm.Request{System: system, Messages: []llm.Message{{Role: llm.RoleUser, Text: user}}, MaxTokens: 300})
	if err != nil {
		return fmt.Errorf("memory judge: %w", err)
	}
	text := strings.TrimSpace(resp.Text)
	text = strings.TrimPrefix(strings.TrimSuffix(strings.TrimPrefix(text, "```json"), "```"), "```")
	if i := strings.Index(text, "{"); i >= 0 {
		text = text[i:]
	}
	if err := json.Unmarshal([]byte(text), v); err != nil {
		return fmt.Errorf("memory judge: answer is not JSON: %w", err)
	}
	return nil
}

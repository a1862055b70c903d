package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/mnemo-bot/mnemo/llm"
)

// ModelJudge is the model's part of memory review and supersession. Each
// question is asked with a schema through the provider's structured-output
// mechanism and the answer is validated; an answer that doesn't validate
// twice is an error, never a default.
type ModelJudge struct {
	Model llm.Model
}

// ReviewPromptMarker starts the review prompt, so scripted test models can
// tell review requests from turns.
const ReviewPromptMarker = "You review memories before a Slack assistant stores them."

// AdjudicatePromptMarker starts the supersession prompt.
const AdjudicatePromptMarker = "You decide whether a new preference replaces older ones."

// SensitiveCategories are the special categories of personal data the
// review names to the model. A memory in one of them is stored only where
// it was said and never leaves it.
var SensitiveCategories = []string{"health", "finances", "legal", "sexuality", "religion", "politics", "union", "third_party"}

// ReviewSchema is the review's answer: whether to store, why, the canonical
// sentence, its sensitive category, retrieval cues, and an end date when the
// memory states its own.
var ReviewSchema = &llm.Schema{Name: "memory_review", Description: "The verdict on one memory.", JSON: json.RawMessage(`{
  "type": "object",
  "properties": {
    "store": {"type": "boolean"},
    "reason": {"type": "string", "minLength": 1, "description": "Why, in a sentence a person can read."},
    "canonical": {"type": "string", "description": "The memory as one self-contained sentence; empty when not stored."},
    "sensitive": {"type": "string", "enum": ["", "health", "finances", "legal", "sexuality", "religion", "politics", "union", "third_party"]},
    "cues": {"type": "array", "items": {"type": "string", "maxLength": 60}, "maxItems": 8, "description": "Words and short questions a person would use when this memory is relevant."},
    "expires": {"type": "string", "description": "ISO 8601 date when the memory states its own end, else empty."}
  },
  "required": ["store", "reason", "canonical", "sensitive", "cues", "expires"],
  "additionalProperties": false
}`)}

// Review asks the model whether content is worth storing and how to keep it.
func (j ModelJudge) Review(ctx context.Context, content string, kind Kind) (ReviewVerdict, error) {
	system := ReviewPromptMarker + ` Refuse secrets and credentials, government ids, payment cards and bank accounts, point-in-time figures, personal facts about a third party, and vague or not self-contained text.
Name the sensitive category when the memory is about health, finances, legal matters, sexuality, religion, politics, union membership, or other people's personal data (third_party); otherwise leave it empty.
When storing, give the memory as one canonical, self-contained sentence without "I" or "the user" (for example "Prefers terse PR summaries"), up to 8 short retrieval cues (words and questions someone would use when it matters: "timezone", "what time is it for me"), and an expiry date when the memory states its own end ("until Friday"). A rejection always says why.`
	var v struct {
		Store     bool     `json:"store"`
		Reason    string   `json:"reason"`
		Canonical string   `json:"canonical"`
		Sensitive string   `json:"sensitive"`
		Cues      []string `json:"cues"`
		Expires   string   `json:"expires"`
	}
	err := llm.CompleteJSON(ctx, j.Model, llm.Request{
		System: system, Messages: []llm.Message{{Role: llm.RoleUser, Text: fmt.Sprintf("Kind: %s\nMemory: %s", kind, content)}},
		MaxTokens: 400, Schema: ReviewSchema,
	}, &v)
	if err != nil {
		return ReviewVerdict{}, fmt.Errorf("memory review: %w", err)
	}
	return ReviewVerdict{Store: v.Store, Reason: v.Reason, Canonical: v.Canonical, Sensitive: v.Sensitive, Cues: v.Cues, Expires: v.Expires}, nil
}

// AdjudicateSchema is the supersession answer: the ids a newer memory
// replaces.
var AdjudicateSchema = &llm.Schema{Name: "memory_supersession", Description: "The older memories the new one replaces.", JSON: json.RawMessage(`{
  "type": "object",
  "properties": {"replaces": {"type": "array", "items": {"type": "string"}}},
  "required": ["replaces"],
  "additionalProperties": false
}`)}

// Contradicted asks the model which candidates the newer preference replaces.
func (j ModelJudge) Contradicted(ctx context.Context, newer string, candidates []Memory) ([]uuid.UUID, error) {
	system := AdjudicatePromptMarker + ` A new preference replaces an older one only when both cannot hold at once (for example "Prefers terse PR summaries" and "Prefers detailed PR summaries"). Answer with the ids of the older ones it replaces, only from those listed.`
	var b strings.Builder
	fmt.Fprintf(&b, "New: %s\nOlder:\n", newer)
	for _, c := range candidates {
		fmt.Fprintf(&b, "- id %s: %s\n", c.ID, c.Content)
	}
	var v struct {
		Replaces []string `json:"replaces"`
	}
	err := llm.CompleteJSON(ctx, j.Model, llm.Request{
		System: system, Messages: []llm.Message{{Role: llm.RoleUser, Text: b.String()}}, MaxTokens: 300, Schema: AdjudicateSchema,
	}, &v)
	if err != nil {
		return nil, fmt.Errorf("memory supersession: %w", err)
	}
	var out []uuid.UUID
	for _, s := range v.Replaces {
		id, err := uuid.Parse(strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("memory supersession: %q is not one of the ids listed", s)
		}
		out = append(out, id)
	}
	return out, nil
}

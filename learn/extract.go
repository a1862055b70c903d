package learn

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/memory"
)

// ExtractPromptMarker starts the extraction prompt, so scripted test models
// can tell extraction requests apart.
const ExtractPromptMarker = "You extract durable memories from a Slack conversation."

// MaxProposals bounds what one turn's extraction may propose.
const MaxProposals = 5

// expiryPattern is the form of a proposal's end: empty, or an ISO 8601 date
// or date-time. It is memory.ReviewSchema's expires pattern (a test keeps
// them the same), so an end the model words in prose ("next Friday") fails
// the schema and is asked for again, never dropped as if it were a decision.
const expiryPattern = `^$|^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}(:[0-9]{2}([.][0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})?)?)?$`

// ExtractSchema is extraction's answer: at most MaxProposals memories, each
// citing the transcript lines that state it.
var ExtractSchema = &llm.Schema{Name: "memory_extraction", Description: "Durable memories the transcript states.", JSON: json.RawMessage(`{
  "type": "object",
  "properties": {
    "memories": {
      "type": "array", "maxItems": 5,
      "items": {
        "type": "object",
        "properties": {
          "kind": {"type": "string", "enum": ["preference", "procedure", "knowledge"]},
          "content": {"type": "string", "minLength": 1, "maxLength": 600},
          "expires": {"type": "string", "pattern": "` + expiryPattern + `", "description": "ISO 8601 date (2026-05-01) or date-time when the memory states its own end, else empty."},
          "evidence": {"type": "array", "items": {"type": "integer", "minimum": 0}, "minItems": 1}
        },
        "required": ["kind", "content", "expires", "evidence"],
        "additionalProperties": false
      }
    }
  },
  "required": ["memories"],
  "additionalProperties": false
}`)}

// Extract asks the model for up to MaxProposals durable memories from a
// transcript, with ExtractSchema. Which of them are stored, and for whom, is
// Route's decision.
func Extract(ctx context.Context, model llm.Model, lines []Line) ([]Proposal, error) {
	system := ExtractPromptMarker + ` Propose at most 5 memories worth keeping for months: people's stated preferences about how they want to be served, procedures, and durable operational knowledge.
Never propose questions, task requests, point-in-time figures, secrets, sensitive personal data (health, genetic data, finances, legal matters, sexuality, gender identity, religion, politics, union membership, racial or ethnic origin), or anything the transcript does not state.
Each memory: a kind (preference, procedure or knowledge), canonical self-contained content without "I" or names of who said it ("Prefers terse PR summaries", "Deploys go out on Tuesdays after QA sign-off"), an expiry (ISO 8601, or empty), and evidence: the indices of the lines that state it, all written by one person (a memory has one author; a fact only several people state together is not stored).`
	var b strings.Builder
	for _, l := range lines {
		who := "mnemo (the bot)"
		if !l.FromBot {
			who = l.Actor.ID
			if l.Actor.Name != "" {
				who = l.Actor.Name + " (" + l.Actor.ID + ")"
			}
		}
		fmt.Fprintf(&b, "[%d] %s, %s: %s\n", l.Index, who, l.Authority, l.Text)
	}
	var out struct {
		Memories []Proposal `json:"memories"`
	}
	// What the pattern can't say: the end is a real date ("2026-02-30"
	// matches). An answer with one that is not is invalid and asked for
	// once more; a second is an error, so the turn's learning fails and
	// its job is retried, rather than the memory dropped. An end already
	// past is a valid answer; Learn drops that memory as a decision.
	err := llm.CompleteJSONChecked(ctx, model, llm.Request{
		System: system, Messages: []llm.Message{{Role: llm.RoleUser, Text: b.String()}}, MaxTokens: 800, Schema: ExtractSchema,
	}, &out, func() error {
		for i, p := range out.Memories {
			if p.Expires == "" {
				continue
			}
			if _, err := memory.ParseExpiry(p.Expires, time.Time{}); err != nil {
				return fmt.Errorf("memory %d: %w", i, err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("extract: %w", err)
	}
	return out.Memories, nil
}

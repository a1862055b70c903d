package learn

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mnemo-bot/mnemo/llm"
)

// ExtractPromptMarker starts the extraction prompt, so scripted test models
// can tell extraction requests apart.
const ExtractPromptMarker = "You extract durable memories from a Slack conversation."

// MaxProposals bounds what one turn's extraction may propose.
const MaxProposals = 5

// Extract asks the model for up to MaxProposals durable memories from a
// transcript. Which of them are stored, and for whom, is Route's decision.
func Extract(ctx context.Context, model llm.Model, lines []Line) ([]Proposal, error) {
	system := ExtractPromptMarker + ` Propose at most 5 memories worth keeping for months: people's stated preferences about how they want to be served, procedures, and durable operational knowledge.
Never propose questions, task requests, point-in-time figures, secrets, or anything the transcript does not state.
Each memory: a kind (preference, procedure or knowledge), canonical self-contained content without "I" or names of who said it ("Prefers terse PR summaries", "Deploys go out on Tuesdays after QA sign-off"), an optional expiry (ISO 8601), and evidence: the indices of the lines that state it.
Answer with JSON only: {"memories": [{"kind": "…", "content": "…", "expires": "", "evidence": [0]}]}`
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
	resp, err := model.Complete(ctx, llm.Request{System: system, Messages: []llm.Message{{Role: llm.RoleUser, Text: b.String()}}, MaxTokens: 800})
	if err != nil {
		return nil, fmt.Errorf("extract: %w", err)
	}
	text := strings.TrimSpace(resp.Text)
	if i := strings.Index(text, "{"); i >= 0 {
		text = text[i:]
	}
	if i := strings.LastIndex(text, "}"); i >= 0 {
		text = text[:i+1]
	}
	var out struct {
		Memories []Proposal `json:"memories"`
	}
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		return nil, fmt.Errorf("extract: answer is not the JSON asked for: %w", err)
	}
	if len(out.Memories) > MaxProposals {
		out.Memories = out.Memories[:MaxProposals]
	}
	return out.Memories, nil
}

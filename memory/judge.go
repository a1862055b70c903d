package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/mnemo-bot/mnemo/detect"
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

// DecidePromptMarker starts the prompt that decides how a new memory
// relates to the stored ones.
const DecidePromptMarker = "You decide how a new memory relates to the memories already stored about the same subject."

// SensitiveCategories are the special categories of personal data the
// review names to the model (ethnicity is racial or ethnic origin; genetic
// data is health). A memory in one of them is stored only where it was
// said and never leaves it.
var SensitiveCategories = []string{"health", "finances", "legal", "sexuality", "religion", "politics", "union", "ethnicity", "third_party"}

// NotSensitive is the review's answer for a memory in none of
// SensitiveCategories.
const NotSensitive = "none"

// ReviewSchema is the review's answer: whether to store, why, the canonical
// sentence, its sensitive category (one of SensitiveCategories, or "none"),
// the memory restated without its sensitive part, retrieval cues, and an end
// date when the memory states its own.
var ReviewSchema = &llm.Schema{Name: "memory_review", Description: "The verdict on one memory.", JSON: json.RawMessage(`{
  "type": "object",
  "properties": {
    "store": {"type": "boolean"},
    "reason": {"type": "string", "minLength": 1, "description": "Why, in a sentence a person can read."},
    "canonical": {"type": "string", "description": "The memory as one self-contained sentence; empty when not stored."},
    "sensitive": {"type": "string", "enum": ["none", "health", "finances", "legal", "sexuality", "religion", "politics", "union", "ethnicity", "third_party"], "description": "The sensitive category of what the memory means, whoever it is about and however it is worded; none when it is in no category."},
    "restated": {"type": "string", "description": "When the memory is sensitive only because of one part, such as the reason for a preference, the memory restated without that part; else empty."},
    "cues": {"type": "array", "items": {"type": "string", "maxLength": 60}, "maxItems": 8, "description": "Words and short questions a person would use when this memory is relevant."},
    "expires": {"type": "string", "pattern": "^$|^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}(:[0-9]{2}([.][0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})?)?)?$", "description": "ISO 8601 date (2026-05-01) or date-time when the memory states its own end, else empty."}
  },
  "required": ["store", "reason", "canonical", "sensitive", "restated", "cues", "expires"],
  "additionalProperties": false
}`)}

// Review asks the model whether content is worth storing and how to keep it.
func (j ModelJudge) Review(ctx context.Context, content string, kind Kind) (ReviewVerdict, error) {
	system := ReviewPromptMarker + ` Refuse secrets and credentials, government ids, payment cards and bank accounts, point-in-time figures, personal facts about a third party, and vague or not self-contained text.
Name the sensitive category of what the memory means, however it is worded and whoever it is about: health (conditions, treatment, medication, appointments, pregnancy, genetic data), finances, legal matters, sexuality (and gender identity), religion, politics, union membership, racial or ethnic origin (ethnicity), or other people's personal data (third_party); otherwise answer none. "Takes statins every evening" is health; a preference with such a reason is too, however the reason is attached ("Prefers late starts on dialysis days", "Prefers no Tuesday meetings (therapy)", "Prefers Fridays off — Jummah").
When the memory is sensitive only because of one part, such as the reason for a preference, give it restated without that part ("Prefers late starts"); otherwise leave restated empty.
When storing, give the memory as one canonical, self-contained sentence without "I" or "the user" (for example "Prefers terse PR summaries"), up to 8 short retrieval cues (words and questions someone would use when it matters: "timezone", "what time is it for me"), and an expiry date when the memory states its own end ("until Friday"). A rejection always says why.`
	var v struct {
		Store     bool     `json:"store"`
		Reason    string   `json:"reason"`
		Canonical string   `json:"canonical"`
		Sensitive string   `json:"sensitive"`
		Restated  string   `json:"restated"`
		Cues      []string `json:"cues"`
		Expires   string   `json:"expires"`
	}
	// What the schema can't say: a memory to store has its sentence, and
	// its end is a date. An answer missing either is invalid and asked for
	// once more, never read as the memory's own text or as no end.
	err := llm.CompleteJSONChecked(ctx, j.Model, llm.Request{
		System: system, Messages: []llm.Message{{Role: llm.RoleUser, Text: fmt.Sprintf("Kind: %s\nMemory: %s", kind, content)}},
		MaxTokens: 400, Schema: ReviewSchema,
	}, &v, func() error {
		if v.Store && strings.TrimSpace(v.Canonical) == "" {
			return errors.New("store without the canonical sentence")
		}
		if v.Expires != "" {
			if _, err := ParseExpiry(v.Expires, time.Time{}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return ReviewVerdict{}, fmt.Errorf("memory review: %w", err)
	}
	sensitive := v.Sensitive
	if sensitive == NotSensitive {
		sensitive = ""
	}
	// The reason is logged and shown: a secret the model quotes in it is
	// redacted here, where it enters mnemo.
	return ReviewVerdict{Store: v.Store, Reason: detect.Redact(v.Reason), Canonical: v.Canonical, Sensitive: sensitive, Restated: v.Restated, Cues: v.Cues, Expires: v.Expires}, nil
}

// DecideSchema is the update decision: add, duplicate of an id, update of an
// id (with the merged content), or supersede ids.
var DecideSchema = &llm.Schema{Name: "memory_update_decision", Description: "How a new memory relates to stored ones.", JSON: json.RawMessage(`{
  "type": "object",
  "properties": {
    "decision": {"type": "string", "enum": ["add", "duplicate", "update", "supersede"]},
    "target": {"type": "string", "description": "For duplicate and update: the id of the stored memory; else empty."},
    "merged": {"type": "string", "description": "For update: the stored memory rewritten to include the new one, one sentence; else empty."},
    "supersedes": {"type": "array", "items": {"type": "string"}, "description": "For supersede: the ids the new memory makes wrong; else empty."}
  },
  "required": ["decision", "target", "merged", "supersedes"],
  "additionalProperties": false
}`)}

// Decide asks the model how newer relates to the stored candidates.
func (j ModelJudge) Decide(ctx context.Context, newer string, kind Kind, candidates []Memory) (Decision, error) {
	system := DecidePromptMarker + ` Answer "duplicate" with its id when a stored memory already says the same thing in other words; "update" with its id and the merged sentence when the new one adds to or refines a stored one ("Prefers risk notes first in PR summaries" + "also wants a test plan" → "Prefers PR summaries with risk notes first and a test plan"); "supersede" with the ids when the new one makes stored ones wrong (a changed preference, a moved date, a new owner); otherwise "add". Only use ids listed.`
	var b strings.Builder
	fmt.Fprintf(&b, "New (%s): %s\nStored:\n", kind, newer)
	for _, c := range candidates {
		fmt.Fprintf(&b, "- id %s (%s): %s\n", c.ID, c.Kind, c.Content)
	}
	listed := make(map[uuid.UUID]bool, len(candidates))
	for _, c := range candidates {
		listed[c.ID] = true
	}
	var v decideAnswer
	var d Decision
	// What the schema can't say is checked as part of the answer, so an
	// answer that breaks it is asked for once more, like one that breaks
	// the schema.
	err := llm.CompleteJSONChecked(ctx, j.Model, llm.Request{
		System: system, Messages: []llm.Message{{Role: llm.RoleUser, Text: b.String()}}, MaxTokens: 400, Schema: DecideSchema,
	}, &v, func() (err error) {
		d, err = v.decision(listed)
		return err
	})
	if err != nil {
		return Decision{}, fmt.Errorf("memory update decision: %w", err)
	}
	return d, nil
}

// decision is the answer as a Decision, or why it is not one: its fields
// contradict each other, or it names an id that was not listed.
func (a decideAnswer) decision(listed map[uuid.UUID]bool) (Decision, error) {
	if err := a.consistent(); err != nil {
		return Decision{}, err
	}
	id := func(s string) (uuid.UUID, error) {
		u, err := uuid.Parse(strings.TrimSpace(s))
		if err != nil || !listed[u] {
			return uuid.Nil, fmt.Errorf("%q is not one of the ids listed", s)
		}
		return u, nil
	}
	d := Decision{Action: Action(a.Decision), Merged: a.Merged}
	if strings.TrimSpace(a.Target) != "" {
		t, err := id(a.Target)
		if err != nil {
			return Decision{}, fmt.Errorf("target %w", err)
		}
		d.Target = t
	}
	for _, s := range a.Supersedes {
		u, err := id(s)
		if err != nil {
			return Decision{}, err
		}
		d.Replaces = append(d.Replaces, u)
	}
	return d, nil
}

// decideAnswer is the model's answer to Decide, as DecideSchema has it.
type decideAnswer struct {
	Decision   string   `json:"decision"`
	Target     string   `json:"target"`
	Merged     string   `json:"merged"`
	Supersedes []string `json:"supersedes"`
}

// consistent is what the schema can't say: each decision has the fields
// DecideSchema gives it and leaves the others empty. An answer whose
// fields contradict its decision ("add" naming a target, "supersede" with
// a target, "duplicate" or "update" superseding ids) says two things, and
// is invalid rather than read as one of them.
func (a decideAnswer) consistent() error {
	target, merged, supersedes := strings.TrimSpace(a.Target) != "", strings.TrimSpace(a.Merged) != "", len(a.Supersedes) > 0
	var want, not []string
	switch Action(a.Decision) {
	case ActionAdd:
		not = []string{"target", "merged", "supersedes"}
	case ActionDuplicate:
		want, not = []string{"target"}, []string{"merged", "supersedes"}
	case ActionUpdate:
		want, not = []string{"target", "merged"}, []string{"supersedes"}
	case ActionSupersede:
		want, not = []string{"supersedes"}, []string{"target", "merged"}
	default:
		return fmt.Errorf("decision %q is none of add, duplicate, update, supersede", a.Decision)
	}
	has := map[string]bool{"target": target, "merged": merged, "supersedes": supersedes}
	for _, f := range want {
		if !has[f] {
			return fmt.Errorf("%q without %s", a.Decision, f)
		}
	}
	for _, f := range not {
		if has[f] {
			return fmt.Errorf("%q with %s, which only %s", a.Decision, f, map[string]string{"target": "duplicate and update name", "merged": "update gives", "supersedes": "supersede names"}[f])
		}
	}
	return nil
}

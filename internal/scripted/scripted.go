// Package scripted is a model for tests that knows nothing of mnemo's tool
// names: it reads them from the tool list and the tool results, the way a
// real model must. It remembers when asked to remember, forgets when asked
// to forget, and otherwise answers with what its prompt held.
package scripted

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/mnemo-bot/mnemo/internal/fakellm"
	"github.com/mnemo-bot/mnemo/learn"
	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/memory"
)

var (
	rememberRe = regexp.MustCompile(`(?is)\bremember(?: that)?\s+(.+)$`)
	rememberAt = regexp.MustCompile(`(?is)^(.+?)[,.;]?\s*(?:please\s+)?remember (?:that|this)[.!]?$`)
	fillerRe   = regexp.MustCompile(`(?i)^(honestly|tbh|fwiw|ngl|btw|so|well|ok|okay)[,:]?\s+`)
	forgetRe   = regexp.MustCompile(`(?is)\bforget(?: that| about)?\s+(.+)$`)
	sourcesRe  = regexp.MustCompile(`Available sources:(.*)`)
	memoryLine = regexp.MustCompile(`(?m)^> \[[^\]]*\] (.+)$`)
	lineRe     = regexp.MustCompile(`(?m)^\[(\d+)\] ([^,]+), (\w+): (.*)$`)
	preferRe   = regexp.MustCompile(`(?i)\bI (?:really )?prefer ([^.!?]+)`)
	sentenceRe = regexp.MustCompile(`[^.!?]+[.!?]?`)
	procRe     = regexp.MustCompile(`(?i)\b(always|every|before|after|must|go out|goes out)\b`)
)

// extract proposes, naively, a preference for every "I prefer …" and a
// procedure for every statement of routine, citing the line it came from.
// It does not check who said what: that is the router's job.
func extract(req *fakellm.Request) fakellm.Reply {
	var out []map[string]any
	for _, m := range lineRe.FindAllStringSubmatch(req.Messages[len(req.Messages)-1].Text, -1) {
		if strings.HasPrefix(m[2], "mnemo") || len(out) == learn.MaxProposals {
			continue
		}
		idx := 0
		fmt.Sscan(m[1], &idx)
		text := strings.TrimSpace(strings.ReplaceAll(m[4], "@mnemo", ""))
		switch {
		case preferRe.MatchString(text):
			out = append(out, map[string]any{"kind": "preference", "content": "Prefers " + strings.TrimSpace(preferRe.FindStringSubmatch(text)[1]), "evidence": []int{idx}})
		default:
			for _, sentence := range sentenceRe.FindAllString(text, -1) {
				sentence = strings.TrimSpace(sentence)
				if procRe.MatchString(sentence) && !strings.HasSuffix(sentence, "?") {
					sentence = strings.TrimRight(strings.TrimPrefix(sentence, "FYI: "), ".!")
					out = append(out, map[string]any{"kind": "procedure", "content": strings.ToUpper(sentence[:1]) + sentence[1:], "evidence": []int{idx}})
					break
				}
			}
		}
	}
	if out == nil {
		out = []map[string]any{}
	}
	for _, m := range out {
		m["expires"] = ""
	}
	b, _ := json.Marshal(map[string]any{"memories": out})
	return fakellm.Reply{JSON: string(b)}
}

// Memory is the Script: it drives the catalog from what it is shown.
func Memory() fakellm.Script {
	return func(_ int, req *fakellm.Request) fakellm.Reply {
		switch {
		case strings.HasPrefix(req.System, memory.ReviewPromptMarker):
			return review(req)
		case strings.HasPrefix(req.System, memory.DecidePromptMarker):
			return decide(req)
		case strings.HasPrefix(req.System, learn.ExtractPromptMarker):
			return extract(req)
		}
		return turn(req)
	}
}

func review(req *fakellm.Request) fakellm.Reply {
	text := req.Messages[len(req.Messages)-1].Text
	content := text[strings.Index(text, "Memory: ")+len("Memory: "):]
	b, _ := json.Marshal(map[string]any{"store": true, "reason": "durable", "canonical": content, "sensitive": "", "cues": []string{}, "expires": ""})
	return fakellm.Reply{JSON: string(b)}
}

// lastHuman is the text of the last user message that is not tool results.
func lastHuman(req *fakellm.Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		if m.Role == llm.RoleUser && len(m.ToolResults) == 0 {
			// Multi-speaker messages are "Name: text" joined by blank lines.
			parts := strings.Split(m.Text, "\n\n")
			last := parts[len(parts)-1]
			if i := strings.Index(last, ": "); i >= 0 {
				last = last[i+2:]
			}
			return strings.TrimSpace(last)
		}
	}
	return ""
}

// catalog finds the search and execute tools by what their descriptions
// and schemas say, not by name, and the sources whose summary is about memory.
func catalog(req *fakellm.Request) (search, execute string, sources []string) {
	for _, t := range req.Tools {
		var schema struct {
			Properties map[string]any `json:"properties"`
		}
		_ = json.Unmarshal(t.InputSchema, &schema)
		if _, ok := schema.Properties["tool_name"]; ok {
			execute = t.Name
		}
		if m := sourcesRe.FindStringSubmatch(t.Description); m != nil {
			search = t.Name
			for _, part := range strings.Split(m[1], ";") {
				if name, summary, ok := strings.Cut(strings.TrimSpace(part), " — "); ok && strings.Contains(summary, "memory") {
					sources = append(sources, name)
				}
			}
		}
	}
	return
}

func turn(req *fakellm.Request) fakellm.Reply {
	search, execute, sources := catalog(req)
	last := req.Messages[len(req.Messages)-1]
	human := lastHuman(req)
	wantRemember := rememberAt.FindStringSubmatch(human)
	if wantRemember == nil {
		wantRemember = rememberRe.FindStringSubmatch(human)
	}
	wantForget := forgetRe.FindStringSubmatch(human)
	if len(last.ToolResults) == 0 {
		if (wantRemember == nil && wantForget == nil) || search == "" {
			return answer(req)
		}
		args := map[string]any{}
		if len(sources) > 0 {
			args["source"] = sources[0] // the source whose summary speaks of memory
		}
		in, _ := json.Marshal(args)
		return fakellm.Reply{ToolCalls: []llm.ToolCall{{Name: search, Input: in}}}
	}
	res := last.ToolResults[0].Content
	var found struct {
		Tools []struct {
			ToolName    string `json:"tool_name"`
			Description string `json:"description"`
		} `json:"tools"`
		Result json.RawMessage `json:"result"`
		OK     bool            `json:"ok"`
	}
	_ = json.Unmarshal([]byte(res), &found)
	if len(found.Tools) > 0 && execute != "" {
		verb, args := "Remember", map[string]any{}
		if wantForget != nil {
			verb, args = "Forget", map[string]any{"memory": strings.TrimSpace(wantForget[1])}
		} else {
			// Like a model would, it drops conversational filler.
			args["content"] = fillerRe.ReplaceAllString(strings.TrimSpace(wantRemember[1]), "")
		}
		for _, t := range found.Tools {
			if strings.HasPrefix(t.Description, verb) {
				in, _ := json.Marshal(map[string]any{"tool_name": t.ToolName, "arguments": args})
				return fakellm.Reply{ToolCalls: []llm.ToolCall{{Name: execute, Input: in}}}
			}
		}
		return fakellm.Reply{Text: "I could not find a tool to " + strings.ToLower(verb) + " with."}
	}
	var r struct {
		Stored    *bool  `json:"stored"`
		Forgotten *bool  `json:"forgotten"`
		Content   string `json:"content"`
		Reason    string `json:"reason"`
	}
	_ = json.Unmarshal(found.Result, &r)
	switch {
	case r.Stored != nil && *r.Stored:
		return fakellm.Reply{Text: "Got it, I'll remember: " + r.Content}
	case r.Forgotten != nil && *r.Forgotten:
		return fakellm.Reply{Text: "Done, I've forgotten that."}
	case r.Reason != "":
		return fakellm.Reply{Text: "I didn't do that: " + r.Reason}
	}
	return fakellm.Reply{Text: "The tool said: " + res}
}

// answer replies with the memories its prompt carried, so tests can see
// recall in the reply too.
func answer(req *fakellm.Request) fakellm.Reply {
	ms := memoryLine.FindAllStringSubmatch(req.System, -1)
	if len(ms) == 0 {
		return fakellm.Reply{Text: "Hello! I don't have anything relevant remembered."}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "From memory (%d):", len(ms))
	for _, m := range ms {
		b.WriteString("\n- " + m[1])
	}
	return fakellm.Reply{Text: b.String()}
}

// decide answers the update decision like a careful model would, for the
// cases the evals script: the same words in another order or with filler
// are a duplicate; "now"/"instead"/"no longer" supersede the closest
// candidate; "also" updates it; anything else is added.
func decide(req *fakellm.Request) fakellm.Reply {
	text := req.Messages[len(req.Messages)-1].Text
	newer, rest, _ := strings.Cut(text, "\nStored:\n")
	if i := strings.Index(newer, "): "); i >= 0 {
		newer = newer[i+3:]
	}
	type cand struct{ id, content string }
	var cands []cand
	for _, line := range strings.Split(rest, "\n") {
		m := candRe.FindStringSubmatch(line)
		if m != nil {
			cands = append(cands, cand{m[1], m[2]})
		}
	}
	answer := func(decision, target, merged string, supersedes []string) fakellm.Reply {
		if supersedes == nil {
			supersedes = []string{}
		}
		b, _ := json.Marshal(map[string]any{"decision": decision, "target": target, "merged": merged, "supersedes": supersedes})
		return fakellm.Reply{JSON: string(b)}
	}
	best, bestScore := cand{}, 0.0
	for _, c := range cands {
		if s := overlap(newer, c.content); s > bestScore {
			best, bestScore = c, s
		}
	}
	low := strings.ToLower(newer)
	switch {
	case best.id == "" || bestScore < 0.5:
		return answer("add", "", "", nil)
	case strings.Contains(low, " now ") || strings.Contains(low, "instead") || strings.Contains(low, "no longer"):
		return answer("supersede", "", "", []string{best.id})
	case strings.HasPrefix(low, "also ") || strings.Contains(low, " also "):
		return answer("update", best.id, best.content+", and "+strings.TrimSpace(strings.Replace(newer, "also ", "", 1)), nil)
	case bestScore >= 0.7:
		return answer("duplicate", best.id, "", nil)
	}
	return answer("add", "", "", nil)
}

var candRe = regexp.MustCompile(`^- id ([0-9a-f-]{36}) \([a-z]+\): (.+)$`)

// overlap is the share of the shorter text's content words the other has.
func overlap(a, b string) float64 {
	wa, wb := words(a), words(b)
	if len(wa) == 0 || len(wb) == 0 {
		return 0
	}
	if len(wb) < len(wa) {
		wa, wb = wb, wa
	}
	n := 0
	for w := range wa {
		if wb[w] {
			n++
		}
	}
	return float64(n) / float64(len(wa))
}

var stop = map[string]bool{"the": true, "a": true, "an": true, "for": true, "of": true, "to": true, "in": true, "and": true, "i": true, "still": true, "want": true, "wants": true, "prefers": true, "prefer": true, "with": true, "is": true, "at": true, "on": true}

func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') }) {
		w = strings.TrimSuffix(w, "s")
		if !stop[w] && w != "" {
			out[w] = true
		}
	}
	return out
}

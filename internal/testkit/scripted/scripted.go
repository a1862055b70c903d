package scripted

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/mnemo-bot/mnemo/internal/testkit/fakellm"
	"github.com/mnemo-bot/mnemo/learn"
	"github.com/mnemo-bot/mnemo/llm"
	"github.com/mnemo-bot/mnemo/memory"
)

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

var (
	rememberRe = regexp.MustCompile(`(?is)\bremember(?: that)?\s+(.+)$`)
	rememberAt = regexp.MustCompile(`(?is)^(.+?)[,.;]?\s*(?:please\s+)?remember (?:that|this)[.!]?$`)
	fillerRe   = regexp.MustCompile(`(?i)^(honestly|tbh|fwiw|ngl|btw|so|well|ok|okay)[,:]?\s+`)
	forgetRe   = regexp.MustCompile(`(?is)\bforget(?: that| about)?\s+(.+)$`)
	listRe     = regexp.MustCompile(`(?i)\b(list (?:my|your|the) memories|what do you remember about me)\b`)
	recallRe   = regexp.MustCompile(`(?is)\b(?:search (?:your )?memor(?:y|ies) for|what do you remember about)\s+(.+?)\??$`)
	affirmRe   = regexp.MustCompile(`(?i)^(yes|yep|yeah|sure|ok|okay|please do|go ahead)\b[^?]{0,30}$`)
	helpRe     = regexp.MustCompile(`(?i)\bcan you help(?: me)? with (.+?)\??$`)
	offerRe    = regexp.MustCompile(`Want me to (.+?)\?`)
	referRe    = regexp.MustCompile(`(?i)^the (?:(first|second|third|fourth|fifth|last) one|one (?:about|on|with) (.+))$`)
	listedRe   = regexp.MustCompile(`(?m)^(\d+)\. \[id ([0-9a-f]{4,36})\] (.+)$`)
	sourcesRe  = regexp.MustCompile(`Available sources:(.*)`)
	memoryLine = regexp.MustCompile(`(?m)^> \[[^\]]*\] (.+)$`)
)

// intent is what the scripted model was asked to do with memory, and the
// description prefix of the deferred tool that does it.
type intent struct {
	verb string // the tool's description starts with it
	args map[string]any
	// reply says what was done, from the tool's result.
	reply func(result json.RawMessage) string
	// refuse is the answer when the request can't be turned into a call.
	refuse string
}

// intentOf reads the last human message, and the conversation for what it
// refers to ("forget the second one").
func intentOf(req *fakellm.Request) *intent {
	human := lastHuman(req)
	if m := forgetRe.FindStringSubmatch(human); m != nil {
		ref := strings.TrimRight(strings.TrimSpace(m[1]), ".!")
		in := &intent{verb: "Forget", reply: stored}
		if o := referRe.FindStringSubmatch(ref); o != nil {
			// "the second one", "the one about dark mode": a memory of the
			// last list it gave, which it names by the id that list showed.
			id := listed(req, strings.ToLower(o[1]), o[2])
			if id == "" {
				in.refuse = "Which one? I have no list of memories here to choose from."
			}
			ref = id
		}
		in.args = map[string]any{"memory": ref}
		return in
	}
	if listRe.MatchString(human) {
		return &intent{verb: "List", args: map[string]any{}, reply: list}
	}
	if m := recallRe.FindStringSubmatch(human); m != nil {
		return &intent{verb: "Search", args: map[string]any{"query": keywords(m[1])}, reply: best}
	}
	m := rememberAt.FindStringSubmatch(human)
	if m == nil {
		m = rememberRe.FindStringSubmatch(human)
	}
	if m != nil {
		// Like a model would, it drops conversational filler; the review
		// states it without "I".
		return &intent{verb: "Remember", args: map[string]any{"content": fillerRe.ReplaceAllString(strings.TrimSpace(m[1]), "")}, reply: stored}
	}
	return nil
}

var questionWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`how long many much when where what who whom which why is are was were do does did
		the a an of to in on for at by with about my our your their it its be been can could should would`) {
		questionWords[w] = true
	}
}

// keywords is the search query a model writes for a question: its content
// words ("when the staging database is refreshed" → "staging database
// refreshed").
func keywords(question string) string {
	var out []string
	for _, w := range strings.Fields(strings.TrimRight(question, "?!. ")) {
		if !questionWords[strings.ToLower(w)] {
			out = append(out, w)
		}
	}
	return strings.Join(out, " ")
}

// listed finds, in the last numbered list of memories the bot gave, the id
// of the one an ordinal points at, or else of the one that shares the most
// words with about.
func listed(req *fakellm.Request, ordinal, about string) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		if m.Role != llm.RoleAssistant {
			continue
		}
		items := listedRe.FindAllStringSubmatch(m.Text, -1)
		if len(items) == 0 {
			continue
		}
		if ordinal != "" {
			n := map[string]int{"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "last": len(items)}[ordinal]
			if n <= len(items) {
				return items[n-1][2]
			}
			return ""
		}
		id, score := "", 0.0
		for _, it := range items {
			if s := overlap(about, it[3]); s > score {
				id, score = it[2], s
			}
		}
		return id
	}
	return ""
}

func turn(req *fakellm.Request) fakellm.Reply {
	search, execute, sources := catalog(req)
	last := req.Messages[len(req.Messages)-1]
	in := intentOf(req)
	if len(last.ToolResults) == 0 {
		switch {
		case in != nil && in.refuse != "":
			return fakellm.Reply{Text: in.refuse}
		case in == nil || search == "":
			return converse(req)
		}
		args := map[string]any{}
		if len(sources) > 0 {
			args["source"] = sources[0] // the source whose summary speaks of memory
		}
		b, _ := json.Marshal(args)
		return fakellm.Reply{ToolCalls: []llm.ToolCall{{Name: search, Input: b}}}
	}
	res := last.ToolResults[0].Content
	var found struct {
		Tools []struct {
			ToolName    string `json:"tool_name"`
			Description string `json:"description"`
		} `json:"tools"`
		Result json.RawMessage `json:"result"`
	}
	_ = json.Unmarshal([]byte(res), &found)
	if in == nil {
		return fakellm.Reply{Text: "The tool said: " + res}
	}
	if len(found.Tools) > 0 && execute != "" {
		for _, t := range found.Tools {
			if strings.HasPrefix(t.Description, in.verb) {
				b, _ := json.Marshal(map[string]any{"tool_name": t.ToolName, "arguments": in.args})
				return fakellm.Reply{ToolCalls: []llm.ToolCall{{Name: execute, Input: b}}}
			}
		}
		return fakellm.Reply{Text: "I could not find a tool to " + strings.ToLower(in.verb) + " with."}
	}
	if found.Result == nil {
		return fakellm.Reply{Text: "The tool said: " + res}
	}
	return fakellm.Reply{Text: in.reply(found.Result)}
}

// stored answers a remember or forget from its result.
func stored(result json.RawMessage) string {
	var r struct {
		Stored     *bool    `json:"stored"`
		Forgotten  *bool    `json:"forgotten"`
		Content    string   `json:"content"`
		Reason     string   `json:"reason"`
		Superseded []string `json:"superseded"`
	}
	_ = json.Unmarshal(result, &r)
	switch {
	case r.Stored != nil && *r.Stored && len(r.Superseded) > 0:
		return "Got it, I'll remember: " + r.Content + " (it replaces: " + strings.Join(r.Superseded, "; ") + ")"
	case r.Stored != nil && *r.Stored:
		return "Got it, I'll remember: " + r.Content
	case r.Forgotten != nil && *r.Forgotten:
		return "Done, I've forgotten that."
	case r.Reason != "":
		return "I didn't do that: " + r.Reason
	}
	return "The tool said: " + string(result)
}

type views struct {
	Memories []struct {
		ID      string `json:"id"`
		Content string `json:"content"`
	} `json:"memories"`
}

// list numbers every memory with its id, so a follow-up can name one.
func list(result json.RawMessage) string {
	var v views
	_ = json.Unmarshal(result, &v)
	if len(v.Memories) == 0 {
		return "I don't remember anything here."
	}
	var b strings.Builder
	b.WriteString("Here is what I remember:")
	for i, m := range v.Memories {
		fmt.Fprintf(&b, "\n%d. [id %s] %s", i+1, m.ID, m.Content)
	}
	return b.String()
}

// best answers from the search's best-ranked memory, as a model that trusts
// the ranking would.
func best(result json.RawMessage) string {
	var v views
	_ = json.Unmarshal(result, &v)
	if len(v.Memories) == 0 {
		return "I found nothing about that in memory."
	}
	return fmt.Sprintf("From memory: %s (id %s)", v.Memories[0].Content, v.Memories[0].ID)
}

// converse answers without tools: it follows up on its own offer when told
// yes, offers to help when asked for help, and otherwise answers with the
// memories its prompt carried, so tests can see recall in the reply too.
func converse(req *fakellm.Request) fakellm.Reply {
	human := lastHuman(req)
	if affirmRe.MatchString(human) {
		for i := len(req.Messages) - 2; i >= 0; i-- {
			if m := req.Messages[i]; m.Role == llm.RoleAssistant {
				if o := offerRe.FindStringSubmatch(m.Text); o != nil {
					return fakellm.Reply{Text: "On it: I'll " + o[1] + "."}
				}
			}
		}
		return fakellm.Reply{Text: "Sorry, I'm not sure what you'd like me to go ahead with."}
	}
	if m := helpRe.FindStringSubmatch(human); m != nil {
		return fakellm.Reply{Text: "Happy to. Want me to take care of " + strings.TrimSpace(m[1]) + " now?"}
	}
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

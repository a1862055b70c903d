package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/tools"
)

// Source is the catalog source of the memory tools.
const Source = "memory"

// SourceSummary is the one line searchTools shows for the memory source.
const SourceSummary = "long-term memory: remember, recall, list and forget"

// Tool names, as executeTool accepts them.
const (
	ToolRemember = "memory__remember"
	ToolRecall   = "memory__recall"
	ToolList     = "memory__list"
	ToolForget   = "memory__forget"
)

// Register adds the memory source and its tools to reg. Writes made through
// them are attributed to the invocation's actor and recorded as inv.WrittenBy.
func (s *Store) Register(reg *tools.Registry) error {
	reg.AddSource(Source, SourceSummary)
	for _, t := range s.Tools() {
		if err := reg.Register(t); err != nil {
			return err
		}
	}
	return nil
}

// Tools lists the memory tools, for the registry and the MCP server.
func (s *Store) Tools() []tools.Tool {
	return []tools.Tool{
		{
			Name: ToolRemember, Source: Source, Exposure: tools.Deferred, Writes: true, MCPName: "remember",
			Description: "Remember something for the long term when someone asks you to (\"remember that…\", \"note that I prefer…\").\n\n" +
				"Pass content as one canonical, self-contained sentence without \"I\" or \"the user\": \"Prefers terse PR summaries\", \"Deploys go out on Tuesdays after QA sign-off\". " +
				"Preferences are stored for the person speaking; procedures and knowledge said in a channel are shared with that channel. " +
				"Secrets, point-in-time figures, other people's personal details and vague text are refused. The result says whether it was stored and why not.",
			InputSchema: json.RawMessage(`{
  "type": "object",
  "properties": {
    "content": {"type": "string", "minLength": 1, "maxLength": 2000, "description": "One canonical, self-contained sentence."},
    "kind": {"type": "string", "enum": ["preference", "procedure", "knowledge"]},
    "scope": {"type": "string", "enum": ["personal", "conversation", "channel", "workspace"], "description": "Who may see it. Optional; chosen from the kind and the place when omitted. conversation: this thread only."},
    "about": {"type": "string", "enum": ["speaker", "channel"], "description": "Optional: whom or what it is about when not the scope's default. speaker: the person asking (a thread-only instruction such as 'in this thread, answer me in French' is scope conversation, about speaker). channel: a channel (with about_channel)."},
    "about_channel": {"type": "string", "pattern": "^[CG][A-Z0-9]+$", "description": "The channel id it is about, from a <#C…> mention; default this channel."},
    "expires": {"type": "string", "description": "ISO 8601 date or date-time, or \"never\"."}
  },
  "required": ["content"],
  "additionalProperties": false
}`),
			Handler: s.rememberTool,
		},
		{
			Name: ToolRecall, Source: Source, Exposure: tools.Deferred, ReadOnly: true, MCPName: "recall",
			Description: "Search long-term memory for what is relevant to a question. Returns id, content, kind, when it was observed, its expiry, and who said it, where and how.",
			InputSchema: json.RawMessage(`{
  "type": "object",
  "properties": {
    "query": {"type": "string", "minLength": 1, "maxLength": 500},
    "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10}
  },
  "required": ["query"],
  "additionalProperties": false
}`),
			Handler: s.recallTool,
		},
		{
			Name: ToolList, Source: Source, Exposure: tools.Deferred, ReadOnly: true, MCPName: "list_memories",
			Description: "List the memories visible here, most relevant to this place first: the person's own preferences, this thread's and this channel's memories.",
			InputSchema: json.RawMessage(`{
  "type": "object",
  "properties": {"limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 20}},
  "additionalProperties": false
}`),
			Handler: s.listTool,
		},
		{
			Name: ToolForget, Source: Source, Exposure: tools.Deferred, Writes: true, Destructive: true, MCPName: "forget",
			Description: "Forget a memory when someone asks you to. Pass the memory id (or its first characters) from recall or list, or words that match exactly one memory; if several match, the candidates come back to choose from. Memories are archived, not deleted.",
			InputSchema: json.RawMessage(`{
  "type": "object",
  "properties": {
    "memory": {"type": "string", "minLength": 1, "maxLength": 500, "description": "An id, an id prefix, or words matching one memory."},
    "reason": {"type": "string", "maxLength": 300}
  },
  "required": ["memory"],
  "additionalProperties": false
}`),
			Handler: s.forgetTool,
		},
	}
}

func (s *Store) rememberTool(ctx context.Context, inv tools.Invocation, raw json.RawMessage) (any, error) {
	var args struct {
		Content      string `json:"content"`
		Kind         string `json:"kind"`
		Scope        string `json:"scope"`
		About        string `json:"about"`
		AboutChannel string `json:"about_channel"`
		Expires      string `json:"expires"`
	}
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, err
	}
	exp, err := ParseExpiry(args.Expires, s.now())
	if err != nil {
		return nil, err
	}
	by := inv.WrittenBy
	if by == "" {
		by = provenance.ByExplicit
	}
	// The words that led to the write come from the live event, like its
	// actor and place, never from the arguments.
	var said []string
	if inv.Said != "" {
		said = []string{inv.Said}
	}
	out, err := s.Remember(ctx, WriteRequest{
		Actor: inv.Actor, Place: inv.Place, MessageTS: inv.MessageTS, Kind: Kind(args.Kind), Scope: Scope(args.Scope),
		Content: args.Content, Said: said, ExpiresAt: exp, WrittenBy: by, About: aboutOf(args.About), AboutChannel: args.AboutChannel,
		Turn: inv.TurnID,
	})
	if errors.Is(err, ErrReviewUnavailable) {
		s.log.Warn().Err(err).Msg("memory review unavailable; nothing stored")
		return nil, errors.New("the memory could not be checked just now, so nothing was stored; it can be tried again in a minute")
	}
	if errors.Is(err, ErrErased) {
		// The person was erased while their turn ran: the model is told,
		// and is not to try again.
		return nil, errors.New("nothing was stored: this conversation has been erased, so nothing of it can be remembered")
	}
	if err != nil {
		return nil, err
	}
	// The result goes to the model and may be quoted here: it names only
	// memories this place may be shown through a model.
	v := ModelAt(inv.Actor, inv.Place)
	res := map[string]any{"stored": out.Status == Stored, "status": string(out.Status), "content": out.Canonical}
	switch out.Status {
	case Rejected:
		res["reason"] = "not stored: " + out.Reason
	case Duplicate:
		res["reason"] = "already remembered; nothing new stored"
		if out.Memory != nil && Visible(v, *out.Memory, Show) {
			res["memory"] = s.view(*out.Memory, inv)
		}
	case Stored:
		if Visible(v, *out.Memory, Show) {
			res["memory"] = s.view(*out.Memory, inv)
		}
		if out.Note != "" {
			res["note"] = out.Note
		}
		var old []string
		for _, m := range out.Superseded {
			if Visible(v, m, Show) {
				old = append(old, m.Content)
			}
		}
		if len(old) > 0 {
			res["superseded"] = old
		}
	}
	return res, nil
}

func (s *Store) recallTool(ctx context.Context, inv tools.Invocation, raw json.RawMessage) (any, error) {
	var args struct {
		Query string `json:"query"`
		Limit int    `json:"limit"`
	}
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, err
	}
	if args.Limit == 0 {
		args.Limit = 10
	}
	ms, err := s.Search(ctx, ModelAt(inv.Actor, inv.Place), args.Query, args.Limit, true)
	if err != nil {
		return nil, err
	}
	return map[string]any{"memories": s.views(ms, inv)}, nil
}

func (s *Store) listTool(ctx context.Context, inv tools.Invocation, raw json.RawMessage) (any, error) {
	var args struct {
		Limit int `json:"limit"`
	}
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, err
	}
	if args.Limit == 0 {
		args.Limit = 20
	}
	ms, err := s.Search(ctx, ModelAt(inv.Actor, inv.Place), "", args.Limit, false)
	if err != nil {
		return nil, err
	}
	return map[string]any{"memories": s.views(ms, inv)}, nil
}

func (s *Store) forgetTool(ctx context.Context, inv tools.Invocation, raw json.RawMessage) (any, error) {
	var args struct {
		Memory string `json:"memory"`
		Reason string `json:"reason"`
	}
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, err
	}
	out, err := s.Forget(ctx, ModelAt(inv.Actor, inv.Place), args.Memory, args.Reason, PathOf(inv.WrittenBy))
	if err != nil {
		return nil, err
	}
	switch {
	case out.Refusal != "":
		return map[string]any{"forgotten": false, "reason": "not allowed: " + out.Refusal}, nil
	case len(out.Candidates) > 0:
		return map[string]any{"forgotten": false, "reason": "several memories match; call again with one id", "candidates": s.views(out.Candidates, inv)}, nil
	}
	return map[string]any{"forgotten": true, "memory": s.view(*out.Forgotten, inv)}, nil
}

// View is a memory as the model and people see it: no Slack ids or
// internal keys, but enough to answer "why do you remember this?".
type View struct {
	ID       string `json:"id"`
	Content  string `json:"content"`
	Kind     string `json:"kind"`
	Scope    string `json:"scope"`
	Observed string `json:"observed"`
	Expires  string `json:"expires,omitempty"`
	Why      string `json:"why"`
}

func (s *Store) views(ms []Memory, inv tools.Invocation) []View {
	out := make([]View, 0, len(ms))
	for _, m := range ms {
		out = append(out, s.view(m, inv))
	}
	return out
}

func (s *Store) view(m Memory, inv tools.Invocation) View {
	v := View{ID: m.ShortID(), Content: m.Content, Kind: string(m.Kind), Scope: string(m.Scope), Observed: m.ObservedAt.UTC().Format(time.DateOnly), Why: Why(m, inv.Actor, inv.Place, s.now())}
	if m.ExpiresAt != nil {
		v.Expires = m.ExpiresAt.UTC().Format(time.DateOnly)
	}
	return v
}

// Why says who said a memory, where, when and how it was stored, relative to
// the viewer and without Slack ids.
func Why(m Memory, viewer provenance.Actor, here provenance.Place, now time.Time) string {
	who := "someone"
	switch {
	case m.ActorID == viewer.ID:
		who = "you"
	case m.ActorName != "":
		who = m.ActorName
	}
	where := "in another conversation"
	switch {
	case m.SourceKey == here.SourceKey:
		where = "in this thread"
	case m.ChannelID == here.Channel:
		where = "in this channel"
	case m.Visibility == provenance.DM:
		where = "in a direct message"
	case m.Visibility == provenance.Public:
		where = "in a public channel"
	}
	how := map[provenance.WrittenBy]string{provenance.ByExplicit: "when asked to remember it", provenance.ByPassive: "learned from the conversation", provenance.ByAdmin: "by an admin", provenance.ByMCP: "through an MCP client"}[m.WrittenBy]
	return fmt.Sprintf("%s said it %s %s; stored %s", who, where, Age(m.ObservedAt, now), how)
}

// Age renders how long ago t was, coarsely.
func Age(t, now time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d minutes ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d hours ago", int(d.Hours()))
	case d < 60*24*time.Hour:
		return fmt.Sprintf("%d days ago", int(d.Hours()/24))
	}
	return "on " + t.UTC().Format(time.DateOnly)
}

// ParseExpiry reads an expiry: empty or "never" for none, or an ISO 8601
// date or date-time, which must be in the future.
func ParseExpiry(s string, now time.Time) (*time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" || strings.EqualFold(s, "never") {
		return nil, nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02T15:04", time.DateOnly} {
		if t, err := time.Parse(layout, s); err == nil {
			if layout == time.DateOnly {
				t = t.Add(24*time.Hour - time.Second)
			}
			if !t.After(now) {
				return nil, fmt.Errorf("expiry %q is in the past", s)
			}
			return &t, nil
		}
	}
	return nil, fmt.Errorf("expiry %q is not an ISO 8601 date or date-time, nor \"never\"", s)
}

// aboutOf maps the remember tool's "about" to a subject type.
func aboutOf(about string) SubjectType {
	switch about {
	case "speaker":
		return SubjectUser
	case "channel":
		return SubjectChannel
	}
	return ""
}

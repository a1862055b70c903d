package memory

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/google/uuid"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/threads"
)

// Search returns the memories v may see that match query, best first: by
// text match (content or retrieval cues), closeness of scope and recency,
// and by meaning too when the store has an Embedder. With an empty query it
// lists the closest and newest. requireMatch drops memories that match
// nothing of the query; without it, this thread's own memories and this
// channel's newest are kept even when they don't, ranked below the
// matches.
func (s *Store) Search(ctx context.Context, v Viewer, query string, limit int, requireMatch bool) ([]Memory, error) {
	fs, err := s.search(ctx, v, Show, query, limit, requireMatch, 0)
	if err != nil {
		return nil, err
	}
	out := make([]Memory, len(fs))
	for i, f := range fs {
		out[i] = f.Memory
	}
	return out, nil
}

// found is a memory a search returned.
type found struct {
	Memory
	cues     string
	matched  bool // matches the query's words, or (with embeddings) its meaning
	reserved bool // one of the asker's own preferences, kept whatever its rank
}

func (s *Store) search(ctx context.Context, v Viewer, use Use, query string, limit int, requireMatch bool, reserve int) ([]found, error) {
	q := db.SearchQuery{
		Query: strings.TrimSpace(sanitize(query)), SourceKey: v.Place.SourceKey, Channel: v.Place.Channel,
		Team: viewerTeam(v), Actor: v.Actor.ID, PrivateViewer: v.Private, Apply: use == Apply, Only: v.only(),
		RequireMatch: requireMatch, Reserve: reserve, Limit: min(max(limit, 1), MaxListLimit),
	}
	q.Fuzzy = len(strings.Fields(q.Query)) <= FuzzyQueryWords
	q.AboutActor = firstPersonQuery.MatchString(q.Query)
	out, err := s.searchLeg(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("memory search: %w", err)
	}
	if v.Guest(v.Place.Team) {
		// An external member of a Slack Connect channel also reads the
		// host's memories of the channel, as a guest; theirs and the
		// channel's are ranked together.
		g := q
		g.Team, g.Only, g.Reserve, g.AboutActor = v.Place.Team, string(ScopeChannel), 0, false
		more, err := s.searchLeg(ctx, g)
		if err != nil {
			return nil, fmt.Errorf("memory search: the shared channel's: %w", err)
		}
		out = merge(out, more, q.Limit)
	}
	if v.Org(v.Place.Org) {
		// The organisation's workspace memories (org-scope memories, opted
		// into), ranked with the workspace's own.
		o := q
		// (The organisation holds workspace memories only: with a shared
		// audience, its Only keeps those said here.)
		o.Team, o.Only, o.Reserve, o.AboutActor = v.Place.Org, cmp.Or(v.only(), string(ScopeWorkspace)), 0, false
		more, err := s.searchLeg(ctx, o)
		if err != nil {
			return nil, fmt.Errorf("memory search: the organisation's: %w", err)
		}
		out = merge(out, more, q.Limit)
	}
	// The query mirrors the rule; the rule has the last word.
	kept := out[:0]
	for _, f := range out {
		if Visible(v, f.Memory, use) {
			kept = append(kept, f)
		}
	}
	return kept, nil
}

// searchLeg searches one team's memories for q.
func (s *Store) searchLeg(ctx context.Context, q db.SearchQuery) ([]found, error) {
	switch {
	case s.vec.on && hasWords(q.Query):
		return s.hybrid(ctx, q)
	case s.embedder != nil && hasWords(q.Query):
		return s.rerank(ctx, q)
	}
	return s.lexical(ctx, q)
}

// merge ranks two legs' results together, best first: the reserved first,
// then up to limit others.
func merge(a, b []found, limit int) []found {
	all := append(append(make([]found, 0, len(a)+len(b)), a...), b...)
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].reserved != all[j].reserved {
			return all[i].reserved
		}
		return all[i].Score > all[j].Score
	})
	out := all[:0]
	n := 0
	for _, f := range all {
		if !f.reserved {
			if n == limit {
				continue
			}
			n++
		}
		out = append(out, f)
	}
	return out
}

func (s *Store) lexical(ctx context.Context, q db.SearchQuery) ([]found, error) {
	rows, err := s.db.Memories().Search(ctx, q)
	if err != nil {
		return nil, err
	}
	out := make([]found, 0, len(rows))
	for _, r := range rows {
		m := fromRow(r.Memory)
		m.Score = r.Score
		out = append(out, found{Memory: m, cues: r.Cues, matched: r.Matched, reserved: r.Reserved})
	}
	return out, nil
}

// firstPersonQuery is a question about the asker ("what time is it for
// me?", "which editor do I use?"): their own memories are what it is about.
var firstPersonQuery = regexp.MustCompile(`(?i)\b(i|i'm|i've|i'd|me|my|mine|myself)\b`)

func hasWords(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}

// FuzzyQueryWords is the longest query (in words) whose unknown words are
// corrected to the workspace's nearest ones: short queries are where a typo
// loses everything, and a long one has other words that match.
const FuzzyQueryWords = 4

// Prompt budget for recall before a turn.
const (
	PromptMemories   = 8
	PromptEachChars  = 600
	PromptTotalChars = 4000
	// PromptReserved is how many of the asker's own preferences recall
	// keeps before every turn, the most relevant first, however many
	// channel memories match better.
	PromptReserved = 3
	// PromptSpare is how many memories recall reads past PromptMemories,
	// to take the place of those the character budget leaves out.
	PromptSpare = 4
)

// ForPrompt picks the memories that go into a turn's prompt: up to
// PromptReserved of the asker's own preferences, then the most relevant
// memories v may have applied, within the prompt budget, best first.
func (s *Store) ForPrompt(ctx context.Context, v Viewer, query string) ([]Memory, error) {
	fs, err := s.search(ctx, v, Apply, query, PromptMemories+PromptSpare, false, PromptReserved)
	if err != nil {
		return nil, err
	}
	trace.SpanFromContext(ctx).SetAttributes(attribute.Int("mnemo.recall.candidates", len(fs)))
	var out []Memory
	total := 0
	take := func(m Memory) {
		if len(out) == PromptMemories {
			return
		}
		if r := []rune(m.Content); len(r) > PromptEachChars {
			m.Content = string(r[:PromptEachChars-1]) + "…"
		}
		if total+len(m.Content) > PromptTotalChars {
			return
		}
		total += len(m.Content)
		out = append(out, m)
	}
	reserved := 0
	for _, f := range fs {
		if f.reserved && reserved < PromptReserved {
			take(f.Memory)
			reserved++
		}
	}
	for _, f := range fs {
		if !f.reserved {
			take(f.Memory)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	return out, nil
}

// get returns one memory by id, whoever may see it: callers check.
func (s *Store) get(ctx context.Context, team string, id uuid.UUID) (Memory, error) {
	r, err := s.db.Memories().Get(ctx, team, id)
	if errors.Is(err, db.ErrNotFound) {
		return Memory{}, ErrNotFound
	}
	if err != nil {
		return Memory{}, fmt.Errorf("memory get: %w", err)
	}
	return fromRow(r), nil
}

// Resolve finds the memories v means by an id or an id prefix, among those
// v may see: a memory v may not see is reported as not found, so an id
// prefix reveals nothing. It returns ErrNotFound, or several candidates when
// ambiguous.
func (s *Store) Resolve(ctx context.Context, v Viewer, ref string) ([]Memory, error) {
	ref = strings.ToLower(strings.TrimSpace(ref))
	id, err := uuid.Parse(ref)
	if err != nil && (len(ref) < 4 || strings.Trim(ref, "0123456789abcdef-") != "") {
		return nil, ErrNotFound
	}
	// An external member of a Slack Connect channel also names the host's
	// memories of the channel (Viewer.Guest).
	teams := []string{viewerTeam(v)}
	if v.Guest(v.Place.Team) {
		teams = append(teams, v.Place.Team)
	}
	if v.Org(v.Place.Org) {
		teams = append(teams, v.Place.Org)
	}
	var cands []Memory
	for _, team := range teams {
		if err == nil {
			m, gerr := s.get(ctx, team, id)
			if errors.Is(gerr, ErrNotFound) {
				continue
			}
			if gerr != nil {
				return nil, gerr
			}
			cands = append(cands, m)
			continue
		}
		rows, lerr := s.db.Memories().ListByIDPrefix(ctx, team, ref)
		if lerr != nil {
			return nil, fmt.Errorf("memory resolve: %w", lerr)
		}
		for _, r := range rows {
			cands = append(cands, fromRow(r))
		}
	}
	cands = visibleOnly(v, cands, Show)
	if len(cands) == 0 {
		return nil, ErrNotFound
	}
	return cands, nil
}

// Filter selects memories for an admin's oversight (`/mnemo memories
// @user|#channel`, export, the operator's CLI).
type Filter struct {
	Team            string
	SubjectUser     string
	Channel         string
	SourceKey       string
	Query           string
	IncludeArchived bool
	Limit, Offset   int
	// After starts the list after this memory, the last of an earlier page.
	After *Cursor
}

// Cursor is where a page of a newest-first list ends.
type Cursor struct {
	CreatedAt time.Time
	ID        uuid.UUID
}

// Cursor is where a page that ends with m ends.
func (m Memory) Cursor() Cursor { return Cursor{CreatedAt: m.CreatedAt, ID: m.ID} }

// List returns the memories f selects that v may see, newest first.
func (s *Store) List(ctx context.Context, v Viewer, f Filter) ([]Memory, error) {
	ms, err := s.listAll(ctx, f)
	if err != nil {
		return nil, err
	}
	return visibleOnly(v, ms, Show), nil
}

// Page is one page of a newest-first list. Next, when set, is where the
// next page starts: more memories may follow.
type Page struct {
	Memories []Memory
	Next     *Cursor
}

// ListPage is List a page at a time: it reads up to f.Limit memories from
// f.After on and returns those v may see, so a page may hold fewer than
// f.Limit and still have a Next.
func (s *Store) ListPage(ctx context.Context, v Viewer, f Filter) (Page, error) {
	p, err := s.page(ctx, f)
	p.Memories = visibleOnly(v, p.Memories, Show)
	return p, err
}

// ListAllPage is ListAll a page at a time, for the operator's CLI.
func (s *Store) ListAllPage(ctx context.Context, f Filter) (Page, error) { return s.page(ctx, f) }

func (s *Store) page(ctx context.Context, f Filter) (Page, error) {
	if f.Limit <= 0 {
		f.Limit = 100
	}
	limit := f.Limit
	f.Limit++
	ms, err := s.listAll(ctx, f)
	if err != nil {
		return Page{}, err
	}
	var p Page
	if len(ms) > limit {
		ms = ms[:limit]
		c := ms[limit-1].Cursor()
		p.Next = &c
	}
	p.Memories = ms
	return p, nil
}

// ListAll returns the memories f selects, whoever may see them: for the
// operator's CLI, which reads the database it runs, never for a person
// in Slack or over MCP.
func (s *Store) ListAll(ctx context.Context, f Filter) ([]Memory, error) { return s.listAll(ctx, f) }

func (s *Store) listAll(ctx context.Context, f Filter) ([]Memory, error) {
	if f.Limit <= 0 {
		f.Limit = 100
	}
	q := db.ListQuery{
		Team: f.Team, SubjectUser: f.SubjectUser, Channel: f.Channel, SourceKey: f.SourceKey,
		IncludeArchived: f.IncludeArchived, Query: sanitize(f.Query), Limit: f.Limit, Offset: f.Offset,
	}
	if f.After != nil {
		q.After = &db.ListCursor{CreatedAt: f.After.CreatedAt, ID: f.After.ID}
	}
	rows, err := s.db.Memories().List(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("memory list: %w", err)
	}
	out := make([]Memory, 0, len(rows))
	for _, r := range rows {
		out = append(out, fromRow(r))
	}
	return out, nil
}

// MineQuery pages through a person's own memories.
type MineQuery struct {
	// Authored lists the shared (channel, workspace, conversation) memories
	// they wrote instead of their personal ones.
	Authored        bool
	IncludeArchived bool
	Limit, Offset   int
}

// Mine returns v's own memories that v may see, newest first: the App Home,
// `/mnemo memories`, self-service export.
func (s *Store) Mine(ctx context.Context, v Viewer, q MineQuery) ([]Memory, error) {
	if q.Limit <= 0 {
		q.Limit = 100
	}
	rows, err := s.db.Memories().ListBySubject(ctx, db.SubjectQuery{
		Team: viewerTeam(v), User: v.Actor.ID, Authored: q.Authored, IncludeArchived: q.IncludeArchived, Limit: q.Limit, Offset: q.Offset,
	})
	if err != nil {
		return nil, fmt.Errorf("my memories: %w", err)
	}
	out := make([]Memory, 0, len(rows))
	for _, r := range rows {
		out = append(out, fromRow(r))
	}
	if q.Authored {
		// The shared memories a person wrote are shown to them wherever
		// they ask, as far as the rule lets them see each where it was
		// said: they said it there.
		mine := out[:0]
		for _, m := range out {
			if Visible(atItsPlace(v, m), m, Show) {
				mine = append(mine, m)
			}
		}
		return mine, nil
	}
	return visibleOnly(v, out, Show), nil
}

// Event is one change in a memory's history.
type Event struct {
	Action  string
	ActorID string
	Path    string
	Reason  string
	Related *uuid.UUID
	At      time.Time
}

// History returns the history of the memory ref names, if v may see it.
func (s *Store) History(ctx context.Context, v Viewer, ref string) (Memory, []Event, error) {
	ms, err := s.Resolve(ctx, v, ref)
	if err != nil {
		return Memory{}, nil, err
	}
	if len(ms) != 1 {
		return Memory{}, nil, fmt.Errorf("history: %q names %d memories; give more of the id", ref, len(ms))
	}
	rows, err := s.db.Memories().History(ctx, ms[0].ID)
	if err != nil {
		return Memory{}, nil, fmt.Errorf("history: %w", err)
	}
	out := make([]Event, 0, len(rows))
	for _, r := range rows {
		out = append(out, Event{Action: r.Action, ActorID: r.ActorID, Path: r.Path, Reason: r.Reason, Related: r.RelatedID, At: r.At})
	}
	return ms[0], out, nil
}

// SweepExpired archives memories past their expiry. Expired memories are
// already invisible to search; the sweep makes that durable.
func (s *Store) SweepExpired(ctx context.Context) (int64, error) {
	n, err := s.db.Memories().ArchiveExpired(ctx)
	if err != nil {
		return 0, fmt.Errorf("memory sweep: %w", err)
	}
	return n, nil
}

// CountPersonal counts a person's active personal memories.
func (s *Store) CountPersonal(ctx context.Context, team, subject string) (int64, error) {
	n, err := s.db.Memories().CountPersonal(ctx, team, subject)
	if err != nil {
		return 0, fmt.Errorf("count: %w", err)
	}
	return n, nil
}

func tsTime(ts string) (time.Time, bool) {
	t, err := threads.ParseTS("message_ts", ts)
	if err != nil {
		return time.Time{}, false
	}
	return t.Time(), true
}

package memory

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/threads"
)

// Search returns the memories visible to actor in place, best first. With an
// empty query it ranks everything visible by closeness and recency.
// requireMatch drops memories that do not match the query's text.
func (s *Store) Search(ctx context.Context, actor provenance.Actor, place provenance.Place, query string, limit int, requireMatch bool) ([]Memory, error) {
	limit = min(max(limit, 1), MaxListLimit)
	query = strings.TrimSpace(query)
	rows, err := s.db.Memories().Search(ctx, db.SearchQuery{
		Query: query, SourceKey: place.SourceKey, Channel: place.Channel,
		Team: place.Team, Actor: actor.ID, RequireMatch: requireMatch, Limit: limit,
		Fuzzy: len(strings.Fields(query)) <= FuzzyQueryWords,
	})
	if err != nil {
		return nil, fmt.Errorf("memory search: %w", err)
	}
	out := make([]Memory, 0, len(rows))
	for _, r := range rows {
		m := fromRow(r.Memory)
		m.Score = r.Score
		out = append(out, m)
	}
	return out, nil
}

// FuzzyQueryWords is the longest query (in words) that trigram similarity
// also matches: short queries are where typos matter, and long ones would pay
// for a similarity computation on every visible memory.
const FuzzyQueryWords = 4

// Prompt budget for recall before a turn.
const (
	PromptMemories   = 8
	PromptEachChars  = 600
	PromptTotalChars = 4000
)

// ForPrompt picks the memories that go into a turn's prompt: the most
// relevant visible ones, within the prompt budget.
func (s *Store) ForPrompt(ctx context.Context, actor provenance.Actor, place provenance.Place, query string) ([]Memory, error) {
	ms, err := s.Search(ctx, actor, place, query, PromptMemories*2, false)
	if err != nil {
		return nil, err
	}
	var out []Memory
	total := 0
	for _, m := range ms {
		if len(out) == PromptMemories {
			break
		}
		if r := []rune(m.Content); len(r) > PromptEachChars {
			m.Content = string(r[:PromptEachChars-1]) + "…"
		}
		if total+len(m.Content) > PromptTotalChars {
			continue
		}
		total += len(m.Content)
		out = append(out, m)
	}
	return out, nil
}

// Get returns one memory by id.
func (s *Store) Get(ctx context.Context, id uuid.UUID) (Memory, error) {
	r, err := s.db.Memories().Get(ctx, id)
	if errors.Is(err, db.ErrNotFound) {
		return Memory{}, ErrNotFound
	}
	if err != nil {
		return Memory{}, fmt.Errorf("memory get: %w", err)
	}
	return fromRow(r), nil
}

// Resolve finds the memory a person means by an id or an id prefix, within
// their team. It returns ErrNotFound, or several candidates when ambiguous.
func (s *Store) Resolve(ctx context.Context, team, ref string) ([]Memory, error) {
	ref = strings.ToLower(strings.TrimSpace(ref))
	if id, err := uuid.Parse(ref); err == nil {
		m, err := s.Get(ctx, id)
		if err != nil || m.Team != team {
			return nil, ErrNotFound
		}
		return []Memory{m}, nil
	}
	if len(ref) < 4 || strings.Trim(ref, "0123456789abcdef-") != "" {
		return nil, ErrNotFound
	}
	rows, err := s.db.Memories().ListByIDPrefix(ctx, team, ref)
	if err != nil {
		return nil, fmt.Errorf("memory resolve: %w", err)
	}
	if len(rows) == 0 {
		return nil, ErrNotFound
	}
	out := make([]Memory, 0, len(rows))
	for _, r := range rows {
		out = append(out, fromRow(r))
	}
	return out, nil
}

// CanForget says whether actor, acting in place, may forget m, and why not.
//   - personal: only its subject, or an admin;
//   - conversation or channel: any person in that conversation or channel;
//   - workspace: its author, or an admin.
func CanForget(actor provenance.Actor, place provenance.Place, m Memory) (bool, string) {
	if !actor.IsHuman() {
		return false, "only a person can forget memories"
	}
	if actor.Team != "" && m.Team != actor.Team {
		return false, "that memory belongs to another workspace"
	}
	switch m.Scope {
	case ScopePersonal:
		if m.SubjectID == actor.ID || actor.IsAdmin {
			return true, ""
		}
		return false, "it is someone else's personal memory; only they or an admin can forget it"
	case ScopeConversation:
		if m.SourceKey == place.SourceKey || m.ChannelID == place.Channel || actor.IsAdmin {
			return true, ""
		}
		return false, "it belongs to a conversation you are not in here; ask from that conversation"
	case ScopeChannel:
		if m.ChannelID == place.Channel || actor.IsAdmin {
			return true, ""
		}
		return false, "it belongs to another channel; ask from that channel"
	case ScopeWorkspace:
		if m.ActorID == actor.ID || actor.IsAdmin {
			return true, ""
		}
		return false, "it is shared across the workspace; only the person who created it or an admin can forget it"
	}
	return false, "unknown scope"
}

// ForgetOutcome is Forget's answer.
type ForgetOutcome struct {
	Forgotten  *Memory
	Candidates []Memory // set when the reference was ambiguous
	Refusal    string   // set when not allowed
}

// Forget archives the one memory ref names: an id, an unambiguous id prefix,
// or a query that matches exactly one memory visible to actor in place.
// It never deletes.
func (s *Store) Forget(ctx context.Context, actor provenance.Actor, place provenance.Place, ref, reason string) (ForgetOutcome, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return ForgetOutcome{}, fmt.Errorf("forget: say which memory: an id or words that match it")
	}
	cands, err := s.Resolve(ctx, place.Team, ref)
	if errors.Is(err, ErrNotFound) {
		cands, err = s.Search(ctx, actor, place, ref, 5, true)
	}
	if err != nil {
		return ForgetOutcome{}, fmt.Errorf("forget: %w", err)
	}
	var active []Memory
	for _, c := range cands {
		if c.ArchivedAt == nil {
			active = append(active, c)
		}
	}
	switch len(active) {
	case 0:
		return ForgetOutcome{}, fmt.Errorf("forget: no active memory matches %q", ref)
	case 1:
	default:
		return ForgetOutcome{Candidates: active}, nil
	}
	return s.ForgetMemory(ctx, actor, place, active[0], reason)
}

// ForgetMemory archives m, a memory the caller has already resolved, if
// actor may forget it from place.
func (s *Store) ForgetMemory(ctx context.Context, actor provenance.Actor, place provenance.Place, m Memory, reason string) (ForgetOutcome, error) {
	if ok, why := CanForget(actor, place, m); !ok {
		return ForgetOutcome{Refusal: why}, nil
	}
	if reason == "" {
		reason = "forgotten on request"
	}
	row, err := s.db.Memories().Archive(ctx, m.ID, reason, actor.ID, nil)
	if errors.Is(err, db.ErrNotFound) {
		return ForgetOutcome{}, fmt.Errorf("forget: %w", ErrNotFound)
	}
	if err != nil {
		return ForgetOutcome{}, fmt.Errorf("forget: %w", err)
	}
	f := fromRow(row)
	s.changed(f)
	return ForgetOutcome{Forgotten: &f}, nil
}

// Restore brings an archived memory back. Only admins restore.
func (s *Store) Restore(ctx context.Context, actor provenance.Actor, id uuid.UUID) (Memory, error) {
	if !actor.IsAdmin {
		return Memory{}, fmt.Errorf("restore: %w: only an admin can restore memories", ErrForbidden)
	}
	row, err := s.db.Memories().Restore(ctx, id)
	if errors.Is(err, db.ErrNotFound) {
		return Memory{}, fmt.Errorf("restore: %w (or it is not archived)", ErrNotFound)
	}
	if err != nil {
		return Memory{}, fmt.Errorf("restore: %w", err)
	}
	m := fromRow(row)
	s.changed(m)
	return m, nil
}

// Filter selects memories for operators and admin views.
type Filter struct {
	Team            string
	SubjectUser     string
	Channel         string
	SourceKey       string
	Query           string
	IncludeArchived bool
	Limit, Offset   int
}

// List returns memories for operators, newest first.
func (s *Store) List(ctx context.Context, f Filter) ([]Memory, error) {
	if f.Limit <= 0 {
		f.Limit = 100
	}
	rows, err := s.db.Memories().List(ctx, db.ListQuery{
		Team: f.Team, SubjectUser: f.SubjectUser, Channel: f.Channel, SourceKey: f.SourceKey,
		IncludeArchived: f.IncludeArchived, Query: f.Query, Limit: f.Limit, Offset: f.Offset,
	})
	if err != nil {
		return nil, fmt.Errorf("memory list: %w", err)
	}
	out := make([]Memory, 0, len(rows))
	for _, r := range rows {
		out = append(out, fromRow(r))
	}
	return out, nil
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

func tsTime(ts string) (time.Time, bool) {
	t, err := threads.ParseTS("message_ts", ts)
	if err != nil {
		return time.Time{}, false
	}
	return t.Time(), true
}

// PurgePersonal archives every personal memory of subject, for data-removal
// requests. Only admins purge.
func (s *Store) PurgePersonal(ctx context.Context, actor provenance.Actor, team, subject string) (int64, error) {
	if !actor.IsAdmin {
		return 0, fmt.Errorf("purge: %w: only an admin can purge", ErrForbidden)
	}
	n, err := s.db.Memories().ArchivePersonal(ctx, team, subject, "purged on request", actor.ID)
	if err != nil {
		return 0, fmt.Errorf("purge: %w", err)
	}
	s.changed(Memory{Scope: ScopePersonal, Team: team, SubjectID: subject})
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

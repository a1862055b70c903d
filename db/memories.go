package db

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/mnemo-bot/mnemo/db/internal/dbsqlc"
)

// ErrExists is returned by Memories.Insert when an identical active memory
// (same idempotency key) is already stored.
var ErrExists = errors.New("an identical active memory exists")

// Memory is one row of the memories table. The memory package gives its
// columns their types and meaning.
type Memory struct {
	ID             uuid.UUID
	Team           string
	Scope          string
	SubjectType    string
	SubjectID      string
	Kind           string
	Content        string
	Normalized     string
	SourceKey      string
	ChannelID      string
	Visibility     string
	ActorID        string
	ActorName      string
	WrittenBy      string
	MessageTS      string
	ObservedAt     time.Time
	CreatedAt      time.Time
	ExpiresAt      *time.Time
	ArchivedAt     *time.Time
	ArchivedReason string
	ArchivedBy     string
	SupersededBy   *uuid.UUID
	Sensitive      string // the sensitive category the review found, or ""
}

func memoryFromRow(r dbsqlc.Memory) Memory {
	m := Memory{
		ID: r.ID, Team: r.TeamID, Scope: r.Scope, SubjectType: r.SubjectType, SubjectID: r.SubjectID,
		Kind: r.Kind, Content: r.Content, Normalized: r.Normalized, SourceKey: r.SourceKey, ChannelID: r.ChannelID,
		Visibility: r.Visibility, ActorID: r.ActorID, ActorName: r.ActorName, WrittenBy: r.WrittenBy,
		MessageTS: r.MessageTs, ObservedAt: r.ObservedAt, CreatedAt: r.CreatedAt, ExpiresAt: r.ExpiresAt,
		ArchivedAt: r.ArchivedAt, SupersededBy: r.SupersededBy, Sensitive: r.Sensitive,
	}
	if r.ArchivedReason != nil {
		m.ArchivedReason = *r.ArchivedReason
	}
	if r.ArchivedBy != nil {
		m.ArchivedBy = *r.ArchivedBy
	}
	return m
}

func memoriesFromRows(rows []dbsqlc.Memory) []Memory {
	out := make([]Memory, 0, len(rows))
	for _, r := range rows {
		out = append(out, memoryFromRow(r))
	}
	return out
}

// Memories owns the memories table.
type Memories struct {
	e executor
	q *dbsqlc.Queries
}

// MemoryInsert is a new memory; the row's ids and times are set here.
type MemoryInsert struct {
	Team, Scope, SubjectType, SubjectID, Kind, Content, Normalized  string
	SourceKey, ChannelID, Visibility, ActorID, ActorName, WrittenBy string
	MessageTS                                                       string
	ObservedAt                                                      time.Time
	ExpiresAt                                                       *time.Time
	IdempotencyKey                                                  string
	Sensitive                                                       string
}

// Insert stores a memory, or returns ErrExists when an identical active one
// is stored.
func (s Memories) Insert(ctx context.Context, m MemoryInsert) (Memory, error) {
	row, err := s.q.MemoryInsert(ctx, s.e, dbsqlc.MemoryInsertParams{
		TeamID: m.Team, Scope: m.Scope, SubjectType: m.SubjectType, SubjectID: m.SubjectID,
		Kind: m.Kind, Content: m.Content, Normalized: m.Normalized, SourceKey: m.SourceKey,
		ChannelID: m.ChannelID, Visibility: m.Visibility, ActorID: m.ActorID, ActorName: m.ActorName,
		WrittenBy: m.WrittenBy, MessageTs: m.MessageTS, ObservedAt: m.ObservedAt, ExpiresAt: m.ExpiresAt,
		IdempotencyKey: m.IdempotencyKey, Sensitive: m.Sensitive,
	})
	if err = mapErr(err); errors.Is(err, ErrNotFound) {
		return Memory{}, ErrExists
	}
	if err != nil {
		return Memory{}, fmt.Errorf("insert memory: %w", err)
	}
	return memoryFromRow(row), nil
}

// LockSubject serializes writers of one subject until the transaction ends.
// Only meaningful on a Tx.
func (s Memories) LockSubject(ctx context.Context, key string) error {
	if err := s.q.MemorySubjectLock(ctx, s.e, key); err != nil {
		return fmt.Errorf("lock subject: %w", mapErr(err))
	}
	return nil
}

// Get returns one memory, active or archived.
func (s Memories) Get(ctx context.Context, id uuid.UUID) (Memory, error) {
	r, err := s.q.MemoryGetByID(ctx, s.e, id)
	if err != nil {
		return Memory{}, fmt.Errorf("memory %s: %w", id, mapErr(err))
	}
	return memoryFromRow(r), nil
}

// ListByIDPrefix returns up to 10 of a team's memories whose id starts with prefix.
func (s Memories) ListByIDPrefix(ctx context.Context, team, prefix string) ([]Memory, error) {
	rows, err := s.q.MemoryListByIDPrefix(ctx, s.e, dbsqlc.MemoryListByIDPrefixParams{TeamID: team, Prefix: prefix})
	if err != nil {
		return nil, fmt.Errorf("memories by id prefix: %w", mapErr(err))
	}
	return memoriesFromRows(rows), nil
}

// SimilarQuery names the subject whose active memories are compared.
type SimilarQuery struct {
	Team, Scope, SubjectType, SubjectID, Normalized string
	MinSimilarity                                   float64
	Limit                                           int
}

// Similar is a candidate with its trigram similarity.
type Similar struct {
	Memory
	Sim float64
}

// FindSimilar returns active memories of one subject that are the same once
// normalized, or lexically close: candidates for dedup and supersession.
func (s Memories) FindSimilar(ctx context.Context, f SimilarQuery) ([]Similar, error) {
	rows, err := s.q.MemoryFindSimilar(ctx, s.e, dbsqlc.MemoryFindSimilarParams{
		TeamID: f.Team, Scope: f.Scope, SubjectType: f.SubjectType, SubjectID: f.SubjectID,
		Normalized: f.Normalized, MinSimilarity: f.MinSimilarity, MaxCandidates: int32(f.Limit),
	})
	if err != nil {
		return nil, fmt.Errorf("similar memories: %w", mapErr(err))
	}
	out := make([]Similar, 0, len(rows))
	for _, r := range rows {
		out = append(out, Similar{Memory: memoryFromRow(r.Memory), Sim: r.Sim})
	}
	return out, nil
}

// Archive archives an active memory; ErrNotFound when there is no active
// memory with that id.
func (s Memories) Archive(ctx context.Context, id uuid.UUID, reason, by string, supersededBy *uuid.UUID) (Memory, error) {
	r, err := s.q.MemoryArchive(ctx, s.e, dbsqlc.MemoryArchiveParams{ID: id, Reason: reason, ArchivedBy: by, SupersededBy: supersededBy})
	if err != nil {
		return Memory{}, fmt.Errorf("archive memory %s: %w", id, mapErr(err))
	}
	return memoryFromRow(r), nil
}

// Restore brings an archived memory back; ErrNotFound when there is no
// archived memory with that id.
func (s Memories) Restore(ctx context.Context, id uuid.UUID) (Memory, error) {
	r, err := s.q.MemoryRestore(ctx, s.e, id)
	if err != nil {
		return Memory{}, fmt.Errorf("restore memory %s: %w", id, mapErr(err))
	}
	return memoryFromRow(r), nil
}

// SearchQuery asks for the memories visible to Actor in one place.
// PrivateViewer and Apply are memory.Viewer's; the query mirrors
// memory.Visible.
type SearchQuery struct {
	Team, Channel, SourceKey, Actor string
	PrivateViewer, Apply            bool
	Query                           string
	Fuzzy, RequireMatch             bool
	Limit                           int
}

// Scored is a memory with its rank.
type Scored struct {
	Memory
	Score float64
}

// Search ranks the memories visible to the actor in one place by text match,
// closeness of scope and recency.
func (s Memories) Search(ctx context.Context, f SearchQuery) ([]Scored, error) {
	rows, err := s.q.MemorySearch(ctx, s.e, dbsqlc.MemorySearchParams{
		Query: f.Query, SourceKey: f.SourceKey, ChannelID: f.Channel, TeamID: f.Team, ActorID: f.Actor,
		RequireMatch: f.RequireMatch, MaxResults: int32(f.Limit), Fuzzy: f.Fuzzy,
		PrivateViewer: f.PrivateViewer, Apply: f.Apply,
	})
	if err != nil {
		return nil, fmt.Errorf("search memories: %w", mapErr(err))
	}
	out := make([]Scored, 0, len(rows))
	for _, r := range rows {
		out = append(out, Scored{Memory: memoryFromRow(r.Memory), Score: r.Score})
	}
	return out, nil
}

// ListQuery selects memories for operators and admin views; empty fields
// don't filter.
type ListQuery struct {
	Team, SubjectUser, Channel, SourceKey, Query string
	IncludeArchived                              bool
	Limit, Offset                                int
}

// List returns memories newest first.
func (s Memories) List(ctx context.Context, f ListQuery) ([]Memory, error) {
	rows, err := s.q.MemoryListForAdmin(ctx, s.e, dbsqlc.MemoryListForAdminParams{
		TeamID: optional(f.Team), SubjectID: optional(f.SubjectUser), ChannelID: optional(f.Channel),
		SourceKey: optional(f.SourceKey), IncludeArchived: f.IncludeArchived, Query: f.Query,
		MaxResults: int32(f.Limit), Skip: int32(f.Offset),
	})
	if err != nil {
		return nil, fmt.Errorf("list memories: %w", mapErr(err))
	}
	return memoriesFromRows(rows), nil
}

// ArchiveExpired archives memories past their expiry.
func (s Memories) ArchiveExpired(ctx context.Context) (int64, error) {
	n, err := s.q.MemoryArchiveExpired(ctx, s.e)
	if err != nil {
		return 0, fmt.Errorf("archive expired: %w", mapErr(err))
	}
	return n, nil
}

// ArchivePersonal archives every active personal memory of one person, each
// with its history event.
func (s Memories) ArchivePersonal(ctx context.Context, team, subject, reason, by, path string) (int64, error) {
	n, err := s.q.MemoryArchivePersonal(ctx, s.e, dbsqlc.MemoryArchivePersonalParams{TeamID: team, SubjectID: subject, Reason: reason, ArchivedBy: by, Path: path})
	if err != nil {
		return 0, fmt.Errorf("archive personal: %w", mapErr(err))
	}
	return n, nil
}

// CountPersonal counts a person's active personal memories.
func (s Memories) CountPersonal(ctx context.Context, team, subject string) (int64, error) {
	n, err := s.q.MemoryCountPersonal(ctx, s.e, dbsqlc.MemoryCountPersonalParams{TeamID: team, SubjectID: subject})
	if err != nil {
		return 0, fmt.Errorf("count personal: %w", mapErr(err))
	}
	return n, nil
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// MemoryEvent is one change in a memory's history.
type MemoryEvent struct {
	MemoryID  uuid.UUID
	Team      string
	Action    string // create, update, supersede, archive, restore, purge
	ActorID   string
	Path      string // how: explicit, passive, admin, mcp, slash, home, system
	Reason    string
	RelatedID *uuid.UUID // the memory that superseded or was superseded
	At        time.Time
}

// RecordEvent appends to a memory's history. Call it in the transaction that
// makes the change.
func (s Memories) RecordEvent(ctx context.Context, e MemoryEvent) error {
	err := s.q.MemoryEventInsert(ctx, s.e, dbsqlc.MemoryEventInsertParams{
		MemoryID: e.MemoryID, TeamID: e.Team, Action: e.Action, ActorID: e.ActorID, Path: e.Path, Reason: e.Reason, RelatedID: e.RelatedID,
	})
	if err != nil {
		return fmt.Errorf("memory event: %w", mapErr(err))
	}
	return nil
}

// History returns a memory's events, oldest first.
func (s Memories) History(ctx context.Context, id uuid.UUID) ([]MemoryEvent, error) {
	rows, err := s.q.MemoryEventsByMemory(ctx, s.e, id)
	if err != nil {
		return nil, fmt.Errorf("memory history: %w", mapErr(err))
	}
	out := make([]MemoryEvent, 0, len(rows))
	for _, r := range rows {
		out = append(out, MemoryEvent{MemoryID: r.MemoryID, Team: r.TeamID, Action: r.Action, ActorID: r.ActorID, Path: r.Path, Reason: r.Reason, RelatedID: r.RelatedID, At: r.CreatedAt})
	}
	return out, nil
}

// SubjectQuery selects one person's memories: their personal ones, or the
// shared ones they wrote (Authored).
type SubjectQuery struct {
	Team, User                string
	Authored, IncludeArchived bool
	Limit, Offset             int
}

// ListBySubject returns a person's memories newest first.
func (s Memories) ListBySubject(ctx context.Context, f SubjectQuery) ([]Memory, error) {
	rows, err := s.q.MemoryListBySubject(ctx, s.e, dbsqlc.MemoryListBySubjectParams{
		TeamID: f.Team, UserID: f.User, Authored: f.Authored, IncludeArchived: f.IncludeArchived,
		MaxResults: int32(f.Limit), Skip: int32(f.Offset),
	})
	if err != nil {
		return nil, fmt.Errorf("list memories of %s: %w", f.User, mapErr(err))
	}
	return memoriesFromRows(rows), nil
}

package db

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/mnemo-bot/mnemo/db/internal/dbsqlc"
	"github.com/mnemo-bot/mnemo/detect"
	"github.com/mnemo-bot/mnemo/provenance"
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
	Visibility     provenance.Visibility
	ActorID        string
	ActorName      string
	WrittenBy      provenance.WrittenBy
	MessageTS      string
	ObservedAt     time.Time
	CreatedAt      time.Time
	ExpiresAt      *time.Time
	ArchivedAt     *time.Time
	ArchivedReason string
	ArchivedBy     string
	SupersededBy   *uuid.UUID
	Sensitive      string // the sensitive category the review found, or ""
	Cues           string // retrieval cues, comma-separated (see MemoryInsert.Cues)
}

func memoryFromRow(r dbsqlc.Memory) Memory {
	m := Memory{
		ID: r.ID, Team: r.TeamID, Scope: r.Scope, SubjectType: r.SubjectType, SubjectID: r.SubjectID,
		Kind: r.Kind, Content: r.Content, Normalized: r.Normalized, SourceKey: r.SourceKey, ChannelID: r.ChannelID,
		Visibility: provenance.Visibility(r.Visibility), ActorID: r.ActorID, ActorName: r.ActorName, WrittenBy: provenance.WrittenBy(r.WrittenBy),
		MessageTS: r.MessageTs, ObservedAt: r.ObservedAt, CreatedAt: r.CreatedAt, ExpiresAt: r.ExpiresAt,
		ArchivedAt: r.ArchivedAt, SupersededBy: r.SupersededBy, Sensitive: r.Sensitive, Cues: r.Cues,
	}
	if r.ArchivedReason != nil {
		m.ArchivedReason = *r.ArchivedReason
	}
	if r.ArchivedBy != nil {
		m.ArchivedBy = *r.ArchivedBy
	}
	return m
}

// memoryFromView converts a row of memory_rows, the view reads return.
func memoryFromView(r dbsqlc.MemoryRow) Memory {
	return memoryFromRow(dbsqlc.Memory{
		ID: r.ID, TeamID: r.TeamID, Scope: r.Scope, SubjectType: r.SubjectType, SubjectID: r.SubjectID,
		Kind: r.Kind, Content: r.Content, Normalized: r.Normalized, SourceKey: r.SourceKey, ChannelID: r.ChannelID,
		Visibility: r.Visibility, ActorID: r.ActorID, ActorName: r.ActorName, WrittenBy: r.WrittenBy,
		MessageTs: r.MessageTs, ObservedAt: r.ObservedAt, CreatedAt: r.CreatedAt, ExpiresAt: r.ExpiresAt,
		ArchivedAt: r.ArchivedAt, ArchivedReason: r.ArchivedReason, ArchivedBy: r.ArchivedBy,
		SupersededBy: r.SupersededBy, IdempotencyKey: r.IdempotencyKey, Sensitive: r.Sensitive, Cues: r.Cues,
	})
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
	Team, Scope, SubjectType, SubjectID, Kind, Content, Normalized string
	SourceKey, ChannelID, ActorID, ActorName, MessageTS            string
	Visibility                                                     provenance.Visibility
	WrittenBy                                                      provenance.WrittenBy
	ObservedAt                                                     time.Time
	ExpiresAt                                                      *time.Time
	IdempotencyKey                                                 string
	Sensitive                                                      string
	// Cues are the review's retrieval cues: the words and short questions
	// a person would use when this memory is relevant ("timezone", "what
	// time is it"). They are searched with the content, weighted below it.
	Cues []string
	// Embedding is the embedding of the content and cues (EmbeddingText),
	// or nil: recall computes a missing one when it first needs it.
	Embedding []float32
	// Created, when set, is the memory's first event in its history
	// ("create", by ActorID), written by the same statement.
	Created *Creation
}

// Creation is how a memory came to be written: the path, and what was
// changed from what was asked (redacted as every event's reason is).
type Creation struct {
	Path, Reason string
}

// Limits on cues: a few short phrases, so they expand the text index
// without drowning the content.
const (
	MaxCues      = 16
	MaxCuesChars = 300
)

// JoinCues is how cues are stored: trimmed, without repeats, at most
// MaxCues of them and MaxCuesChars in all, comma-separated.
func JoinCues(cues []string) string {
	var b strings.Builder
	seen := map[string]bool{}
	n := 0
	for _, c := range cues {
		// Text the database can store and a terminal can show (Sanitize).
		c = strings.Join(strings.Fields(strings.ReplaceAll(Sanitize(c), ",", " ")), " ")
		key := strings.ToLower(c)
		if c == "" || seen[key] || n == MaxCues {
			continue
		}
		if utf8.RuneCountInString(b.String())+len(", ")+utf8.RuneCountInString(c) > MaxCuesChars {
			break
		}
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		b.WriteString(c)
		seen[key] = true
		n++
	}
	return b.String()
}

// EmbeddingText is the text a memory's embedding is computed from.
func EmbeddingText(content, cues string) string {
	if cues == "" {
		return content
	}
	return content + "\n" + cues
}

// Insert stores a memory, or returns ErrExists when an identical active one
// is stored.
func (s Memories) Insert(ctx context.Context, m MemoryInsert) (Memory, error) {
	p := dbsqlc.MemoryInsertParams{
		TeamID: m.Team, Scope: m.Scope, SubjectType: m.SubjectType, SubjectID: m.SubjectID,
		Kind: m.Kind, Content: m.Content, Normalized: m.Normalized, Cues: JoinCues(m.Cues), SourceKey: m.SourceKey,
		ChannelID: m.ChannelID, Visibility: string(m.Visibility), ActorID: m.ActorID, ActorName: m.ActorName,
		WrittenBy: string(m.WrittenBy), MessageTs: m.MessageTS, ObservedAt: m.ObservedAt, ExpiresAt: m.ExpiresAt,
		IdempotencyKey: m.IdempotencyKey, Sensitive: m.Sensitive, Embedding: m.Embedding,
	}
	if c := m.Created; c != nil {
		p.Created, p.CreatedPath, p.CreatedReason = true, c.Path, detect.Redact(c.Reason)
	}
	row, err := s.q.MemoryInsert(ctx, s.e, p)
	if err = mapErr(err); errors.Is(err, ErrNotFound) {
		return Memory{}, ErrExists
	}
	if err != nil {
		return Memory{}, fmt.Errorf("insert memory: %w", err)
	}
	return memoryFromRow(dbsqlc.Memory(row)), nil
}

// LockSubject serializes writers of one subject until the transaction ends.
// Only meaningful on a Tx.
func (s Memories) LockSubject(ctx context.Context, key string) error {
	if err := s.q.MemorySubjectLock(ctx, s.e, key); err != nil {
		return fmt.Errorf("lock subject: %w", mapErr(err))
	}
	return nil
}

// Writer is a memory write as the erasures that would delete it see it:
// the team it is said in, the team it is stored under when that is another
// (an external member's own memories, memory.HomeOf; an organisation's),
// the person it is by, and the person it is about when that is another.
type Writer struct {
	Team, Stored    string
	Author, Subject string
}

// HoldErasure holds off, until the transaction ends, every erasure that
// would delete what w writes: that of each of its teams, and that of each
// of its people, in whichever workspace it runs (Erase, EraseTeam take
// these locks exclusively). An erasure that comes later waits for the
// transaction, and sees and deletes what it wrote; one that came first is
// waited for. Only meaningful on a Tx.
//
// A person's lock is theirs across an organisation, keyed by their user id
// alone: a Grid member has one id in all its workspaces, and their erasure
// in one deletes the organisation's memories they wrote from another.
func (s Memories) HoldErasure(ctx context.Context, w Writer) error {
	// Teams, then people, each sorted, in one statement. No deadlock: an
	// erasure takes one of these locks, exclusively, as its first
	// statement and takes no other, so it holds nothing a write waits for
	// but that lock. Writes take theirs shared, before any row of theirs.
	// A shared request queues behind an erasure waiting, so two writes
	// could wait on each other, each through an erasure, only if each held
	// a lock the other wants next: one order for every write rules it out.
	err := s.q.MemoryHoldErasure(ctx, s.e, dbsqlc.MemoryHoldErasureParams{Teams: distinctSorted(w.Team, w.Stored), People: w.people()})
	if err != nil {
		return fmt.Errorf("hold off erasure: %w", mapErr(err))
	}
	return nil
}

// people are the people w is by or about, in order.
func (w Writer) people() []string { return distinctSorted(w.Author, w.Subject) }

// WriteLifetime is longer than any memory write lasts (its model calls
// have deadlines of seconds): the record of one still there after it was
// left by a process that died mid-write, and goes (BeginWrite).
const WriteLifetime = time.Hour

// BeginWrite records that w is under way, before its review, and returns
// the record's id: an erasure of its person or its team that would delete
// what w writes deletes the record (Erase, EraseTeam), so that w, stored
// after it, finds it gone (EndWrite). It waits for an erasure of w's
// people under way, so that one is wholly before the record or wholly
// after it; while one of its teams' erasures runs it records nothing and
// is ErrErasing. It deletes the records dead processes left first.
func (s Memories) BeginWrite(ctx context.Context, w Writer) (int64, error) {
	stored := w.Stored
	if stored == "" {
		stored = w.Team
	}
	id, err := s.q.MemoryWriteBegin(ctx, s.e, dbsqlc.MemoryWriteBeginParams{Teams: distinctSorted(w.Team, w.Stored), People: w.people(),
		LeftAfterSecs: WriteLifetime.Seconds(), TeamID: w.Team, StoredTeam: stored, AuthorID: w.Author, SubjectID: w.Subject})
	if errors.Is(err, pgx.ErrNoRows) {
		// One of its teams is being erased: a record taken in now could
		// come after the erasure's delete of them, and outlive it.
		return 0, fmt.Errorf("begin write: %w", ErrErasing)
	}
	if err != nil {
		return 0, fmt.Errorf("begin write: %w", mapErr(err))
	}
	return id, nil
}

// WriteKept reports whether the record of write id, said in team, is still
// there. After HoldErasure, an erasure that would delete what it writes and
// committed after it began has deleted it (false).
func (s Memories) WriteKept(ctx context.Context, team string, id int64) (bool, error) {
	// A statement of its own, after the lock: under READ COMMITTED it reads
	// what an erasure that held the lock first committed.
	kept, err := s.q.MemoryWriteKept(ctx, s.e, dbsqlc.MemoryWriteKeptParams{ID: id, TeamID: team})
	if err != nil {
		return false, fmt.Errorf("write under way: %w", mapErr(err))
	}
	return kept, nil
}

// EndWrite deletes the record of write id, said in team: it ended, stored
// or not. It reports whether the record was there: after HoldErasure, an
// erasure that committed after the write began took it (false), as
// WriteKept says.
func (s Memories) EndWrite(ctx context.Context, team string, id int64) (bool, error) {
	// As WriteKept, a statement of its own after the lock.
	n, err := s.q.MemoryWriteEnd(ctx, s.e, dbsqlc.MemoryWriteEndParams{ID: id, TeamID: team})
	if err != nil {
		return false, fmt.Errorf("end write: %w", mapErr(err))
	}
	return n > 0, nil
}

// distinctSorted is those of xs that are not "", in order, without repeats.
func distinctSorted(xs ...string) []string {
	xs = slices.DeleteFunc(xs, func(x string) bool { return x == "" })
	slices.Sort(xs)
	return slices.Compact(xs)
}

// TurnSource is what a turn's write comes from: the turn, in its team, and
// the message of the turn's thread that led to the write, by its author.
type TurnSource struct {
	Team      string
	Turn      int64
	MessageTS string
	Author    string
}

// TurnSourceKept reports whether src is still there. After HoldErasure, an
// erasure of its team or author that committed first deleted the team's
// turns and log, or a DM's, or left the author's messages elsewhere
// nobody's, and src is not found (false).
func (s Memories) TurnSourceKept(ctx context.Context, src TurnSource) (bool, error) {
	// A statement of its own, after the lock: under READ COMMITTED it reads
	// what an erasure that held the lock first committed.
	kept, err := s.q.MemoryTurnSourceKept(ctx, s.e, dbsqlc.MemoryTurnSourceKeptParams{TurnID: src.Turn, TeamID: src.Team, MessageTs: src.MessageTS, ActorID: src.Author})
	if err != nil {
		return false, fmt.Errorf("turn source: %w", mapErr(err))
	}
	return kept, nil
}

// Get returns one of a team's memories, active or archived.
func (s Memories) Get(ctx context.Context, team string, id uuid.UUID) (Memory, error) {
	r, err := s.q.MemoryGetByID(ctx, s.e, dbsqlc.MemoryGetByIDParams{ID: id, TeamID: team})
	if err != nil {
		return Memory{}, fmt.Errorf("memory %s: %w", id, mapErr(err))
	}
	return memoryFromRow(r), nil
}

// ListByIDPrefix returns up to 10 of a team's memories whose id starts with
// prefix (lower-case hex, with or without the dashes); none when prefix
// can't start an id.
func (s Memories) ListByIDPrefix(ctx context.Context, team, prefix string) ([]Memory, error) {
	lo, hi, ok := idRange(prefix)
	if !ok {
		return nil, nil
	}
	rows, err := s.q.MemoryListByIDPrefix(ctx, s.e, dbsqlc.MemoryListByIDPrefixParams{TeamID: team, Lo: lo, Hi: hi})
	if err != nil {
		return nil, fmt.Errorf("memories by id prefix: %w", mapErr(err))
	}
	return memoriesFromRows(rows), nil
}

// idRange is the first and the last uuid that start with prefix: ids sort
// as their text does, so the ids with a prefix are one range of the
// primary key.
func idRange(prefix string) (lo, hi uuid.UUID, ok bool) {
	const form = "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
	prefix = strings.ToLower(prefix)
	if len(prefix) > len(form) {
		return lo, hi, false
	}
	low, high := []byte(form), []byte(form)
	for i := range form {
		switch {
		case form[i] == '-':
			if i < len(prefix) && prefix[i] != '-' {
				return lo, hi, false
			}
		case i < len(prefix):
			if !strings.ContainsRune("0123456789abcdef", rune(prefix[i])) {
				return lo, hi, false
			}
			low[i], high[i] = prefix[i], prefix[i]
		default:
			low[i], high[i] = '0', 'f'
		}
	}
	lo, err := uuid.ParseBytes(low)
	if err != nil {
		return lo, hi, false
	}
	hi, err = uuid.ParseBytes(high)
	return lo, hi, err == nil
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
// The candidates are bounded (the subject's memories with every word, and
// its newest with any word), so the cost does not grow with the subject.
func (s Memories) FindSimilar(ctx context.Context, f SimilarQuery) ([]Similar, error) {
	var out []Similar
	err := s.read(ctx, similarSettings, func(e executor) error {
		rows, err := s.q.MemoryFindSimilar(ctx, e, dbsqlc.MemoryFindSimilarParams{
			TeamID: f.Team, Scope: f.Scope, SubjectType: f.SubjectType, SubjectID: f.SubjectID,
			Normalized: f.Normalized, AnyWords: anyWords(queryWords(f.Normalized)),
			MinSimilarity: f.MinSimilarity, MaxCandidates: int32(f.Limit),
		})
		if err != nil {
			return err
		}
		out = make([]Similar, 0, len(rows))
		for _, r := range rows {
			out = append(out, Similar{Memory: memoryFromView(r.MemoryRow), Sim: r.Sim})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("similar memories: %w", mapErr(err))
	}
	return out, nil
}

// Archive archives an active memory; ErrNotFound when there is no active
// memory with that id. Secrets in reason are redacted before it is stored.
func (s Memories) Archive(ctx context.Context, id uuid.UUID, reason, by string, supersededBy *uuid.UUID) (Memory, error) {
	r, err := s.q.MemoryArchive(ctx, s.e, dbsqlc.MemoryArchiveParams{ID: id, Reason: detect.Redact(reason), ArchivedBy: by, SupersededBy: supersededBy})
	if err != nil {
		return Memory{}, fmt.Errorf("archive memory %s: %w", id, mapErr(err))
	}
	return memoryFromRow(r), nil
}

// Restore brings an archived memory back; ErrNotFound when there is no
// archived memory with that id, ErrExists when an identical memory (the
// same idempotency key) is active.
func (s Memories) Restore(ctx context.Context, id uuid.UUID) (Memory, error) {
	r, err := s.q.MemoryRestore(ctx, s.e, id)
	var pg *pgconn.PgError
	if errors.As(err, &pg) && pg.Code == "23505" && pg.ConstraintName == "memories_idempotency_active" {
		return Memory{}, fmt.Errorf("restore memory %s: %w", id, ErrExists)
	}
	if err != nil {
		return Memory{}, fmt.Errorf("restore memory %s: %w", id, mapErr(err))
	}
	return memoryFromRow(r), nil
}

// ActiveIDs returns those of a team's memories ids that are active and not
// past their expiry, and locks them until the transaction ends: a write
// that merges or replaces them checks they are still there. Only
// meaningful on a Tx.
func (s Memories) ActiveIDs(ctx context.Context, team string, ids []uuid.UUID) ([]uuid.UUID, error) {
	out, err := s.q.MemoryActiveIDs(ctx, s.e, dbsqlc.MemoryActiveIDsParams{TeamID: team, Ids: ids})
	if err != nil {
		return nil, fmt.Errorf("active memories: %w", mapErr(err))
	}
	return out, nil
}

// ForRestore reads one of a team's memories and locks it until the
// transaction ends, with whether its expiry has passed by the database's
// clock (the one the expiry sweep reads).
func (s Memories) ForRestore(ctx context.Context, team string, id uuid.UUID) (m Memory, expired bool, err error) {
	r, err := s.q.MemoryForRestore(ctx, s.e, dbsqlc.MemoryForRestoreParams{ID: id, TeamID: team})
	if err != nil {
		return Memory{}, false, fmt.Errorf("memory %s: %w", id, mapErr(err))
	}
	return memoryFromRow(r.Memory), r.Expired, nil
}

// ActiveReplacement returns the active memory that replaced id: the one it
// was superseded by or updated into, or the first active one down that
// chain; ErrNotFound when none is active.
func (s Memories) ActiveReplacement(ctx context.Context, team string, id uuid.UUID) (Memory, error) {
	r, err := s.q.MemoryActiveReplacement(ctx, s.e, dbsqlc.MemoryActiveReplacementParams{TeamID: team, ID: id})
	if err != nil {
		return Memory{}, fmt.Errorf("replacement of memory %s: %w", id, mapErr(err))
	}
	return memoryFromRow(r), nil
}

// ActiveIdentical returns the active memory, other than id, with id's
// idempotency key; ErrNotFound when there is none.
func (s Memories) ActiveIdentical(ctx context.Context, team string, id uuid.UUID) (Memory, error) {
	r, err := s.q.MemoryActiveIdentical(ctx, s.e, dbsqlc.MemoryActiveIdenticalParams{TeamID: team, ID: id})
	if err != nil {
		return Memory{}, fmt.Errorf("identical of memory %s: %w", id, mapErr(err))
	}
	return memoryFromRow(r), nil
}

// ArchiveExpiredIdentical archives, as ArchiveExpired does and with its
// history event, the active memory with key, or with like's key when key
// is "", whose expiry has passed, so that it does not keep the same words
// from being stored or restored before the sweep reaches it.
func (s Memories) ArchiveExpiredIdentical(ctx context.Context, team, key string, like uuid.UUID) (int64, error) {
	p := dbsqlc.MemoryArchiveExpiredIdenticalParams{TeamID: team}
	if key != "" {
		p.IdempotencyKey = &key
	} else {
		p.ID = &like
	}
	n, err := s.q.MemoryArchiveExpiredIdentical(ctx, s.e, p)
	if err != nil {
		return 0, fmt.Errorf("archive expired identical memories: %w", mapErr(err))
	}
	return n, nil
}

// SearchQuery asks for the memories visible to Actor in one place.
// PrivateViewer and Apply are memory.Viewer's; the query mirrors
// memory.Visible.
type SearchQuery struct {
	Team, Channel, SourceKey, Actor string
	PrivateViewer, Apply            bool
	// Only is the one scope the viewer reads of Team's, when Team is not
	// their own workspace (memory_visible's v_only): "channel" for an
	// external member of the Slack Connect channel Channel reading its
	// host's, "workspace" for an organisation's org-scope memories.
	Only string
	// Query is what was asked, in the asker's words. Without a word to
	// search for, Search lists the closest and newest memories.
	Query string
	// Fuzzy corrects the query's words the workspace has never used to the
	// nearest ones it has (typos), before searching.
	Fuzzy bool
	// RequireMatch drops memories that match no word of the query. Without
	// it, this thread's own memories and this channel's newest are returned
	// even when they don't, ranked below the matches.
	RequireMatch bool
	// AboutActor is set when the question is about the asker ("what time
	// is it for me?"): their own memories rank first among the matches.
	AboutActor bool
	// Reserve is how many of the actor's own preferences are returned
	// whatever the query (most relevant first), flagged Reserved, on top of
	// Limit.
	Reserve int
	Limit   int
}

// MaxDepth bounds how far recall reads one word's postings in one
// partition, best first: memory_bm25 starts at eight times the results
// wanted (at least 128) and reads four times further while something
// unread could still enter them and it has read less than MaxDepth.
// Past it, recall ranks what it has read, the best-weighted postings of
// every word: reached only where many memories tie at the top for common
// words. make bench measures what the cut costs on LoCoMo's noisy shape (a
// conversation beside 100,000 other memories).
const MaxDepth = 128

// Scored is a memory with its rank.
type Scored struct {
	Memory
	Score    float64
	Matched  bool // matches a word of the query
	Reserved bool // one of the actor's own preferences, kept whatever its rank
}

// recallSettings are set for the recall queries' transaction. JIT
// compilation pays off on long analytical queries; on these, which read a
// bounded number of index pages, it only adds its compile time (60-76 ms at
// a million rows under the default jit=on). The recall queries are written
// so that one plan suits every query (see MemorySearch), and planning one
// costs several milliseconds, so they are planned once per connection: the
// default would plan the first five executions anew, then guess. Set per
// transaction rather than on the pool, so the recall queries behave the
// same on any pool they are given and nothing else is affected.
const recallSettings = "SET LOCAL jit = off; SET LOCAL plan_cache_mode = force_generic_plan"

// similarSettings are MemoryFindSimilar's: its best plan depends on the
// subject and the words (a channel's GIN entries, or a person's few rows),
// so it is planned for each call; after five executions the default would
// switch to a generic plan that reads a large subject whole (a third of a
// second at a million memories).
const similarSettings = "SET LOCAL jit = off; SET LOCAL plan_cache_mode = force_custom_plan"

type beginner interface {
	BeginTx(ctx context.Context, opts pgx.TxOptions) (pgx.Tx, error)
}

// read runs fn in a read-only transaction with settings; on a pool that
// costs no round trip more than BEGIN and COMMIT. Inside a caller's
// transaction the settings last until it ends.
func (s Memories) read(ctx context.Context, settings string, fn func(e executor) error) error {
	switch e := s.e.(type) {
	case beginner:
		tx, err := e.BeginTx(ctx, pgx.TxOptions{BeginQuery: "BEGIN READ ONLY; " + settings})
		if err != nil {
			return mapErr(err)
		}
		defer tx.Rollback(ctx) //nolint:errcheck
		if err := fn(tx); err != nil {
			return err
		}
		return mapErr(tx.Commit(ctx))
	case pgx.Tx:
		if _, err := e.Exec(ctx, settings); err != nil {
			return mapErr(err)
		}
	}
	return fn(s.e)
}

// Search ranks the memories visible to the actor in one place by text match
// (content or cues), closeness of scope and recency. Its cost grows with
// the matches it reads, not with the memories visible: each branch of the
// visibility filter contributes at most 2×Pool candidates, read from an
// index.
func (s Memories) Search(ctx context.Context, f SearchQuery) ([]Scored, error) {
	words := queryWords(f.Query)
	if len(words) == 0 {
		return s.Recent(ctx, f)
	}
	var fuzzy []string
	if f.Fuzzy {
		for _, w := range words {
			if utf8.RuneCountInString(w) >= 3 {
				fuzzy = append(fuzzy, w)
			}
		}
	}
	rowLimit := f.Limit + max(f.Reserve, 0)
	var out []Scored
	err := s.read(ctx, recallSettings, func(e executor) error {
		rows, err := s.q.MemorySearch(ctx, e, dbsqlc.MemorySearchParams{
			TeamID: f.Team, ActorID: f.Actor, ChannelID: f.Channel, SourceKey: f.SourceKey,
			PrivateViewer: f.PrivateViewer, Apply: f.Apply, OnlyScope: f.Only, Words: queryText(f.Query), Fuzzy: fuzzy,
			ThreadAny: !f.RequireMatch, AboutActor: f.AboutActor, Reserve: int32(max(f.Reserve, 0)),
			// Closeness raises a match by up to a fifth, so the BM25 top k
			// is read a little past the rows returned.
			DepthK: int32(rowLimit + 4), MaxDepth: MaxDepth, RowLimit: int32(rowLimit),
		})
		if err != nil {
			return err
		}
		out = make([]Scored, 0, len(rows))
		for _, r := range rows {
			out = append(out, Scored{Memory: memoryFromView(r.MemoryRow), Score: r.Score, Matched: r.Matched, Reserved: r.Reserved})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("search memories: %w", mapErr(err))
	}
	return out, nil
}

// Recent returns the memories visible to the actor in one place, closest
// and newest first, ignoring f.Query: each branch of the visibility filter
// reads its newest f.Limit from an index.
func (s Memories) Recent(ctx context.Context, f SearchQuery) ([]Scored, error) {
	var out []Scored
	err := s.read(ctx, recallSettings, func(e executor) error {
		rows, err := s.q.MemoryRecent(ctx, e, dbsqlc.MemoryRecentParams{
			TeamID: f.Team, ActorID: f.Actor, ChannelID: f.Channel, SourceKey: f.SourceKey,
			PrivateViewer: f.PrivateViewer, Apply: f.Apply, OnlyScope: f.Only, MaxResults: int32(f.Limit),
		})
		if err != nil {
			return err
		}
		out = make([]Scored, 0, len(rows))
		for _, r := range rows {
			out = append(out, Scored{Memory: memoryFromView(r.MemoryRow), Score: r.Score})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("recent memories: %w", mapErr(err))
	}
	return out, nil
}

// MaxQueryWords bounds the words a query is searched with: a long message
// is searched with its first ones.
const MaxQueryWords = 24

// queryWords splits text into its distinct lowercased words (letters and
// digits), at most MaxQueryWords. Everything else is dropped, so the words
// can be joined into a websearch_to_tsquery query without operators.
func queryWords(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if w == "or" || slices.Contains(out, w) {
			continue
		}
		out = append(out, w)
		if len(out) == MaxQueryWords {
			break
		}
	}
	return out
}

// queryText is what recall's terms are drawn from: the query's first
// MaxQueryWords words as they were written, which to_tsvector splits into
// lexemes as it split each memory's text. Split at every mark instead
// (queryWords), "99.9", "v2.3.1" or "ops@example.com" became words that no
// memory's text vector holds, and a memory searched for by its own text
// lost its rarest words (make bench's write-to-visible at a million
// memories: "The data pipeline SLA is 99.9 percent monthly uptime" ranked
// past 50 other services' SLAs).
func queryText(text string) string {
	f := strings.Fields(text)
	if len(f) > MaxQueryWords {
		f = f[:MaxQueryWords]
	}
	return strings.Join(f, " ")
}

// anyWords is a websearch_to_tsquery query matching any of words.
func anyWords(words []string) string { return strings.Join(words, " or ") }

// Embeddings returns the stored embeddings of ids; a memory without one is
// missing from the map.
func (s Memories) Embeddings(ctx context.Context, ids []uuid.UUID) (map[uuid.UUID][]float32, error) {
	rows, err := s.q.MemoryEmbeddings(ctx, s.e, ids)
	if err != nil {
		return nil, fmt.Errorf("memory embeddings: %w", mapErr(err))
	}
	out := make(map[uuid.UUID][]float32, len(rows))
	for _, r := range rows {
		if len(r.Embedding) > 0 {
			out[r.ID] = r.Embedding
		}
	}
	return out, nil
}

// SetEmbeddings stores memories' embeddings of model as real[] (the
// reranker's, without pgvector), in one round trip.
func (s Memories) SetEmbeddings(ctx context.Context, model string, vecs map[uuid.UUID][]float32) error {
	args := make([]dbsqlc.MemorySetEmbeddingParams, 0, len(vecs))
	for id, v := range vecs {
		args = append(args, dbsqlc.MemorySetEmbeddingParams{ID: id, Embedding: v, Model: model, Dim: int32(len(v))})
	}
	var first error
	s.q.MemorySetEmbedding(ctx, s.e, args).Exec(func(_ int, err error) {
		if err != nil && first == nil {
			first = err
		}
	})
	if first != nil {
		return fmt.Errorf("set embeddings: %w", mapErr(first))
	}
	return nil
}

// ListQuery selects memories for operators and admin views; empty fields
// don't filter.
type ListQuery struct {
	Team, SubjectUser, Channel, SourceKey, Query string
	IncludeArchived                              bool
	Limit, Offset                                int
	// After, when set, starts the list after this memory of an earlier
	// page: a page boundary that rows written or archived meanwhile can't
	// shift, as an offset can.
	After *ListCursor
}

// ListCursor is where a page of List ends: its last memory's creation time
// and id.
type ListCursor struct {
	CreatedAt time.Time
	ID        uuid.UUID
}

// listSettings are List's: a query matches fuzzily from a word similarity
// of 0.3 (the <% operator's threshold, 0.6 by default).
const listSettings = "SET LOCAL pg_trgm.word_similarity_threshold = 0.3"

// List returns memories newest first.
func (s Memories) List(ctx context.Context, f ListQuery) ([]Memory, error) {
	var rows []dbsqlc.Memory
	err := s.read(ctx, listSettings, func(e executor) error {
		var err error
		p := dbsqlc.MemoryListForAdminParams{
			TeamID: optional(f.Team), SubjectID: optional(f.SubjectUser), ChannelID: optional(f.Channel),
			SourceKey: optional(f.SourceKey), IncludeArchived: f.IncludeArchived, Query: f.Query,
			MaxResults: int32(f.Limit), Skip: int32(f.Offset),
		}
		if f.After != nil {
			p.AfterCreatedAt, p.AfterID = &f.After.CreatedAt, &f.After.ID
		}
		rows, err = s.q.MemoryListForAdmin(ctx, e, p)
		return err
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
// makes the change. Secrets in the reason are redacted before it is stored:
// /mnemo history shows it to everyone who may see the memory.
func (s Memories) RecordEvent(ctx context.Context, e MemoryEvent) error {
	err := s.q.MemoryEventInsert(ctx, s.e, dbsqlc.MemoryEventInsertParams{
		MemoryID: e.MemoryID, TeamID: e.Team, Action: e.Action, ActorID: e.ActorID, Path: e.Path, Reason: detect.Redact(e.Reason), RelatedID: e.RelatedID,
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

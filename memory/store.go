package memory

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"

	"github.com/mnemo-bot/mnemo/db/dbsqlc"
	"github.com/mnemo-bot/mnemo/provenance"
)

// Scope says whom or what a memory is about and where it may be used.
type Scope string

const (
	ScopePersonal     Scope = "personal"
	ScopeConversation Scope = "conversation"
	ScopeChannel      Scope = "channel"
	ScopeWorkspace    Scope = "workspace"
)

// SubjectType pairs with Scope: personal memories are about a user, and so on.
func (s Scope) SubjectType() string {
	switch s {
	case ScopePersonal:
		return "user"
	case ScopeConversation:
		return "conversation"
	case ScopeChannel:
		return "channel"
	}
	return "workspace"
}

// Kind is what sort of thing a memory says.
type Kind string

const (
	KindPreference Kind = "preference"
	KindProcedure  Kind = "procedure"
	KindKnowledge  Kind = "knowledge"
)

// WrittenBy says how a memory was written.
type WrittenBy string

const (
	ByExplicit WrittenBy = "explicit"
	ByPassive  WrittenBy = "passive"
	ByAdmin    WrittenBy = "admin"
	ByMCP      WrittenBy = "mcp"
)

// Limits on what is stored and shown.
const (
	MaxContentChars = 600
	MaxListLimit    = 50
)

// Errors callers branch on.
var (
	ErrNotFound  = errors.New("memory not found")
	ErrForbidden = errors.New("not allowed")
)

// Memory is one stored memory.
type Memory struct {
	ID             uuid.UUID
	Team           string
	Scope          Scope
	SubjectType    string
	SubjectID      string
	Kind           Kind
	Content        string
	SourceKey      string
	ChannelID      string
	Visibility     provenance.Visibility
	ActorID        string
	ActorName      string
	WrittenBy      WrittenBy
	MessageTS      string
	ObservedAt     time.Time
	CreatedAt      time.Time
	ExpiresAt      *time.Time
	ArchivedAt     *time.Time
	ArchivedReason string
	ArchivedBy     string
	SupersededBy   *uuid.UUID
	Score          float64
}

// ShortID is the id prefix people see and type.
func (m Memory) ShortID() string { return m.ID.String()[:8] }

func fromRow(r dbsqlc.Memory) Memory {
	m := Memory{
		ID: r.ID, Team: r.TeamID, Scope: Scope(r.Scope), SubjectType: r.SubjectType, SubjectID: r.SubjectID,
		Kind: Kind(r.Kind), Content: r.Content, SourceKey: r.SourceKey, ChannelID: r.ChannelID,
		Visibility: provenance.Visibility(r.Visibility), ActorID: r.ActorID, ActorName: r.ActorName,
		WrittenBy: WrittenBy(r.WrittenBy), MessageTS: r.MessageTs, ObservedAt: r.ObservedAt, CreatedAt: r.CreatedAt,
		ExpiresAt: r.ExpiresAt, ArchivedAt: r.ArchivedAt, SupersededBy: r.SupersededBy,
	}
	if r.ArchivedReason != nil {
		m.ArchivedReason = *r.ArchivedReason
	}
	if r.ArchivedBy != nil {
		m.ArchivedBy = *r.ArchivedBy
	}
	return m
}

// Reviewer is the model's half of the review before storing: it runs after
// the deterministic checks pass.
type Reviewer interface {
	Review(ctx context.Context, content string, kind Kind) (ReviewVerdict, error)
}

// ReviewVerdict is a Reviewer's answer.
type ReviewVerdict struct {
	Store     bool
	Reason    string
	Canonical string
}

// Adjudicator decides which older memories a new one contradicts.
type Adjudicator interface {
	Contradicted(ctx context.Context, newer string, candidates []Memory) ([]uuid.UUID, error)
}

// Store is the memory store. Build it with New.
type Store struct {
	pool        *pgxpool.Pool
	q           *dbsqlc.Queries
	log         zerolog.Logger
	now         func() time.Time
	reviewer    Reviewer
	adjudicator Adjudicator
	onChange    atomic.Pointer[func(team, subject string)]
}

// OnPersonalChange registers f to hear of every change to a person's
// personal memories (the App Home republishes on it). f must not block.
func (s *Store) OnPersonalChange(f func(team, subject string)) { s.onChange.Store(&f) }

func (s *Store) changed(m Memory) {
	if m.Scope != ScopePersonal {
		return
	}
	if f := s.onChange.Load(); f != nil {
		(*f)(m.Team, m.SubjectID)
	}
}

// Options configures a Store.
type Options struct {
	Logger      zerolog.Logger
	Now         func() time.Time
	Reviewer    Reviewer    // optional
	Adjudicator Adjudicator // optional; without one nothing is superseded
}

// New returns a store on pool.
func New(pool *pgxpool.Pool, opts Options) *Store {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	return &Store{pool: pool, q: dbsqlc.New(), log: opts.Logger, now: now, reviewer: opts.Reviewer, adjudicator: opts.Adjudicator}
}

// WriteRequest asks to store one memory. Actor and Place come from the live
// event; Content is what was said.
type WriteRequest struct {
	Actor     provenance.Actor
	Place     provenance.Place
	MessageTS string
	Scope     Scope // empty: chosen from the kind and the place
	Kind      Kind  // empty: inferred
	Content   string
	ExpiresAt *time.Time
	WrittenBy WrittenBy
	// SkipModelReview is set by callers whose content a model has already
	// judged (passive learning).
	SkipModelReview bool
}

// Status says what Remember did.
type Status string

const (
	Stored    Status = "stored"
	Duplicate Status = "duplicate"
	Rejected  Status = "rejected"
)

// Outcome is Remember's answer.
type Outcome struct {
	Status     Status
	Reason     string
	Canonical  string
	Memory     *Memory
	Superseded []Memory
}

// DefaultScope chooses where a memory belongs when the caller did not say:
// a preference, or anything said about oneself ("my badge number is…"), is
// about the person; other procedures and knowledge said in a channel belong
// to that channel, and in a DM to the person.
func DefaultScope(kind Kind, place provenance.Place, content string) Scope {
	if kind == KindPreference || place.Visibility == provenance.DM || firstPerson.MatchString(content) {
		return ScopePersonal
	}
	return ScopeChannel
}

var firstPerson = regexp.MustCompile(`(?i)^\s*(please\s+)?((remember|note)( that)?[:,]?\s+)?(i|i'm|i am|i've|my|me)\b`)

// Remember reviews and stores a memory, returning an existing one instead of
// a duplicate and superseding what a newer preference contradicts.
func (s *Store) Remember(ctx context.Context, req WriteRequest) (Outcome, error) {
	if !req.Actor.IsHuman() {
		return Outcome{}, fmt.Errorf("remember: actor %q is not a person", req.Actor.ID)
	}
	canonical := Canonicalize(req.Content)
	out := Outcome{Canonical: canonical}
	if reason := s.deterministicReview(req, canonical); reason != "" {
		out.Status, out.Reason = Rejected, reason
		return out, nil
	}
	kind := req.Kind
	if kind == "" {
		kind = InferKind(canonical)
	}
	if s.reviewer != nil && !req.SkipModelReview {
		v, err := s.reviewer.Review(ctx, canonical, kind)
		if err != nil {
			s.log.Warn().Err(err).Msg("memory review by model failed; deterministic review stands")
		} else {
			if !v.Store {
				out.Status, out.Reason = Rejected, v.Reason
				return out, nil
			}
			if c := strings.TrimSpace(v.Canonical); c != "" && s.deterministicReview(req, c) == "" {
				canonical, out.Canonical = c, c
			}
		}
	}
	scope := req.Scope
	switch {
	case scope == "":
		scope = DefaultScope(kind, req.Place, req.Content)
	case kind == KindPreference && scope != ScopePersonal:
		scope = ScopePersonal // a preference is always someone's own
	}
	subject := subjectID(scope, req.Actor, req.Place)
	norm := Normalize(canonical)

	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return Outcome{}, fmt.Errorf("remember: %w", err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck
	// Serialize writers of one subject so two concurrent identical writes
	// can't both miss each other's row.
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtext($1))", req.Place.Team+"/"+string(scope)+"/"+subject); err != nil {
		return Outcome{}, fmt.Errorf("remember: lock: %w", err)
	}
	cands, err := s.q.MemoryFindSimilar(ctx, tx, dbsqlc.MemoryFindSimilarParams{
		TeamID: req.Place.Team, Scope: string(scope), SubjectType: scope.SubjectType(), SubjectID: subject,
		Normalized: norm, MinSimilarity: 0.3, MaxCandidates: 8,
	})
	if err != nil {
		return Outcome{}, fmt.Errorf("remember: candidates: %w", err)
	}
	var others []Memory
	for _, c := range cands {
		if c.Memory.Normalized == norm || (c.Sim >= DuplicateSimilarity && sameWords(c.Memory.Normalized, norm)) {
			m := fromRow(c.Memory)
			out.Status, out.Memory, out.Reason = Duplicate, &m, "already remembered"
			return out, tx.Commit(ctx)
		}
		others = append(others, fromRow(c.Memory))
	}

	observed := s.now()
	if ts := req.MessageTS; ts != "" {
		if t, ok := tsTime(ts); ok {
			observed = t
		}
	}
	row, err := s.q.MemoryInsert(ctx, tx, dbsqlc.MemoryInsertParams{
		TeamID: req.Place.Team, Scope: string(scope), SubjectType: scope.SubjectType(), SubjectID: subject,
		Kind: string(kind), Content: canonical, Normalized: norm, SourceKey: req.Place.SourceKey,
		ChannelID: req.Place.Channel, Visibility: string(req.Place.Visibility), ActorID: req.Actor.ID,
		ActorName: req.Actor.Name, WrittenBy: string(req.WrittenBy), MessageTs: req.MessageTS,
		ObservedAt: observed, ExpiresAt: req.ExpiresAt,
		IdempotencyKey: idempotencyKey(req.Place.Team, scope, subject, norm),
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return Outcome{}, fmt.Errorf("remember: an identical memory was written concurrently")
	}
	if err != nil {
		return Outcome{}, fmt.Errorf("remember: insert: %w", err)
	}
	m := fromRow(row)
	out.Status, out.Memory = Stored, &m

	if kind == KindPreference && s.adjudicator != nil && len(others) > 0 {
		var prefs []Memory
		for _, o := range others {
			if o.Kind == KindPreference {
				prefs = append(prefs, o)
			}
		}
		if len(prefs) > 0 {
			ids, err := s.adjudicator.Contradicted(ctx, canonical, prefs)
			if err != nil {
				s.log.Warn().Err(err).Msg("supersession adjudication failed; keeping older memories")
			}
			for _, id := range ids {
				if !containsID(prefs, id) {
					continue // the adjudicator may only pick among the candidates
				}
				old, err := s.q.MemoryArchive(ctx, tx, dbsqlc.MemoryArchiveParams{ID: id, Reason: "superseded", ArchivedBy: req.Actor.ID, SupersededBy: &m.ID})
				if err != nil && !errors.Is(err, pgx.ErrNoRows) {
					return Outcome{}, fmt.Errorf("remember: supersede: %w", err)
				}
				if err == nil {
					out.Superseded = append(out.Superseded, fromRow(old))
				}
			}
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return Outcome{}, fmt.Errorf("remember: commit: %w", err)
	}
	s.changed(m)
	return out, nil
}

// DuplicateSimilarity is the pg_trgm similarity of normalized content above
// which two memories of one subject are candidates for being the same
// memory; sameWords confirms, so "Project A …" and "Project B …" stay apart.
const DuplicateSimilarity = 0.6

func (s *Store) deterministicReview(req WriteRequest, canonical string) string {
	switch {
	case strings.TrimSpace(canonical) == "":
		return "nothing to remember: the content is empty"
	case len([]rune(canonical)) > MaxContentChars:
		return fmt.Sprintf("too long: %d characters, the limit is %d; state it in one self-contained sentence", len([]rune(canonical)), MaxContentChars)
	}
	if kind := DetectSecret(req.Content); kind != "" {
		return "looks like a secret (" + kind + "); credentials are never stored"
	}
	switch {
	case IsVolatile(canonical):
		return "point-in-time data that will be out of date soon; it is not stored"
	case ThirdParty(canonical, req.Actor.Name):
		return "a personal fact about someone else; only they can ask to remember it"
	case IsVague(canonical):
		return "too vague to be useful later; say it in a self-contained sentence"
	}
	return ""
}

func subjectID(scope Scope, actor provenance.Actor, place provenance.Place) string {
	switch scope {
	case ScopePersonal:
		return actor.ID
	case ScopeConversation:
		return place.SourceKey
	case ScopeChannel:
		return place.Channel
	}
	return place.Team
}

func idempotencyKey(team string, scope Scope, subject, norm string) string {
	h := sha256.Sum256([]byte(team + "\x00" + string(scope) + "\x00" + subject + "\x00" + norm))
	return hex.EncodeToString(h[:])
}

func containsID(ms []Memory, id uuid.UUID) bool {
	for _, m := range ms {
		if m.ID == id {
			return true
		}
	}
	return false
}

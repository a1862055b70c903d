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
	"github.com/rs/zerolog"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/llm"
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
	WrittenBy      provenance.WrittenBy
	MessageTS      string
	ObservedAt     time.Time
	CreatedAt      time.Time
	ExpiresAt      *time.Time
	ArchivedAt     *time.Time
	ArchivedReason string
	ArchivedBy     string
	SupersededBy   *uuid.UUID
	// Sensitive is the sensitive category the review found ("" for none):
	// such a memory never leaves the place it was said.
	Sensitive string
	Score     float64
}

// ShortID is the id prefix people see and type.
func (m Memory) ShortID() string { return m.ID.String()[:8] }

func fromRow(r db.Memory) Memory {
	return Memory{
		ID: r.ID, Team: r.Team, Scope: Scope(r.Scope), SubjectType: r.SubjectType, SubjectID: r.SubjectID,
		Kind: Kind(r.Kind), Content: r.Content, SourceKey: r.SourceKey, ChannelID: r.ChannelID,
		Visibility: provenance.Visibility(r.Visibility), ActorID: r.ActorID, ActorName: r.ActorName,
		WrittenBy: provenance.WrittenBy(r.WrittenBy), MessageTS: r.MessageTS, ObservedAt: r.ObservedAt, CreatedAt: r.CreatedAt,
		ExpiresAt: r.ExpiresAt, ArchivedAt: r.ArchivedAt, ArchivedReason: r.ArchivedReason, ArchivedBy: r.ArchivedBy,
		SupersededBy: r.SupersededBy, Sensitive: r.Sensitive,
	}
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
	db          *db.DB
	log         zerolog.Logger
	now         func() time.Time
	reviewer    Reviewer
	adjudicator Adjudicator
	embedder    llm.Embedder
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
	// Embedder is optional; with one, recall reranks its candidates by
	// meaning (see Store.Search).
	Embedder llm.Embedder
}

// New returns a store on d.
func New(d *db.DB, opts Options) *Store {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	return &Store{db: d, log: opts.Logger, now: now, reviewer: opts.Reviewer, adjudicator: opts.Adjudicator, embedder: opts.Embedder}
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
	WrittenBy provenance.WrittenBy
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
	Status Status
	Reason string
	// Note says what was changed from what was asked, and why (a workspace
	// memory stored for the channel only).
	Note       string
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
// a duplicate and superseding what a newer preference contradicts. Every
// model call (review, supersession) runs before the write transaction opens;
// the transaction then re-checks for a duplicate under the subject's lock.
func (s *Store) Remember(ctx context.Context, req WriteRequest) (Outcome, error) {
	if !req.Actor.IsHuman() {
		return Outcome{}, fmt.Errorf("remember: actor %q is not a person", req.Actor.ID)
	}
	w, out, err := s.review(ctx, req)
	if err != nil || out.Status == Rejected {
		return out, err
	}
	cands, err := s.db.Memories().FindSimilar(ctx, w.similarQuery())
	if err != nil {
		return Outcome{}, fmt.Errorf("remember: %w", err)
	}
	if dup := duplicateOf(cands, w.norm); dup != nil {
		out.Status, out.Memory, out.Reason = Duplicate, dup, "already remembered"
		return out, nil
	}
	contradicted := s.contradicted(ctx, w, cands)

	err = s.db.InTx(ctx, func(tx *db.Tx) error {
		mem := tx.Memories()
		if err := mem.LockSubject(ctx, w.lockKey()); err != nil {
			return err
		}
		// Another writer may have stored the same memory since the read above.
		again, err := mem.FindSimilar(ctx, w.similarQuery())
		if err != nil {
			return err
		}
		if dup := duplicateOf(again, w.norm); dup != nil {
			out.Status, out.Memory, out.Reason = Duplicate, dup, "already remembered"
			return nil
		}
		row, err := mem.Insert(ctx, w.insert(req, s.now()))
		if err != nil {
			return err
		}
		m := fromRow(row)
		out.Status, out.Memory = Stored, &m
		path := string(PathOf(req.WrittenBy))
		if err := mem.RecordEvent(ctx, db.MemoryEvent{MemoryID: m.ID, Team: m.Team, Action: "create", ActorID: req.Actor.ID, Path: path, Reason: w.note}); err != nil {
			return err
		}
		for _, id := range contradicted {
			old, err := mem.Archive(ctx, id, "superseded", req.Actor.ID, &m.ID)
			if errors.Is(err, db.ErrNotFound) {
				continue // archived meanwhile
			}
			if err != nil {
				return fmt.Errorf("supersede: %w", err)
			}
			if err := mem.RecordEvent(ctx, db.MemoryEvent{MemoryID: id, Team: m.Team, Action: "supersede", ActorID: req.Actor.ID, Path: path, Reason: "superseded by a newer memory", RelatedID: &m.ID}); err != nil {
				return err
			}
			out.Superseded = append(out.Superseded, fromRow(old))
		}
		return nil
	})
	if err != nil {
		return Outcome{}, fmt.Errorf("remember: %w", err)
	}
	if out.Status == Stored {
		s.changed(*out.Memory)
	}
	return out, nil
}

// write is a reviewed memory about to be stored: its canonical text, kind,
// scope and subject.
type write struct {
	team, subject string
	scope         Scope
	kind          Kind
	canonical     string
	norm          string
	sensitive     string // the sensitive category, or ""
	note          string // what was changed from what was asked, and why
}

func (w write) similarQuery() db.SimilarQuery {
	return db.SimilarQuery{
		Team: w.team, Scope: string(w.scope), SubjectType: w.scope.SubjectType(), SubjectID: w.subject,
		Normalized: w.norm, MinSimilarity: 0.3, Limit: 8,
	}
}

func (w write) lockKey() string { return w.team + "/" + string(w.scope) + "/" + w.subject }

func (w write) insert(req WriteRequest, now time.Time) db.MemoryInsert {
	observed := now
	if t, ok := tsTime(req.MessageTS); ok {
		observed = t
	}
	return db.MemoryInsert{
		Team: w.team, Scope: string(w.scope), SubjectType: w.scope.SubjectType(), SubjectID: w.subject,
		Kind: string(w.kind), Content: w.canonical, Normalized: w.norm, SourceKey: req.Place.SourceKey,
		ChannelID: req.Place.Channel, Visibility: string(req.Place.Visibility), ActorID: req.Actor.ID,
		ActorName: req.Actor.Name, WrittenBy: string(req.WrittenBy), MessageTS: req.MessageTS,
		ObservedAt: observed, ExpiresAt: req.ExpiresAt,
		IdempotencyKey: idempotencyKey(w.team, w.scope, w.subject, w.norm), Sensitive: w.sensitive,
	}
}

// review runs the deterministic checks and then the model's, and settles
// what would be stored and where. A rejection comes back as an Outcome.
func (s *Store) review(ctx context.Context, req WriteRequest) (write, Outcome, error) {
	canonical := Canonicalize(req.Content)
	out := Outcome{Canonical: canonical}
	if reason := s.deterministicReview(req, canonical); reason != "" {
		out.Status, out.Reason = Rejected, reason
		return write{}, out, nil
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
				return write{}, out, nil
			}
			if c := strings.TrimSpace(v.Canonical); c != "" && s.deterministicReview(req, c) == "" {
				canonical, out.Canonical = c, c
			}
		}
	}
	scope, note := s.scopeFor(req, kind)
	out.Note = note
	return write{
		team: req.Place.Team, subject: subjectID(scope, req.Actor, req.Place), scope: scope, kind: kind,
		canonical: canonical, norm: Normalize(canonical), note: note,
	}, out, nil
}

// scopeFor settles where a memory belongs. A preference is always its
// speaker's own. Writing for the whole workspace needs an admin: anyone
// else's workspace memory is stored for the channel it was said in, and the
// note says so, since it would otherwise be injected into every public turn
// of the workspace.
func (s *Store) scopeFor(req WriteRequest, kind Kind) (Scope, string) {
	scope := req.Scope
	switch {
	case scope == "":
		return DefaultScope(kind, req.Place, req.Content), ""
	case kind == KindPreference && scope != ScopePersonal:
		return ScopePersonal, ""
	case scope == ScopeWorkspace && !req.Actor.IsAdmin:
		return ScopeChannel, "stored for this channel only: only a workspace admin can write memories for the whole workspace"
	}
	return scope, ""
}

// duplicateOf returns the candidate that says the same as norm, if any.
func duplicateOf(cands []db.Similar, norm string) *Memory {
	for _, c := range cands {
		if c.Normalized == norm || (c.Sim >= DuplicateSimilarity && sameWords(c.Normalized, norm)) {
			m := fromRow(c.Memory)
			return &m
		}
	}
	return nil
}

// contradicted asks the adjudicator which older preferences of the subject
// a new preference replaces. It runs outside any transaction; a failure
// keeps the older memories.
func (s *Store) contradicted(ctx context.Context, w write, cands []db.Similar) []uuid.UUID {
	if w.kind != KindPreference || s.adjudicator == nil {
		return nil
	}
	var prefs []Memory
	for _, c := range cands {
		if Kind(c.Kind) == KindPreference {
			prefs = append(prefs, fromRow(c.Memory))
		}
	}
	if len(prefs) == 0 {
		return nil
	}
	ids, err := s.adjudicator.Contradicted(ctx, w.canonical, prefs)
	if err != nil {
		s.log.Warn().Err(err).Msg("supersession adjudication failed; keeping older memories")
		return nil
	}
	var out []uuid.UUID
	for _, id := range ids {
		if containsID(prefs, id) { // the adjudicator may only pick among the candidates
			out = append(out, id)
		}
	}
	return out
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

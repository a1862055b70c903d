package memory

import (
	"context"
	"errors"
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

// SubjectType says whom or what a memory is about, independent of who may
// see it (its Scope): a thread-only personal instruction is scope
// conversation, subject the user; knowledge about #deploys shared with the
// workspace is scope workspace, subject that channel.
type SubjectType string

const (
	SubjectUser         SubjectType = "user"
	SubjectConversation SubjectType = "conversation"
	SubjectChannel      SubjectType = "channel"
	SubjectTeam         SubjectType = "team"
)

// DefaultSubject is what a memory of scope s is about unless said otherwise.
func (s Scope) DefaultSubject() SubjectType {
	switch s {
	case ScopePersonal:
		return SubjectUser
	case ScopeConversation:
		return SubjectConversation
	case ScopeChannel:
		return SubjectChannel
	}
	return SubjectTeam
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
	// ErrReviewUnavailable is returned when a write's review could not be
	// completed (the model failed or answered out of schema): nothing was
	// stored, and asking again later may work.
	ErrReviewUnavailable = errors.New("the memory review could not be completed; nothing was stored")
	// ErrErased is returned for a write that an erasure overtook: one
	// that began before the erasure of its author or subject, and a turn's
	// (WriteRequest.Turn) that comes after the erasure of its author, or
	// of the DM it was said in. Nothing was stored.
	ErrErased = errors.New("what the memory came from was erased; nothing was stored")
)

// Memory is one stored memory.
type Memory struct {
	ID             uuid.UUID
	Team           string
	Scope          Scope
	SubjectType    SubjectType
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
	// Leg is the leg of recall that found it: LegLexical, LegVector or
	// LegBoth (hybrid recall), "" outside recall.
	Leg string
}

// ShortID is the id prefix people see and type.
func (m Memory) ShortID() string { return m.ID.String()[:8] }

// FromRow is the memory a database row holds, for readers below the store
// that check what a leg of recall returned against Visible (the vector
// bench, and tests).
func FromRow(r db.Memory) Memory { return fromRow(r) }

func fromRow(r db.Memory) Memory {
	return Memory{
		ID: r.ID, Team: r.Team, Scope: Scope(r.Scope), SubjectType: SubjectType(r.SubjectType), SubjectID: r.SubjectID,
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
	Reason    string // always set: why it is, or is not, stored
	Canonical string
	Sensitive string // a sensitive category, or "" for none
	// Restated is the memory without its sensitive part (a preference's
	// reason), or "": stored instead when it passes every check clean.
	Restated string
	Cues     []string // retrieval cues
	Expires  string   // an ISO 8601 end date the memory states, or ""
}

// Decider decides how a new memory relates to the similar active memories
// of its subject: a new memory, the same as one of them, an update of one,
// or a replacement for some. It is called before any transaction opens.
type Decider interface {
	Decide(ctx context.Context, newer string, kind Kind, candidates []Memory) (Decision, error)
}

// Action is what a Decider decided.
type Action string

const (
	ActionAdd       Action = "add"
	ActionDuplicate Action = "duplicate"
	ActionUpdate    Action = "update"
	ActionSupersede Action = "supersede"
)

// Decision is a Decider's answer. Target names the candidate a duplicate or
// an update is of; Merged is an update's merged content; Replaces, the
// candidates a supersession archives.
type Decision struct {
	Action   Action
	Target   uuid.UUID
	Merged   string
	Replaces []uuid.UUID
}

// Store is the memory store. Build it with New.
type Store struct {
	db       *db.DB
	log      zerolog.Logger
	now      func() time.Time
	reviewer Reviewer
	decider  Decider
	embedder llm.Embedder
	vec      vectorLeg
	onChange atomic.Pointer[func(team, subject string)]
	// holding, when set (by tests only), runs in persist's transaction once
	// a write holds off the erasures that would delete it (and a turn's has
	// found its turn): a test stops a write there to start an erasure
	// behind it.
	holding func()
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
	Logger   zerolog.Logger
	Now      func() time.Time
	Reviewer Reviewer // optional
	Decider  Decider  // optional; without one every non-duplicate is added
	// Embedder is optional; with one, recall reranks its candidates by
	// meaning (see Store.Search).
	Embedder llm.Embedder
	// EmbeddingModel names the Embedder's model: each stored embedding
	// says which model made it, and recall compares only the model's own.
	EmbeddingModel string
	// Vectors turns on the vector leg of recall (hybrid recall): set when
	// the server has pgvector (db.HasVectors) and there is an Embedder.
	// Without it, an Embedder reranks lexical candidates as before.
	Vectors bool
	// QueryDeadline bounds the query's embedding request in hybrid recall;
	// past it recall is lexical. Default DefaultQueryDeadline.
	QueryDeadline time.Duration
	// OnVectorFallback, if set, is told each time hybrid recall falls back
	// to lexical: reason "deadline" or "error".
	OnVectorFallback func(reason string)
}

// New returns a store on d.
func New(d *db.DB, opts Options) *Store {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	st := &Store{db: d, log: opts.Logger, now: now, reviewer: opts.Reviewer, decider: opts.Decider, embedder: opts.Embedder}
	st.vec = vectorLeg{on: opts.Vectors && opts.Embedder != nil, model: opts.EmbeddingModel, deadline: opts.QueryDeadline, fallback: opts.OnVectorFallback}
	if st.vec.deadline <= 0 {
		st.vec.deadline = DefaultQueryDeadline
	}
	return st
}

// WriteRequest asks to store one memory. Actor and Place come from the live
// event; Content is what was said.
type WriteRequest struct {
	Actor     provenance.Actor
	Place     provenance.Place
	MessageTS string
	Scope     Scope // empty: chosen from the kind and the place
	Kind      Kind  // empty: inferred
	// About is what the memory is about when it is not the scope's default
	// subject: the speaker (a thread-only instruction of scope
	// conversation) or a channel (AboutChannel, a channel id).
	About        SubjectType
	AboutChannel string
	Content      string
	// Said are the words that led to the write, from the live event: the
	// message that asked for an explicit remember, the cited lines of
	// passive learning. The detectors read them beside Content; they are
	// never stored.
	Said      []string
	ExpiresAt *time.Time
	WrittenBy provenance.WrittenBy
	// Turn is the turn the write is made for (the remember tool in a turn,
	// passive learning after it), from the live event, or 0 for a write
	// that is no turn's (a slash command, MCP, the CLI). A turn's write is
	// stored only while the turn and the message at MessageTS, by Actor,
	// are still in its thread's log: their erasure refuses it (ErrErased).
	Turn int64
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

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
	"github.com/mnemo-bot/mnemo/detect"
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
}

// ShortID is the id prefix people see and type.
func (m Memory) ShortID() string { return m.ID.String()[:8] }

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
	Sensitive string   // a sensitive category, or ""
	Cues      []string // retrieval cues
	Expires   string   // an ISO 8601 end date the memory states, or ""
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
	onChange atomic.Pointer[func(team, subject string)]
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
}

// New returns a store on d.
func New(d *db.DB, opts Options) *Store {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	return &Store{db: d, log: opts.Logger, now: now, reviewer: opts.Reviewer, decider: opts.Decider, embedder: opts.Embedder}
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
	ExpiresAt    *time.Time
	WrittenBy    provenance.WrittenBy
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
//
// The memories it compares the new one with are only those visible where it
// is written, as a model would be shown them (ModelAt): a merge, a duplicate
// or a supersession never quotes, moves or archives a memory from a more
// private place. A merge is reviewed as a new write is, and keeps the most
// private visibility and the sensitivity of its sources.
func (s *Store) Remember(ctx context.Context, req WriteRequest) (Outcome, error) {
	if !req.Actor.IsHuman() {
		return Outcome{}, fmt.Errorf("remember: actor %q is not a person", req.Actor.ID)
	}
	w, out, err := s.review(ctx, req)
	if err != nil || out.Status == Rejected {
		return out, err
	}
	v := ModelAt(req.Actor, req.Place)
	cands, err := s.candidates(ctx, s.db.Memories(), v, w)
	if err != nil {
		return Outcome{}, fmt.Errorf("remember: %w", err)
	}
	if dup := duplicateOf(cands, w.norm); dup != nil {
		out.Status, out.Memory, out.Reason = Duplicate, dup, "already remembered"
		return out, nil
	}
	decision, err := s.decide(ctx, w, cands)
	if err != nil {
		return Outcome{}, fmt.Errorf("remember: %w", err)
	}
	switch decision.Action {
	case ActionDuplicate:
		m := fromRow(findCandidate(cands, decision.Target).Memory)
		out.Status, out.Memory, out.Reason = Duplicate, &m, "already remembered in other words"
		return out, nil
	case ActionUpdate:
		target := fromRow(findCandidate(cands, decision.Target).Memory)
		reason, err := s.reviewMerge(ctx, req, &w, decision.Merged, target)
		if err != nil {
			return Outcome{}, fmt.Errorf("remember: %w", err)
		}
		if reason != "" {
			out.Status, out.Reason = Rejected, "merged with what is already remembered, it would not be stored: "+reason
			return out, nil
		}
		out.Canonical = w.canonical
	}
	replaced := decision.Replaces

	err = s.db.InTx(ctx, func(tx *db.Tx) error {
		mem := tx.Memories()
		if err := mem.LockSubject(ctx, w.lockKey()); err != nil {
			return err
		}
		// Another writer may have stored the same memory since the read above.
		again, err := s.candidates(ctx, mem, v, w)
		if err != nil {
			return err
		}
		if dup := duplicateOf(again, w.norm); dup != nil {
			out.Status, out.Memory, out.Reason = Duplicate, dup, "already remembered"
			return nil
		}
		row, err := mem.Insert(ctx, w.insert(req, s.now()))
		if errors.Is(err, db.ErrExists) {
			// The same words, kept where this place may not see them
			// (written before keys named private places): not quoted.
			out.Status, out.Memory, out.Reason = Duplicate, nil, "already remembered"
			return nil
		}
		if err != nil {
			return err
		}
		m := fromRow(row)
		out.Status, out.Memory = Stored, &m
		path := string(PathOf(req.WrittenBy))
		if err := mem.RecordEvent(ctx, db.MemoryEvent{MemoryID: m.ID, Team: m.Team, Action: "create", ActorID: req.Actor.ID, Path: path, Reason: w.note}); err != nil {
			return err
		}
		action, archived, reason := "supersede", "superseded", "superseded by a newer memory"
		if decision.Action == ActionUpdate {
			action, archived, reason = "update", "updated", "updated: the newer memory merges it"
		}
		for _, id := range replaced {
			old, err := mem.Archive(ctx, id, archived, req.Actor.ID, &m.ID)
			if errors.Is(err, db.ErrNotFound) {
				continue // archived meanwhile
			}
			if err != nil {
				return fmt.Errorf("%s: %w", action, err)
			}
			if err := mem.RecordEvent(ctx, db.MemoryEvent{MemoryID: id, Team: m.Team, Action: action, ActorID: req.Actor.ID, Path: path, Reason: reason, RelatedID: &m.ID}); err != nil {
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

// MaxCandidates is how many of the subject's similar memories a write is
// compared with.
const MaxCandidates = 8

// candidates are the subject's active memories similar to w that v may be
// shown through a model, closest first. The similarity query reads more
// than it keeps, so memories v may not see leave room for those it may.
func (s *Store) candidates(ctx context.Context, mem db.Memories, v Viewer, w write) ([]db.Similar, error) {
	q := w.similarQuery()
	q.Limit = 4 * MaxCandidates
	cands, err := mem.FindSimilar(ctx, q)
	if err != nil {
		return nil, err
	}
	out := cands[:0]
	for _, c := range cands {
		if len(out) < MaxCandidates && Visible(v, fromRow(c.Memory), Show) {
			out = append(out, c)
		}
	}
	return out, nil
}

// write is a reviewed memory about to be stored: its canonical text, kind,
// scope and subject.
type write struct {
	team, subject string
	subjectType   SubjectType
	scope         Scope
	kind          Kind
	canonical     string
	norm          string
	sensitive     string // the sensitive category, or ""
	note          string // what was changed from what was asked, and why
	cues          []string
	expires       *time.Time // an end the review found in the memory itself
	// visibility is the place's, or a more private one a merge keeps.
	visibility provenance.Visibility
}

func (w write) similarQuery() db.SimilarQuery {
	return db.SimilarQuery{
		Team: w.team, Scope: string(w.scope), SubjectType: string(w.subjectType), SubjectID: w.subject,
		Normalized: w.norm, MinSimilarity: 0.3, Limit: MaxCandidates,
	}
}

func (w write) lockKey() string {
	return w.team + "/" + string(w.scope) + "/" + string(w.subjectType) + "/" + w.subject
}

func (w write) insert(req WriteRequest, now time.Time) db.MemoryInsert {
	observed := now
	if t, ok := tsTime(req.MessageTS); ok {
		observed = t
	}
	expires := req.ExpiresAt
	if expires == nil {
		expires = w.expires
	}
	vis := w.visibility
	if vis == "" {
		vis = req.Place.Visibility
	}
	key := idempotencyKey(w.team, w.scope, w.subjectType, w.subject, w.norm)
	if vis != provenance.Public {
		// The same words said in a private place and then in public are two
		// memories: the public one must not wait on one it can't see.
		key = idempotencyKey(w.team, w.scope, w.subjectType, w.subject, w.norm+"\x00"+req.Place.Channel)
	}
	return db.MemoryInsert{
		Team: w.team, Scope: string(w.scope), SubjectType: string(w.subjectType), SubjectID: w.subject,
		Kind: string(w.kind), Content: w.canonical, Normalized: w.norm, SourceKey: req.Place.SourceKey,
		ChannelID: req.Place.Channel, Visibility: vis, ActorID: req.Actor.ID,
		ActorName: req.Actor.Name, WrittenBy: req.WrittenBy, MessageTS: req.MessageTS,
		ObservedAt: observed, ExpiresAt: expires, IdempotencyKey: key, Sensitive: w.sensitive,
		Cues: w.cues,
	}
}

// review runs the deterministic checks and then the model's, and settles
// what would be stored and where. A rejection comes back as an Outcome; a
// review that can't complete is ErrReviewUnavailable: it fails closed.
func (s *Store) review(ctx context.Context, req WriteRequest) (write, Outcome, error) {
	canonical := Canonicalize(req.Content)
	out := Outcome{Canonical: canonical}
	reject := func(reason string) (write, Outcome, error) {
		out.Status, out.Reason = Rejected, reason
		return write{}, out, nil
	}
	kind := req.Kind
	if kind == "" {
		kind = InferKind(canonical)
	}
	scope, note := s.scopeFor(req, kind)
	subjectType, subject, err := subjectOf(req, scope, kind)
	if err != nil {
		return reject(err.Error())
	}
	c, err := s.check(ctx, req, scope, kind, canonical)
	if err != nil {
		return write{}, out, err
	}
	if c.reason != "" {
		return reject(c.reason)
	}
	out.Canonical, out.Note = c.canonical, note
	w := write{
		team: req.Place.Team, subject: subject, subjectType: subjectType, scope: scope, kind: kind,
		canonical: c.canonical, norm: Normalize(c.canonical), note: note, sensitive: c.sensitive, cues: c.verdict.Cues,
	}
	if req.ExpiresAt == nil && c.verdict.Expires != "" {
		if exp, err := ParseExpiry(c.verdict.Expires, s.now()); err == nil {
			w.expires = exp
		}
	}
	return w, out, nil
}

// checked is what the review of one text found: why it may not be stored
// (or ""), its canonical form, its sensitive category and the model's
// verdict.
type checked struct {
	reason, canonical, sensitive string
	verdict                      ReviewVerdict
}

// check reviews req.Content, canonical as given: the detectors, then the
// deterministic checks, then the model, then the sensitive policy. Every
// text that is stored passes it: a new write's, and an update's merge.
func (s *Store) check(ctx context.Context, req WriteRequest, scope Scope, kind Kind, canonical string) (checked, error) {
	c := checked{canonical: canonical}
	reject := func(reason string) (checked, error) {
		c.reason = reason
		return c, nil
	}
	// The detectors run first, so a secret or an id is named as what it is
	// and never reaches the model.
	found, why := detect.Sensitive(req.Content)
	switch found {
	case detect.CategoryGovernmentID, detect.CategoryPaymentCard, detect.CategoryBankAccount, detect.CategoryPhone:
		if reason := s.deterministicReview(req, canonical); strings.HasPrefix(reason, "looks like a secret") {
			return reject(reason)
		}
		return reject("looks like personal data (" + why + "); ids, card and account numbers and phone numbers are never stored")
	}
	if reason := sensitivePolicy(req, scope, string(found)); reason != "" {
		return reject(reason)
	}
	if reason := s.deterministicReview(req, canonical); reason != "" {
		return reject(reason)
	}
	if s.reviewer != nil {
		v, err := s.reviewer.Review(ctx, canonical, kind)
		if err != nil {
			return c, fmt.Errorf("%w: %w", ErrReviewUnavailable, err)
		}
		if !v.Store {
			return reject(v.Reason)
		}
		if t := strings.TrimSpace(v.Canonical); t != "" && s.deterministicReview(req, t) == "" {
			c.canonical = t
		}
		c.verdict = v
	}
	c.sensitive = c.verdict.Sensitive
	if found != "" && c.sensitive != "third_party" {
		c.sensitive = string(found) // the detectors' category is certain
	}
	if reason := sensitivePolicy(req, scope, c.sensitive); reason != "" {
		return reject(reason)
	}
	return c, nil
}

// reviewMerge reviews an update's merged text as a new write is reviewed,
// and makes w the merge: it keeps the most private visibility of the place
// and the target, and the strongest sensitivity of the new memory, the
// target and the merged text, which the sensitive policy then judges. It
// returns why the merge may not be stored, or "".
func (s *Store) reviewMerge(ctx context.Context, req WriteRequest, w *write, merged string, target Memory) (string, error) {
	mreq := req
	mreq.Content = merged // the detectors and the checks read the merged text
	c, err := s.check(ctx, mreq, w.scope, w.kind, Canonicalize(merged))
	if err != nil {
		return "", err
	}
	if c.reason != "" {
		return c.reason, nil
	}
	sensitive := strongest(c.sensitive, w.sensitive, target.Sensitive)
	if reason := sensitivePolicy(req, w.scope, sensitive); reason != "" {
		return reason, nil
	}
	w.canonical, w.norm, w.sensitive = c.canonical, Normalize(c.canonical), sensitive
	w.visibility = mostPrivate(req.Place.Visibility, target.Visibility)
	if len(c.verdict.Cues) > 0 {
		w.cues = c.verdict.Cues
	}
	return "", nil
}

// strongest is the sensitive category a memory made of sources takes:
// third_party (which no one but its subject may store) before any other,
// any other before none.
func strongest(categories ...string) string {
	out := ""
	for _, c := range categories {
		if c == "third_party" {
			return c
		}
		if out == "" {
			out = c
		}
	}
	return out
}

// mostPrivate is the more private of two visibilities: a DM before a
// private place, a private place before a public one.
func mostPrivate(a, b provenance.Visibility) provenance.Visibility {
	rank := map[provenance.Visibility]int{provenance.Public: 0, provenance.Private: 1, provenance.DM: 2}
	ra, oka := rank[a]
	rb, okb := rank[b]
	switch {
	case !oka:
		return provenance.Private // unknown: private, so nothing leaks
	case !okb:
		return provenance.Private
	case rb > ra:
		return b
	}
	return a
}

// sensitivePolicy says why a memory in a sensitive category may not be
// stored, or "". Such a memory is never learned from conversation, never
// shared, and kept only where its subject said it in private; there it
// never leaves that place.
func sensitivePolicy(req WriteRequest, scope Scope, category string) string {
	switch {
	case category == "":
		return ""
	case category == "third_party":
		return "a personal fact about someone else; only they can ask to remember it"
	case req.WrittenBy == provenance.ByPassive:
		return "sensitive personal data (" + category + ") is never learned from conversation"
	case scope != ScopePersonal:
		return "sensitive personal data (" + category + ") is only kept as a person's own memory, never shared"
	case req.Place.Visibility == provenance.Public:
		return "sensitive personal data (" + category + ") is only kept when you tell me in a DM or a private conversation, and it stays there"
	}
	return ""
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
	case kind == KindPreference && scope != ScopePersonal && scope != ScopeConversation:
		return ScopePersonal, "" // a preference is someone's own, everywhere or in this thread
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

// decide asks the decider how w relates to the subject's similar active
// memories, outside any transaction. The answer may only name candidates; a
// decider that can't answer fails the write closed.
func (s *Store) decide(ctx context.Context, w write, cands []db.Similar) (Decision, error) {
	if s.decider == nil || len(cands) == 0 {
		return Decision{Action: ActionAdd}, nil
	}
	ms := make([]Memory, 0, len(cands))
	for _, c := range cands {
		ms = append(ms, fromRow(c.Memory))
	}
	d, err := s.decider.Decide(ctx, w.canonical, w.kind, ms)
	if err != nil {
		return Decision{}, fmt.Errorf("%w: %w", ErrReviewUnavailable, err)
	}
	bad := func(format string, args ...any) (Decision, error) {
		return Decision{}, fmt.Errorf("%w: the decision %s", ErrReviewUnavailable, fmt.Sprintf(format, args...))
	}
	switch d.Action {
	case ActionAdd:
		d.Replaces = nil
	case ActionDuplicate:
		if findCandidate(cands, d.Target) == nil {
			return bad("names %s, which is no candidate", d.Target)
		}
	case ActionUpdate:
		if findCandidate(cands, d.Target) == nil {
			return bad("names %s, which is no candidate", d.Target)
		}
		if Canonicalize(d.Merged) == "" {
			return bad("merges into no text")
		}
		d.Replaces = []uuid.UUID{d.Target} // the merge itself is reviewed by reviewMerge
	case ActionSupersede:
		if len(d.Replaces) == 0 {
			return bad("supersedes nothing")
		}
		for _, id := range d.Replaces {
			if findCandidate(cands, id) == nil {
				return bad("names %s, which is no candidate", id)
			}
		}
	default:
		return bad("is %q", d.Action)
	}
	return d, nil
}

func findCandidate(cands []db.Similar, id uuid.UUID) *db.Similar {
	for i := range cands {
		if cands[i].ID == id {
			return &cands[i]
		}
	}
	return nil
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
	if kind := detect.DetectSecret(req.Content); kind != "" {
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

// subjectOf settles whom or what a memory is about. A preference is always
// about its speaker; a conversation memory may be too (a thread-only
// instruction); a channel or workspace memory may be about another channel.
func subjectOf(req WriteRequest, scope Scope, kind Kind) (SubjectType, string, error) {
	about := req.About
	if kind == KindPreference {
		about = SubjectUser
	}
	switch {
	case about == "" || about == scope.DefaultSubject():
		return scope.DefaultSubject(), subjectID(scope, req.Actor, req.Place), nil
	case about == SubjectUser && scope == ScopeConversation:
		return SubjectUser, req.Actor.ID, nil
	case about == SubjectChannel && (scope == ScopeWorkspace || scope == ScopeChannel):
		ch := req.AboutChannel
		if ch == "" {
			ch = req.Place.Channel
		}
		if !channelID.MatchString(ch) {
			return "", "", fmt.Errorf("the channel a memory is about must be a Slack channel id, not %q", ch)
		}
		return SubjectChannel, ch, nil
	}
	return "", "", fmt.Errorf("a %s memory can't be about %s", scope, about)
}

var channelID = regexp.MustCompile(`^[CG][A-Z0-9]{2,}$`)

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

func idempotencyKey(team string, scope Scope, subjectType SubjectType, subject, norm string) string {
	key := team + "\x00" + string(scope) + "\x00" + subject + "\x00" + norm
	if subjectType != scope.DefaultSubject() {
		key += "\x00" + string(subjectType) // keys of rows written before subjects stay the same
	}
	h := sha256.Sum256([]byte(key))
	return hex.EncodeToString(h[:])
}

package memory

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/provenance"
)

// Remember stores one memory. It runs five stages, in order:
//
//  1. canonicalize: the canonical text and its kind;
//  2. scope: where the memory belongs and whom it is about;
//  3. review: the detectors, the deterministic checks, the model's review,
//     and the sensitive policy on the most sensitive verdict (review.go);
//  4. decide: how it relates to the subject's memories visible where it is
//     written, as a model would be shown them: new, a duplicate, an update
//     (whose merged text goes through stage 3 again) or a supersession;
//  5. persist: one short transaction under the subject's lock.
//
// Stage 5 reads the subject's similar memories under its lock in any case
// (a duplicate may have been stored meanwhile), so a write is persisted
// first: one that meets no similar memory it could be compared with, as
// most don't, is new and stored at once, and one that meets some leaves
// its transaction with them, is decided, and is persisted again. Stage 4
// reads nothing of its own.
//
// A decision is made on what the first persist read, outside its
// transaction, so what it merges or replaces may be gone by the second:
// forgotten, or merged or replaced by another write. The second persist
// checks, under the lock, that every memory the decision merges or
// replaces is still active; when one isn't, nothing of the decision is
// stored and the write is decided once more, against the subject's
// memories as they are now. A second decision overtaken in the same way
// is not retried: the write is stored on its own, as new, and its note
// says so.
//
// Every model call runs in stages 3 and 4, outside any transaction. A
// review that can't complete is ErrReviewUnavailable and stores nothing.
// A write under way when an erasure that deletes it starts is waited for
// and deleted. A write that began (before stage 3) before the erasure of
// its author or subject, and would be stored after it, is ErrErased and
// stores nothing (begin); so is a turn's write (req.Turn) that comes after
// the erasure of its author, or of the DM it was said in.
func (s *Store) Remember(ctx context.Context, req WriteRequest) (Outcome, error) {
	if !req.Actor.IsHuman() {
		return Outcome{}, fmt.Errorf("remember: actor %q is not a person", req.Actor.ID)
	}
	w := canonicalize(req)
	if reason := scope(&w); reason != "" {
		return w.outcome(Rejected, reason, nil), nil
	}
	end, err := s.begin(ctx, &w)
	if err != nil {
		return Outcome{}, fmt.Errorf("remember: %w", err)
	}
	defer end()
	v, err := s.review(ctx, &w, req.Content, req.Said)
	if err != nil {
		return Outcome{}, fmt.Errorf("remember: %w", err)
	}
	if v.reason != "" {
		return w.outcome(Rejected, v.reason, nil), nil
	}
	if reason := w.accept(v, req.ExpiresAt == nil, s.now()); reason != "" {
		return w.outcome(Rejected, reason, nil), nil
	}
	out, met, err := s.persist(ctx, w, plan{action: ActionAdd, first: true})
	for decisions := 1; err == nil && met != nil; decisions++ {
		d := w // decide makes it the merge, for an update
		p, derr := s.decide(ctx, &d, met)
		if derr != nil {
			return Outcome{}, fmt.Errorf("remember: %w", derr)
		}
		if p.status != "" {
			return d.outcome(p.status, p.reason, p.existing), nil
		}
		out, met, err = s.persist(ctx, d, p)
		switch {
		case !errors.Is(err, errOvertaken):
		case decisions < MaxDecisions:
			out, met, err = s.persist(ctx, w, plan{action: ActionAdd, first: true})
		default:
			w.note = joinNotes(w.note, "stored on its own: the memories it was to be merged with or replace changed while it was decided")
			out, met, err = s.persist(ctx, w, plan{action: ActionAdd})
		}
	}
	if err != nil {
		return Outcome{}, fmt.Errorf("remember: %w", err)
	}
	if out.Status == Stored {
		s.changed(*out.Memory)
	}
	return out, nil
}

// write is one memory on its way through Remember's stages.
type write struct {
	req           WriteRequest
	team, subject string
	subjectType   SubjectType
	scope         Scope
	kind          Kind
	canonical     string
	norm          string
	sensitive     string // the sensitive category, or ""
	note          string // what was changed from what was asked, and why
	cues          []string
	// expires is the memory's end: the one asked for, else one the review
	// found in the memory itself; an update's is its sources' (decide).
	expires *time.Time
	// visibility is the place's, or a more private one a merge keeps.
	visibility provenance.Visibility
	// record is the write's record of being under way (begin), shared by
	// the copies decide makes.
	record *writeRecord
}

// writeRecord is a write's record of being under way (begin): its id, and
// whether a persist that committed has ended it.
type writeRecord struct {
	id    int64
	ended bool
}

// canonicalize is stage 1: the canonical text, and the kind when the
// caller gave none.
func canonicalize(req WriteRequest) write {
	w := write{req: req, team: HomeOf(req.Actor, req.Place).Team, kind: req.Kind, canonical: Canonicalize(req.Content), visibility: req.Place.Visibility, expires: req.ExpiresAt}
	if w.kind == "" {
		w.kind = InferKind(w.canonical)
	}
	return w
}

// scope is stage 2: where the memory belongs and whom it is about. It
// returns why it can't be stored, or "".
//
// A preference is always its speaker's own, everywhere or in one thread.
// Writing for the whole workspace needs an admin: anyone else's workspace
// memory is stored for the channel it was said in, and the note says so,
// since it would otherwise be injected into every public turn of the
// workspace. A memory is about the scope's default subject unless asked:
// a thread-only instruction may be about its speaker, a channel or
// workspace memory about another channel.
func scope(w *write) string {
	req := w.req
	w.scope = req.Scope
	switch {
	case w.scope == "":
		w.scope = DefaultScope(w.kind, req.Place, req.Content)
	case w.kind == KindPreference && w.scope != ScopePersonal && w.scope != ScopeConversation:
		w.scope = ScopePersonal
	case w.scope == ScopeWorkspace && !req.Actor.IsAdmin:
		w.scope, w.note = ScopeChannel, "stored for this channel only: only a workspace admin can write memories for the whole workspace"
	}
	about := req.About
	if w.kind == KindPreference {
		about = SubjectUser
	}
	switch {
	case about == "" || about == w.scope.DefaultSubject():
		w.subjectType, w.subject = w.scope.DefaultSubject(), subjectID(w.scope, req.Actor, req.Place)
	case about == SubjectUser && w.scope == ScopeConversation:
		w.subjectType, w.subject = SubjectUser, req.Actor.ID
	case about == SubjectChannel && (w.scope == ScopeWorkspace || w.scope == ScopeChannel):
		w.subjectType, w.subject = SubjectChannel, req.AboutChannel
		if w.subject == "" {
			w.subject = req.Place.Channel
		}
		if !channelID.MatchString(w.subject) {
			return fmt.Sprintf("the channel a memory is about must be a Slack channel id, not %q", w.subject)
		}
	default:
		return fmt.Sprintf("a %s memory can't be about %s", w.scope, about)
	}
	if w.scope == ScopeWorkspace && req.Place.Org != "" && !req.Actor.ExternalTo(req.Place) {
		// The organisation opted into org-scope memories: a workspace
		// memory is all its workspaces' (Viewer.Org).
		w.team = req.Place.Org
	}
	if w.scope == ScopeChannel && req.Actor.ExternalTo(req.Place) {
		// An external member's channel memory is the shared channel's,
		// with its host, for everyone in it (Viewer.Guest); the rest of
		// what they write is their own team's (HomeOf).
		w.team = req.Place.Team
	}
	return ""
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

var (
	firstPerson = regexp.MustCompile(`(?i)^\s*(please\s+)?((remember|note)( that)?[:,]?\s+)?(i|i'm|i am|i've|my|me)\b`)
	channelID   = regexp.MustCompile(`^[CG][A-Z0-9]{2,}$`)
)

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

// accept makes what the review found of the memory's text what is stored.
// withExpiry takes the end the review found in the memory itself; an end
// already past is the reason the memory is not stored.
func (w *write) accept(v verdict, withExpiry bool, now time.Time) (reject string) {
	w.canonical, w.norm, w.sensitive = v.canonical, Normalize(v.canonical), v.sensitive
	if len(v.cues) > 0 {
		w.cues = v.cues
	}
	w.note = joinNotes(w.note, v.note)
	if withExpiry && v.expires != "" {
		exp, err := ParseExpiry(v.expires, now)
		if err != nil {
			// The review's answer is a well-formed date (ModelJudge checks
			// it): one in the past is a memory whose end has come.
			return fmt.Sprintf("it says it ends %s, which has passed; give an expiry to keep it", v.expires)
		}
		w.expires = exp
	}
	return ""
}

// plan is what stage 4 decided. A status means nothing is persisted: the
// write is a duplicate of existing (which may be nil: kept where this
// place may not see it), or rejected. Otherwise action is persisted,
// archiving replaces.
type plan struct {
	status   Status
	reason   string
	existing *Memory
	action   Action
	replaces []uuid.UUID
	// first is a persist before any decision: it stores only a write that
	// meets no candidate to decide against.
	first bool
}

// joinNotes is note a, then b.
func joinNotes(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// MaxCandidates is how many of the subject's similar memories a write is
// compared with.
const MaxCandidates = 8

// MaxDecisions is how many times one write is decided (stage 4) when what
// a decision merges or replaces is gone by the time it is persisted; past
// it, the write is stored on its own (see Remember).
const MaxDecisions = 2

// errOvertaken is persist's answer to a decision that merges or replaces
// a memory no longer active when it is persisted: nothing was stored.
var errOvertaken = errors.New("a memory the decision merges or replaces is no longer active")

// DuplicateSimilarity is the pg_trgm similarity of normalized content above
// which two memories of one subject are candidates for being the same
// memory; sameWords confirms, so "Project A …" and "Project B …" stay apart.
const DuplicateSimilarity = 0.6

// decide is stage 4: how the memory relates to the subject's similar
// active memories that may be shown through a model where it is written
// (ModelAt), so that a merge, a duplicate or a supersession never quotes,
// moves or archives a memory from a more private place. The Decider is
// asked outside any transaction; its answer may only name candidates, and
// one that can't answer fails the write closed. An update's merged text is
// reviewed as a new write is, and keeps the most private visibility and the
// strongest sensitivity of its sources. An update merges only memories
// whose ends agree: a write that expires and a memory that doesn't (or the
// other way round) are kept apart, the write stored on its own, since the
// merge would either end the permanent part with the temporary one or
// keep the temporary part for good; two that both expire merge into one
// that ends with the later.
//
// cands are the candidates a first persist met (at least one, no
// duplicate among them); it returns them only when there is a Decider.
func (s *Store) decide(ctx context.Context, w *write, cands []db.Similar) (plan, error) {
	ms := make([]Memory, 0, len(cands))
	for _, c := range cands {
		ms = append(ms, fromRow(c.Memory))
	}
	d, err := s.decider.Decide(ctx, w.canonical, w.kind, ms)
	if err != nil {
		return plan{}, fmt.Errorf("%w: %w", ErrReviewUnavailable, err)
	}
	bad := func(format string, args ...any) (plan, error) {
		return plan{}, fmt.Errorf("%w: the decision %s", ErrReviewUnavailable, fmt.Sprintf(format, args...))
	}
	target := candidate(cands, d.Target)
	switch d.Action {
	case ActionAdd:
		return plan{action: ActionAdd}, nil
	case ActionDuplicate:
		if target == nil {
			return bad("names %s, which is no candidate", d.Target)
		}
		return plan{status: Duplicate, reason: "already remembered in other words", existing: target}, nil
	case ActionUpdate:
		if target == nil {
			return bad("names %s, which is no candidate", d.Target)
		}
		if Canonicalize(d.Merged) == "" {
			return bad("merges into no text")
		}
		if (w.expires == nil) != (target.ExpiresAt == nil) {
			w.note = joinNotes(w.note, "stored on its own rather than merged with a similar memory: one of them expires and the other does not")
			return plan{action: ActionAdd}, nil
		}
		v, err := s.review(ctx, w, d.Merged, w.req.Said)
		if err != nil {
			return plan{}, err
		}
		if v.reason == "" {
			v.sensitive = strongest(v.sensitive, w.sensitive, target.Sensitive)
			v.reason = sensitivePolicy(w.req, w.scope, v.sensitive)
		}
		if v.reason != "" {
			return plan{status: Rejected, reason: "merged with what is already remembered, it would not be stored: " + v.reason}, nil
		}
		w.accept(v, false, s.now()) // no expiry: nothing to reject
		w.visibility = mostPrivate(w.req.Place.Visibility, target.Visibility)
		w.expires = later(w.expires, target.ExpiresAt)
		return plan{action: ActionUpdate, replaces: []uuid.UUID{target.ID}}, nil
	case ActionSupersede:
		if len(d.Replaces) == 0 {
			return bad("supersedes nothing")
		}
		for _, id := range d.Replaces {
			if candidate(cands, id) == nil {
				return bad("names %s, which is no candidate", id)
			}
		}
		return plan{action: ActionSupersede, replaces: distinct(d.Replaces)}, nil
	}
	return bad("is %q", d.Action)
}

// similar asks for the subject's active memories similar to w. It asks
// for more than candidates keeps, so memories that may not be shown leave
// room for those that may.
func (w write) similar() db.SimilarQuery {
	return db.SimilarQuery{
		Team: w.team, Scope: string(w.scope), SubjectType: string(w.subjectType), SubjectID: w.subject,
		Normalized: w.norm, MinSimilarity: 0.3, Limit: 4 * MaxCandidates,
	}
}

// candidates are the similar memories found that may be shown through a
// model where w is written, closest first.
func candidates(w write, found []db.Similar) []db.Similar {
	v := ModelAt(w.req.Actor, w.req.Place)
	out := found[:0]
	for _, c := range found {
		if len(out) < MaxCandidates && Visible(v, fromRow(c.Memory), Show) {
			out = append(out, c)
		}
	}
	return out
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

// candidate is the candidate with id, or nil.
func candidate(cands []db.Similar, id uuid.UUID) *Memory {
	for _, c := range cands {
		if c.ID == id {
			m := fromRow(c.Memory)
			return &m
		}
	}
	return nil
}

// distinct is ids without repeats, in order.
func distinct(ids []uuid.UUID) []uuid.UUID {
	var out []uuid.UUID
	for _, id := range ids {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// later is the later of two ends, nil when either is nil (no end).
func later(a, b *time.Time) *time.Time {
	if a == nil || b == nil {
		return nil
	}
	if b.After(*a) {
		return b
	}
	return a
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

// begin records that w is under way, before its review (db.Memories.
// BeginWrite): an erasure that would delete what it writes, committed
// before it is stored, takes the record, and persist refuses it. An
// erasure is wholly before the record (the write is then a new
// instruction, and is kept) or wholly after it. end deletes the record
// unless a persist did, whatever ended the write.
func (s *Store) begin(ctx context.Context, w *write) (end func(), err error) {
	rec := &writeRecord{}
	if rec.id, err = s.db.Memories().BeginWrite(ctx, w.writer()); err != nil {
		if errors.Is(err, db.ErrErasing) {
			return nil, fmt.Errorf("%w (%w)", ErrErased, err) // its workspace is being erased
		}
		return nil, err
	}
	w.record = rec
	team := w.req.Place.Team
	return func() {
		if rec.ended {
			return
		}
		// With a deadline of its own: a write ended by its context still
		// has its record deleted.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), endWriteTimeout)
		defer cancel()
		if _, err := s.db.Memories().EndWrite(ctx, team, rec.id); err != nil {
			s.log.Warn().Err(err).Msg("remember: the record of a write under way was left behind; it goes within db.WriteLifetime")
		}
	}, nil
}

// endWriteTimeout bounds the deletion of a write's record.
const endWriteTimeout = 5 * time.Second

// persist is stage 5: one short transaction that takes the subject's lock,
// holds off the erasures that would delete the write (db.Writer), checks
// for a duplicate (another writer may have stored one since stage 4),
// inserts the memory with its history and archives what it replaces.
// A first persist (p.first) that meets candidates a Decider should see
// stores nothing and returns them (met), for stage 4. A decision that
// merges or replaces a memory that is no longer active (forgotten, past
// its expiry, or merged or replaced by another write since stage 4) stores
// nothing and is errOvertaken. A write whose record (begin) an erasure
// took, or a turn's whose turn, or the message that led to it, an erasure
// took, is ErrErased and stores nothing. A memory with the same
// idempotency key that is past its expiry but not yet archived by the
// sweep is archived as the sweep would, so that it does not keep the
// memory out.
func (s *Store) persist(ctx context.Context, w write, p plan) (Outcome, []db.Similar, error) {
	path, ins := string(PathOf(w.req.WrittenBy)), w.insert(s.now())
	ins.Created = &db.Creation{Path: path, Reason: w.note}
	action, archived, reason := "supersede", "superseded", "superseded by a newer memory"
	if p.action == ActionUpdate {
		action, archived, reason = "update", "updated", "updated: the newer memory merges it"
	}
	var (
		row  db.Memory
		old  []db.Memory
		dup  *Memory
		kept bool         // the same words, kept where this place may not see them
		met  []db.Similar // candidates for a decision, on a first persist
	)
	final := !p.first || s.decider == nil // no decision can follow
	err := s.db.InTx(ctx, func(tx *db.Tx) error {
		mem := tx.Memories()
		err := mem.LockSubject(ctx, subjectLock(w.team, w.scope, w.subjectType, w.subject))
		if err != nil {
			return err
		}
		// Before any memory row: an erasure that would delete what this
		// writes waits for this transaction and then deletes it, or this
		// waits for the erasure. The write then checks that the erasure
		// did not overtake it: a turn's that its turn is still there (a
		// turn still running when its author is erased must not write
		// after the erasure), and every write that its record is. A write
		// that began after the erasure is a new instruction of a live
		// person, and is kept.
		if err := mem.HoldErasure(ctx, w.writer()); err != nil {
			return err
		}
		if w.req.Turn != 0 {
			kept, err := mem.TurnSourceKept(ctx, db.TurnSource{Team: w.req.Place.Team, Turn: w.req.Turn, MessageTS: w.req.MessageTS, Author: w.req.Actor.ID})
			if err != nil {
				return err
			}
			if !kept {
				return ErrErased
			}
		}
		// An erasure that committed since the write began took its record:
		// stored now, it would outlive the erasure of a person who may be
		// gone (a deleted account). A persist that may go on to a decision
		// leaves the record for the next; any other ends the write here.
		var recorded bool
		if final {
			recorded, err = mem.EndWrite(ctx, w.req.Place.Team, w.record.id)
		} else {
			recorded, err = mem.WriteKept(ctx, w.req.Place.Team, w.record.id)
		}
		if err != nil {
			return err
		}
		if !recorded {
			return ErrErased
		}
		if s.holding != nil {
			s.holding()
		}
		found, err := mem.FindSimilar(ctx, w.similar())
		if err != nil {
			return err
		}
		cands := candidates(w, found)
		if dup = duplicateOf(cands, w.norm); dup != nil {
			return nil
		}
		if p.first && s.decider != nil && len(cands) > 0 {
			met = cands
			return nil
		}
		if len(p.replaces) > 0 {
			// Forget takes this lock too; the rows stay locked until the
			// end, for what does not (the expiry sweep, an erasure).
			active, err := mem.ActiveIDs(ctx, w.team, p.replaces)
			if err != nil {
				return err
			}
			if len(active) != len(p.replaces) {
				return errOvertaken
			}
		}
		row, err = mem.Insert(ctx, ins)
		if errors.Is(err, db.ErrExists) {
			// The same words may be kept out by a memory past its expiry
			// that the sweep has not reached (FindSimilar leaves it out):
			// archived as the sweep would, it makes room.
			n, aerr := mem.ArchiveExpiredIdentical(ctx, w.team, ins.IdempotencyKey, uuid.Nil)
			if aerr != nil {
				return aerr
			}
			if n > 0 {
				row, err = mem.Insert(ctx, ins)
			}
		}
		if errors.Is(err, db.ErrExists) {
			kept = true // written before keys named private places: not quoted
			return nil
		}
		if err != nil {
			return err
		}
		for _, id := range p.replaces {
			o, err := mem.Archive(ctx, id, archived, w.req.Actor.ID, &row.ID)
			if err != nil { // active and locked above: ErrNotFound can't be
				return fmt.Errorf("%s: %w", action, err)
			}
			if err := mem.RecordEvent(ctx, db.MemoryEvent{MemoryID: id, Team: row.Team, Action: action, ActorID: w.req.Actor.ID, Path: path, Reason: reason, RelatedID: &row.ID}); err != nil {
				return err
			}
			old = append(old, o)
		}
		return nil
	})
	if err == nil && final {
		w.record.ended = true
	}
	switch {
	case err != nil:
		return Outcome{}, nil, err
	case dup != nil || kept:
		return w.outcome(Duplicate, "already remembered", dup), nil, nil
	case met != nil:
		return Outcome{}, met, nil
	}
	m := fromRow(row)
	out := w.outcome(Stored, "", &m)
	for _, o := range old {
		out.Superseded = append(out.Superseded, fromRow(o))
	}
	return out, nil, nil
}

// subjectLock is the key of the lock that serializes the writes of one
// subject's memories: Remember's persist, Forget and Restore take it.
func subjectLock(team string, scope Scope, subjectType SubjectType, subject string) string {
	return team + "/" + string(scope) + "/" + string(subjectType) + "/" + subject
}

// writer is w as the erasures that would delete it see it: said in the
// place's team, stored under w.team, by its actor and about its subject
// when that is a person.
func (w write) writer() db.Writer {
	wr := db.Writer{Team: w.req.Place.Team, Stored: w.team, Author: w.req.Actor.ID}
	if w.subjectType == SubjectUser {
		wr.Subject = w.subject
	}
	return wr
}

// insert is the row w becomes.
func (w write) insert(now time.Time) db.MemoryInsert {
	req := w.req
	observed := now
	if t, ok := tsTime(req.MessageTS); ok {
		observed = t
	}
	// The same words said in a private place and then in public are two
	// memories: the public one must not wait on one it can't see.
	key := w.norm
	if w.visibility != provenance.Public {
		key += "\x00" + req.Place.Channel
	}
	key = w.team + "\x00" + string(w.scope) + "\x00" + w.subject + "\x00" + key
	if w.subjectType != w.scope.DefaultSubject() {
		key += "\x00" + string(w.subjectType) // keys of rows written before subjects stay the same
	}
	h := sha256.Sum256([]byte(key))
	return db.MemoryInsert{
		Team: w.team, Scope: string(w.scope), SubjectType: string(w.subjectType), SubjectID: w.subject,
		Kind: string(w.kind), Content: w.canonical, Normalized: w.norm, SourceKey: req.Place.SourceKey,
		ChannelID: req.Place.Channel, Visibility: w.visibility, ActorID: req.Actor.ID,
		ActorName: req.Actor.Name, WrittenBy: req.WrittenBy, MessageTS: req.MessageTS,
		ObservedAt: observed, ExpiresAt: w.expires, IdempotencyKey: hex.EncodeToString(h[:]), Sensitive: w.sensitive,
		Cues: w.cues,
	}
}

// outcome is Remember's answer for w.
func (w write) outcome(status Status, reason string, m *Memory) Outcome {
	out := Outcome{Status: status, Reason: reason, Canonical: w.canonical, Memory: m}
	if status != Rejected {
		out.Note = w.note
	}
	return out
}

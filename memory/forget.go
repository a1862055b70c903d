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
)

// Path says through which surface a change was made, for a memory's history.
type Path string

const (
	PathSlash  Path = "slash"  // a /mnemo command
	PathHome   Path = "home"   // a button on the App Home
	PathSystem Path = "system" // mnemo itself (expiry)
	PathCLI    Path = "cli"    // mnemo memories, an operator's command line
)

// PathOf is the history path of a write made as by.
func PathOf(by provenance.WrittenBy) Path { return Path(by) }

// CanForget says whether v's actor may forget m, and why not. m must be
// visible to v; a memory v can't see is never named.
//   - personal: only its subject, or an admin;
//   - conversation or channel: any person in that conversation or channel;
//   - workspace: its author, or an admin.
func CanForget(v Viewer, m Memory) (bool, string) {
	actor, place := v.Actor, v.Place
	if !actor.IsHuman() {
		return false, "only a person can forget memories"
	}
	switch m.Scope {
	case ScopePersonal:
		if m.SubjectID == actor.ID || actor.IsAdmin {
			return true, ""
		}
		return false, "it is someone else's personal memory; only they or an admin can forget it"
	case ScopeConversation:
		if m.SubjectType == SubjectUser && m.SubjectID != actor.ID && !actor.IsAdmin {
			return false, "it is someone else's instruction for this thread; only they or an admin can forget it"
		}
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
	Candidates []Memory // set when the reference was ambiguous; all visible to the viewer
	Refusal    string   // set when not allowed
}

// Forget archives the one memory ref names among those v may see: an id, an
// unambiguous id prefix, or a query that matches exactly one memory. It
// never deletes.
func (s *Store) Forget(ctx context.Context, v Viewer, ref, reason string, path Path) (ForgetOutcome, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return ForgetOutcome{}, fmt.Errorf("forget: say which memory: an id or words that match it")
	}
	cands, err := s.Resolve(ctx, v, ref)
	if errors.Is(err, ErrNotFound) {
		cands, err = s.Search(ctx, v, ref, 5, true)
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
	return s.ForgetMemory(ctx, v, active[0], reason, path)
}

// ForgetMemory archives m, a memory the caller has already resolved, if v
// may see it and may forget it.
func (s *Store) ForgetMemory(ctx context.Context, v Viewer, m Memory, reason string, path Path) (ForgetOutcome, error) {
	if !Visible(v, m, Show) {
		return ForgetOutcome{}, fmt.Errorf("forget: %w", ErrNotFound)
	}
	if ok, why := CanForget(v, m); !ok {
		return ForgetOutcome{Refusal: why}, nil
	}
	// The reason is the model's or an MCP client's words, stored with the
	// archive and its event: a NUL in it would fail the forget.
	if reason = strings.TrimSpace(sanitize(reason)); reason == "" {
		reason = "forgotten on request"
	}
	var f Memory
	err := s.db.InTx(ctx, func(tx *db.Tx) error {
		// The subject's lock, which a write holds while it checks that what
		// it merges or replaces is still active (persist): a memory being
		// merged is forgotten before the merge is stored, or not at all.
		if err := tx.Memories().LockSubject(ctx, subjectLock(m.Team, m.Scope, m.SubjectType, m.SubjectID)); err != nil {
			return err
		}
		row, err := tx.Memories().Archive(ctx, m.ID, reason, v.Actor.ID, nil)
		if err != nil {
			return err
		}
		f = fromRow(row)
		return tx.Memories().RecordEvent(ctx, db.MemoryEvent{MemoryID: m.ID, Team: m.Team, Action: "archive", ActorID: v.Actor.ID, Path: string(path), Reason: reason})
	})
	if errors.Is(err, db.ErrNotFound) {
		return ForgetOutcome{}, fmt.Errorf("forget: %w", ErrNotFound)
	}
	if err != nil {
		return ForgetOutcome{}, fmt.Errorf("forget: %w", err)
	}
	s.changed(f)
	return ForgetOutcome{Forgotten: &f}, nil
}

// ForgetMine forgets one of the memories a person's own lists show them
// (the App Home: Mine, personal and authored), by its full id, with the
// authorization of `/mnemo forget`. v is the person where no channel is:
// a shared memory they wrote is judged from the place it belongs to, as
// `/mnemo forget` said there would judge it; anything else from v.
func (s *Store) ForgetMine(ctx context.Context, v Viewer, id, reason string, path Path) (ForgetOutcome, error) {
	uid, err := uuid.Parse(strings.TrimSpace(id))
	if err != nil {
		return ForgetOutcome{}, fmt.Errorf("forget: %w", ErrNotFound)
	}
	m, err := s.get(ctx, viewerTeam(v), uid)
	if err != nil {
		return ForgetOutcome{}, fmt.Errorf("forget: %w", err)
	}
	if m.Scope != ScopePersonal && m.ActorID == v.Actor.ID && m.Team == v.Place.Team {
		v = atItsPlace(v, m)
	}
	return s.ForgetMemory(ctx, v, m, reason, path)
}

// atItsPlace is v moved to where the shared memory m was said, as a
// person's own lists judge the shared memories they wrote: what they may
// see or do there.
func atItsPlace(v Viewer, m Memory) Viewer {
	v.Place = provenance.Place{Team: m.Team, Channel: m.ChannelID, SourceKey: m.SourceKey, Visibility: m.Visibility}
	v.Private = false
	return v
}

// ErasedError is Restore's refusal of a memory that an erasure deleted
// with a person's data: erasure is final. Sentence is what the person who
// asked is told.
type ErasedError struct {
	Ref      string // the id, or the start of it, that was asked for
	ErasedAt time.Time
}

func (e *ErasedError) Error() string {
	return fmt.Sprintf("memory %s was erased at %s", e.Ref, e.ErasedAt.UTC().Format(time.RFC3339))
}

// Sentence says, for a person, why the memory can't come back.
func (e *ErasedError) Sentence() string {
	return fmt.Sprintf("Memory %s can't be restored: it was deleted on %s, when the data of the person it belonged to was erased, and an erasure can't be undone.",
		e.Ref, e.ErasedAt.UTC().Format(time.DateOnly))
}

// ErrNotRestorable is Restore's refusal of an archived memory that would
// not stay, or would not be alone, once restored; the error says why and
// what to do.
var ErrNotRestorable = errors.New("refused")

// Restore brings back the archived memory ref names. Only admins restore,
// and only what they may see. A memory an erasure deleted is never
// restored: that is an *ErasedError. Under the subject's lock, it refuses
// (ErrNotRestorable) a memory:
//   - past its expiry, which the sweep would archive again: it can be
//     remembered again with a new expiry;
//   - superseded or updated by a memory that is still active (or by one
//     that was itself replaced by an active one): both would be active, so
//     that one has to be forgotten first;
//   - identical to an active memory (the same words, subject and place).
func (s *Store) Restore(ctx context.Context, v Viewer, ref string, path Path) (Memory, error) {
	if !v.Actor.IsAdmin {
		return Memory{}, fmt.Errorf("restore: %w: only an admin can restore memories", ErrForbidden)
	}
	ref = strings.ToLower(strings.TrimSpace(ref))
	ms, err := s.Resolve(ctx, v, ref)
	if errors.Is(err, ErrNotFound) {
		return Memory{}, s.erased(ctx, v, ref)
	}
	if err != nil {
		return Memory{}, fmt.Errorf("restore: %w", err)
	}
	if len(ms) != 1 {
		return Memory{}, fmt.Errorf("restore: %q names %d memories; give more of the id", ref, len(ms))
	}
	var m Memory
	err = s.db.InTx(ctx, func(tx *db.Tx) error {
		mem, id := tx.Memories(), ms[0].ID
		if err := mem.LockSubject(ctx, subjectLock(ms[0].Team, ms[0].Scope, ms[0].SubjectType, ms[0].SubjectID)); err != nil {
			return err
		}
		cur, expired, err := mem.ForRestore(ctx, ms[0].Team, id)
		if err != nil {
			return err
		}
		if cur.ArchivedAt == nil {
			return db.ErrNotFound // not archived
		}
		short := shortID(id)
		if expired {
			return fmt.Errorf("%w: memory %s expired on %s, and the expiry sweep would archive it again; remember it again with a new expiry instead",
				ErrNotRestorable, short, cur.ExpiresAt.UTC().Format(time.DateOnly))
		}
		r, err := mem.ActiveReplacement(ctx, cur.Team, id)
		switch {
		case err == nil:
			return fmt.Errorf("%w: memory %s was replaced by %s, which is still active; forget %s first to restore it",
				ErrNotRestorable, short, shortID(r.ID), shortID(r.ID))
		case !errors.Is(err, db.ErrNotFound):
			return err
		}
		// One with the same words that is past its expiry goes, as the
		// sweep would take it; one that is active keeps this one out.
		if _, err := mem.ArchiveExpiredIdentical(ctx, cur.Team, "", id); err != nil {
			return err
		}
		d, err := mem.ActiveIdentical(ctx, cur.Team, id)
		switch {
		case err == nil:
			return identicalActive(d.ID)
		case !errors.Is(err, db.ErrNotFound):
			return err
		}
		row, err := mem.Restore(ctx, id)
		if errors.Is(err, db.ErrExists) {
			return identicalActive(uuid.Nil)
		}
		if err != nil {
			return err
		}
		m = fromRow(row)
		return mem.RecordEvent(ctx, db.MemoryEvent{MemoryID: m.ID, Team: m.Team, Action: "restore", ActorID: v.Actor.ID, Path: string(path)})
	})
	if errors.Is(err, ErrNotRestorable) {
		return Memory{}, fmt.Errorf("restore: %w", err)
	}
	if errors.Is(err, db.ErrNotFound) {
		// Not archived, or deleted since it was found: by an erasure, maybe.
		if eerr := s.erased(ctx, v, ms[0].ID.String()); !errors.Is(eerr, ErrNotFound) {
			return Memory{}, eerr
		}
		return Memory{}, fmt.Errorf("restore: %w (or it is not archived)", ErrNotFound)
	}
	if err != nil {
		return Memory{}, fmt.Errorf("restore: %w", err)
	}
	s.changed(m)
	return m, nil
}

// identicalActive is Restore's refusal of a memory an active one (id, when
// known) says the same as.
func identicalActive(id uuid.UUID) error {
	if id == uuid.Nil {
		return fmt.Errorf("%w: an identical memory is already active", ErrNotRestorable)
	}
	return fmt.Errorf("%w: an identical memory is already active: %s", ErrNotRestorable, shortID(id))
}

// erased is restore's answer for a memory ref names that is gone: an
// *ErasedError when an erasure deleted it, else ErrNotFound.
func (s *Store) erased(ctx context.Context, v Viewer, ref string) error {
	at, err := s.db.Lifecycle().ErasedAt(ctx, viewerTeam(v), ref)
	switch {
	case errors.Is(err, db.ErrNotFound):
		return fmt.Errorf("restore: %w", ErrNotFound)
	case err != nil:
		return fmt.Errorf("restore: %w", err)
	}
	return &ErasedError{Ref: ref, ErasedAt: at}
}

// shortID is the start of id that Memory.ShortID shows.
func shortID(id uuid.UUID) string { return id.String()[:8] }

package memory

import "github.com/mnemo-bot/mnemo/provenance"

// Viewer is who will see a memory, from where: the actor from the live
// event, the place they are asking in, and who else sees the answer.
type Viewer struct {
	Actor provenance.Actor
	Place provenance.Place
	// Private is set when only the actor sees what is shown: their DM with
	// the bot, the App Home, an ephemeral answer, their MCP session, their
	// own export.
	Private bool
	// Oversight is an admin acting on someone else's memories on purpose
	// (listing them, exporting or purging them). It counts only when the
	// actor is an admin.
	Oversight bool
	// Model is set when what is shown goes into a model request: tool
	// results, and the candidates of a write's update decision. A sensitive
	// memory is then shown only where it was said, even to its subject.
	Model bool
}

// HomeOf is the place as far as memories go: the workspace an actor's
// memories are read from and written to, asked from place. It is place
// itself, except for an external member (a person of another organisation
// in a Slack Connect channel, provenance.Actor.ExternalTo): for them it is
// the same channel and thread in their own workspace. Their personal
// memories are their own team's, and the host's memories, of every scope,
// are another workspace's to them.
func HomeOf(actor provenance.Actor, place provenance.Place) provenance.Place {
	if actor.ExternalTo(place) {
		place.Team = actor.Team
	}
	return place
}

// ViewerAt is the viewer of a turn: the actor in place, private when the
// place is a DM with the bot.
func ViewerAt(actor provenance.Actor, place provenance.Place) Viewer {
	return Viewer{Actor: actor, Place: place, Private: place.Visibility == provenance.DM}
}

// ModelAt is ViewerAt for what goes into a model request in place: the
// memory tools' results and a write's update decision.
func ModelAt(actor provenance.Actor, place provenance.Place) Viewer {
	v := ViewerAt(actor, place)
	v.Model = true
	return v
}

// Use is what a memory is wanted for.
type Use int

const (
	// Show: the memory's text is shown (recall and list results, forget
	// candidates, slash commands, the App Home, MCP, export).
	Show Use = iota
	// Apply: the memory shapes the bot's answer (the prompt before a turn).
	// A preference said in private may be applied anywhere, marked private.
	Apply
)

// Visible is the one visibility rule. Every path that shows a memory to a
// person or to the model asks it, and the search query mirrors it
// (MemorySearch; TestSearchAgreesWithVisible checks the two agree):
//
//   - a memory of another workspace is never visible. An external member
//     (a person of another organisation in a Slack Connect channel) reads
//     in their own workspace (HomeOf), and of the host's memories sees
//     only the shared channel's channel-scope ones, there (Guest): no
//     workspace, personal or thread memory of the host's enters their
//     turns, tool results or lists;
//   - personal: only its subject. Where it was said, always. A sensitive one
//     never leaves that place, except to be shown to its subject alone,
//     never through a model (v.Model).
//     Otherwise: said in public, anywhere; said in a DM, group DM or
//     private channel, shown only where its subject alone sees it, and
//     applied elsewhere only if it is a preference (marked private);
//   - conversation: in its thread; one about a person (a thread-only
//     instruction), only to them there;
//   - channel: in its channel;
//   - workspace: said in public and not sensitive, anywhere; otherwise only
//     where it was said. Where the organisation opted into org-scope
//     memories (Place.Org), its workspace memories, keyed by its enterprise
//     id, are read so from every workspace of it, by its own members (Org);
//   - an admin's oversight shows other people's memories, but not sensitive
//     ones said elsewhere;
//   - in a Slack Connect channel (Place.Shared), unless only the actor sees
//     the answer, "said in public" is said to one organisation, and the
//     channel is read by another: a memory said elsewhere is treated as
//     said in private. Workspace memories said elsewhere stay out, and the
//     actor's own said elsewhere are only applied, when preferences, and
//     never quoted (PrivateElsewhere); for both its host's members and
//     its external members.
func Visible(v Viewer, m Memory, use Use) bool {
	here := v.Place.Channel != "" && m.ChannelID == v.Place.Channel
	// Said in public, and so visible elsewhere, to the people who read
	// where v is.
	public := m.Visibility == provenance.Public && !v.sharedAudience()
	if v.Guest(m.Team) {
		return m.Scope == ScopeChannel && here
	}
	if v.Org(m.Team) {
		return m.Scope == ScopeWorkspace && (here || (m.Sensitive == "" && public))
	}
	if m.Team != viewerTeam(v) {
		return false
	}
	if v.Oversight && v.Actor.IsAdmin && use == Show {
		return (m.Sensitive == "" && !v.sharedAudience()) || here
	}
	switch m.Scope {
	case ScopePersonal:
		switch {
		case m.SubjectID != v.Actor.ID:
			return false
		case here:
			return true
		case m.Sensitive != "":
			return v.Private && !v.Model && use == Show
		case public || v.Private:
			return true
		}
		return use == Apply && m.Kind == KindPreference
	case ScopeConversation:
		// A thread-only instruction about a person is theirs alone.
		return m.SourceKey == v.Place.SourceKey && (m.SubjectType != SubjectUser || m.SubjectID == v.Actor.ID)
	case ScopeChannel:
		return here
	case ScopeWorkspace:
		return here || (m.Sensitive == "" && public)
	}
	return false
}

// sharedAudience reports that people of another organisation read what v
// is shown: a turn's answer in a Slack Connect channel.
func (v Viewer) sharedAudience() bool {
	return v.Place.Shared && !v.Private
}

// OnlyShared is the v_only of memory_visible (and the search's Only) for a
// viewer with a shared audience (Place.Shared): of its team's memories,
// what Visible keeps there.
const OnlyShared = "shared"

// only is the search's Only for reading v's own team: "" but with a
// shared audience.
func (v Viewer) only() string {
	if v.sharedAudience() {
		return OnlyShared
	}
	return ""
}

// Guest reports whether v reads team's memories as a guest: an external
// member of a Slack Connect channel, and team the channel's host. A guest
// sees the channel's own memories there and nothing else of the host's
// (memory_visible's v_only 'channel').
func (v Viewer) Guest(team string) bool {
	return v.Actor.ExternalTo(v.Place) && v.Place.Channel != "" && team == v.Place.Team
}

// Org reports whether team is the organisation whose org-scope memories
// v reads (Place.Org): a member of one of its workspaces reads its
// workspace memories as their workspace's own (memory_visible's v_only
// 'workspace'). An external member of a Slack Connect channel does not.
func (v Viewer) Org(team string) bool {
	return v.Place.Org != "" && team == v.Place.Org && !v.Actor.ExternalTo(v.Place)
}

// PrivateElsewhere reports a memory said in a DM or a private place other
// than the viewer's: applied in a prompt, it must never be quoted, listed
// or mentioned there.
func (v Viewer) PrivateElsewhere(m Memory) bool {
	return (m.Visibility != provenance.Public || v.sharedAudience()) && m.ChannelID != v.Place.Channel && !v.Private
}

// visibleOnly keeps the memories v may see for use.
func visibleOnly(v Viewer, ms []Memory, use Use) []Memory {
	out := ms[:0:0]
	for _, m := range ms {
		if Visible(v, m, use) {
			out = append(out, m)
		}
	}
	return out
}

// viewerTeam is the team v reads in, as Visible takes it: the place's, or
// an external member's own (HomeOf); the actor's when there is no place.
// Every query of memories for v is keyed by it.
func viewerTeam(v Viewer) string {
	if t := HomeOf(v.Actor, v.Place).Team; t != "" {
		return t
	}
	return v.Actor.Team
}

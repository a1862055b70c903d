package provenance

import "strings"

// ActorKind says what kind of party an actor is.
type ActorKind string

const (
	KindUser   ActorKind = "user"
	KindBot    ActorKind = "bot"
	KindSystem ActorKind = "system"
)

// Actor is who said or did something.
type Actor struct {
	Kind ActorKind
	// Team is the actor's own workspace: the place's, except for a member
	// of another organisation in a Slack Connect channel (ExternalTo).
	Team    string
	ID      string // Slack user id, or the system actor's name
	Name    string
	IsAdmin bool // a workspace admin or owner per users.info
}

// ExternalTo reports whether the actor is an external member in place: a
// person of another organisation, in a Slack Connect channel, whose own
// workspace is not the place's.
func (a Actor) ExternalTo(p Place) bool {
	return a.Team != "" && p.Team != "" && a.Team != p.Team
}

// IsHuman says whether the actor is a person.
func (a Actor) IsHuman() bool { return a.Kind == KindUser && a.ID != "" }

// Authority says whether a message instructs the bot or is only context.
type Authority string

const (
	// Instruction is a person addressing the bot in this turn.
	Instruction Authority = "instruction"
	// Context is everything else: earlier messages, other people's posts,
	// summaries, tool output. Anything that can't be attributed is context.
	Context Authority = "context"
)

// Visibility is who can see the place a message was said in.
type Visibility string

const (
	Public  Visibility = "public"
	Private Visibility = "private"
	DM      Visibility = "dm"
)

// VisibilityOf maps a Slack channel_type ("channel", "group", "im", "mpim")
// to a Visibility. Without one, only a DM is told by its id (D…): a C… id
// may be a private channel, since Slack gives new private channels C ids
// too. Unknown places count as private until Slack says otherwise, so
// nothing leaks by default.
func VisibilityOf(channelType, channelID string) Visibility {
	switch channelType {
	case "channel":
		return Public
	case "im":
		return DM
	case "group", "mpim":
		return Private
	}
	if strings.HasPrefix(channelID, "D") {
		return DM
	}
	return Private
}

// Place is where a turn happens: a thread in a channel.
type Place struct {
	Team string
	// Org is the Enterprise Grid organisation whose org-scope memories
	// this place shares, when it opted in (MNEMO_ORG_MEMORIES): workspace
	// memories are then the organisation's, keyed by its enterprise id.
	// Empty otherwise: each workspace is its own tenant.
	Org        string
	Channel    string
	SourceKey  string
	ThreadTS   string // the thread's root ts
	Visibility Visibility
	// Shared is a Slack Connect channel: people of another organisation
	// read what is posted there, so what was said elsewhere in this one
	// stays out of it (memory.Visible).
	Shared bool
}

// WrittenBy says how a memory came to be written.
type WrittenBy string

const (
	// ByExplicit: a person asked the bot to remember it.
	ByExplicit WrittenBy = "explicit"
	// ByPassive: passive learning found it in a conversation.
	ByPassive WrittenBy = "passive"
	// ByAdmin: an admin wrote it.
	ByAdmin WrittenBy = "admin"
	// ByMCP: an MCP client wrote it, for the identity it was configured with.
	ByMCP WrittenBy = "mcp"
)

package threads

import "github.com/mnemo-bot/mnemo/provenance"

// Role is who a logged message is from, as the model sees it.
type Role string

const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Message is one entry of a thread's session log.
type Message struct {
	ID        int64
	SourceKey string
	TS        TS
	Role      Role
	Actor     provenance.Actor
	Authority provenance.Authority
	Text      string
	TurnID    *int64
	// Tools is what the turn's tools did, compacted, on the bot's reply.
	Tools string
}

// HistoryLimit is how many earlier messages of a thread a turn carries.
const HistoryLimit = 50

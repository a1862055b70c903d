package agent

// Event names a structured event in serve's JSON log: the line's "event"
// field, with the fields each constant lists. Tools that read the log (the
// evals, an operator's queries) match these, never the message text, which
// is prose for people and may change.
type Event string

const (
	// EventTurnAnswered: a turn posted its answer. Fields: steps, tools
	// (the tools run, in order), recalled, resumed.
	EventTurnAnswered Event = "turn.answered"
	// EventTurnFailed: a turn ended failed, and the person was told why.
	// Fields: resumed.
	EventTurnFailed Event = "turn.failed"
	// EventToolCall: one tool call of the model ran (debug level). Fields:
	// tool (the name the model asked for), ran (the tool run), error.
	EventToolCall Event = "tool.call"
)

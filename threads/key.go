package threads

import (
	"fmt"
	"strings"
)

// Key identifies one thread: the team, the channel and the root message's ts.
// Every message of a thread, its root and its replies, has the same Key.
type Key struct {
	Team    string
	Channel string
	Root    TS
}

// KeyFor derives the thread key of a message from its ts and thread_ts as
// they arrive in a Slack event, and returns the message's own ts parsed. A
// message with no thread_ts is its own root. Both timestamps are parsed
// strictly; an error names the bad field.
func KeyFor(team, channel, ts, threadTS string) (Key, TS, error) {
	if team == "" || channel == "" {
		return Key{}, "", fmt.Errorf("thread key: team %q and channel %q must both be set", team, channel)
	}
	if strings.Contains(team, ":") || strings.Contains(channel, ":") {
		return Key{}, "", fmt.Errorf("thread key: team %q or channel %q contains ':'", team, channel)
	}
	msg, err := ParseTS("ts", ts)
	if err != nil {
		return Key{}, "", err
	}
	var thread TS
	if threadTS != "" {
		if thread, err = ParseTS("thread_ts", threadTS); err != nil {
			return Key{}, "", err
		}
	}
	return Key{Team: team, Channel: channel, Root: rootOf(msg, thread)}, msg, nil
}

// rootOf picks a message's thread root: its thread_ts, or itself. It is a
// variable only so the eval mutation check (build tag
// mnemo_mutant_per_message_key) can swap in a broken derivation.
var rootOf = func(msg, thread TS) TS {
	if thread != "" {
		return thread
	}
	return msg
}

// SourceKey is the thread's stable identifier in storage:
// slack:<team>:<channel>:<root_ts>.
func (k Key) SourceKey() string {
	return "slack:" + k.Team + ":" + k.Channel + ":" + string(k.Root)
}

// ParseSourceKey is the inverse of Key.SourceKey.
func ParseSourceKey(s string) (Key, error) {
	parts := strings.Split(s, ":")
	if len(parts) != 4 || parts[0] != "slack" {
		return Key{}, fmt.Errorf("source key %q: want slack:<team>:<channel>:<root_ts>", s)
	}
	root, err := ParseTS("source_key.root_ts", parts[3])
	if err != nil {
		return Key{}, err
	}
	if parts[1] == "" || parts[2] == "" {
		return Key{}, fmt.Errorf("source key %q: empty team or channel", s)
	}
	return Key{Team: parts[1], Channel: parts[2], Root: root}, nil
}

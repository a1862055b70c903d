package fakeslack

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Stream is a message written with chat.startStream, chat.appendStream and
// chat.stopStream.
type Stream struct {
	Channel, TS, ThreadTS        string
	RecipientUser, RecipientTeam string
	// Appends are the markdown_text of each call, the start's first.
	Appends []string
	Stopped bool
	Blocks  json.RawMessage // given to chat.stopStream
	// Metadata is what chat.stopStream attached (chat.startStream takes
	// none, as in Slack).
	Metadata json.RawMessage
}

// Text is what the stream shows: its appends joined.
func (st Stream) Text() string {
	var s string
	for _, a := range st.Appends {
		s += a
	}
	return s
}

// assistantAPI answers the AI app methods (the assistant.threads.* calls
// and chat streaming) and reports whether method was one of them.
func (s *Server) assistantAPI(w http.ResponseWriter, method string, f url.Values, team string) bool {
	switch method {
	case "assistant.threads.setStatus", "assistant.threads.setSuggestedPrompts", "assistant.threads.setTitle":
		// Recorded in Calls; Slack checks only that the thread is named.
		if f.Get("channel_id") == "" || f.Get("thread_ts") == "" {
			writeJSON(w, map[string]any{"ok": false, "error": "invalid_arguments"})
			return true
		}
		writeJSON(w, map[string]any{"ok": true})
	case "chat.startStream":
		// As Slack: a stream answers someone in a thread, and outside a DM
		// it must name who (recipient_user_id) and their team.
		outsideDM := !strings.HasPrefix(f.Get("channel"), "D")
		if f.Get("channel") == "" || f.Get("thread_ts") == "" ||
			(outsideDM && (f.Get("recipient_user_id") == "" || f.Get("recipient_team_id") == "")) {
			writeJSON(w, map[string]any{"ok": false, "error": "invalid_arguments"})
			return true
		}
		s.mu.Lock()
		st := &Stream{Channel: f.Get("channel"), TS: s.ts(), ThreadTS: f.Get("thread_ts"), RecipientUser: f.Get("recipient_user_id"), RecipientTeam: f.Get("recipient_team_id")}
		if t := f.Get("markdown_text"); t != "" {
			st.Appends = append(st.Appends, t)
		}
		s.streams = append(s.streams, st)
		m := Message{Channel: st.Channel, TS: st.TS, ThreadTS: st.ThreadTS, User: BotUserID, BotID: BotID, Text: st.Text(), Team: team}
		s.history[hkey(team, m.Channel)] = append(s.history[hkey(team, m.Channel)], m)
		s.mu.Unlock()
		s.cond.Broadcast()
		writeJSON(w, map[string]any{"ok": true, "channel": st.Channel, "ts": st.TS})
	case "chat.appendStream", "chat.stopStream":
		s.mu.Lock()
		st := s.streamLocked(f.Get("channel"), f.Get("ts"))
		switch {
		case st == nil:
			s.mu.Unlock()
			writeJSON(w, map[string]any{"ok": false, "error": "message_not_found"})
			return true
		case st.Stopped:
			s.mu.Unlock()
			writeJSON(w, map[string]any{"ok": false, "error": "message_not_in_streaming_state"})
			return true
		}
		if t := f.Get("markdown_text"); t != "" {
			st.Appends = append(st.Appends, t)
		}
		for i, m := range s.history[hkey(team, st.Channel)] {
			if m.TS == st.TS {
				s.history[hkey(team, st.Channel)][i].Text = st.Text()
			}
		}
		if method == "chat.stopStream" {
			st.Stopped = true
			if b := f.Get("blocks"); b != "" {
				st.Blocks = json.RawMessage(b)
			}
			if md := f.Get("metadata"); md != "" {
				st.Metadata = json.RawMessage(md)
				s.setMetadataLocked(team, st.Channel, st.TS, st.Metadata)
			}
			// Once stopped, the message is among the bot's posts, with what
			// it streamed, as a finished message is in Slack's history.
			s.posted = append(s.posted, Message{Channel: st.Channel, TS: st.TS, ThreadTS: st.ThreadTS, User: BotUserID, BotID: BotID, Text: st.Text(), Blocks: st.Blocks, Metadata: st.Metadata, At: time.Now(), Team: team})
		}
		s.mu.Unlock()
		s.cond.Broadcast()
		writeJSON(w, map[string]any{"ok": true, "channel": st.Channel, "ts": st.TS})
	default:
		return false
	}
	return true
}

// setMetadataLocked sets the metadata of the message at ts in a channel's
// history, as conversations.replies returns it. The caller holds s.mu.
func (s *Server) setMetadataLocked(team, channel, ts string, md json.RawMessage) {
	for i, m := range s.history[hkey(team, channel)] {
		if m.TS == ts {
			s.history[hkey(team, channel)][i].Metadata = md
		}
	}
}

func (s *Server) streamLocked(channel, ts string) *Stream {
	for _, st := range s.streams {
		if st.Channel == channel && st.TS == ts {
			return st
		}
	}
	return nil
}

// Streams returns copies of every streamed message.
func (s *Server) Streams() []Stream {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Stream, 0, len(s.streams))
	for _, st := range s.streams {
		c := *st
		c.Appends = append([]string(nil), st.Appends...)
		out = append(out, c)
	}
	return out
}

// WaitStream waits for a stopped stream in the thread rooted at threadTS.
func (s *Server) WaitStream(channel, threadTS string, timeout time.Duration) Stream {
	s.t.Helper()
	var got Stream
	s.waitFor(timeout, "a stopped stream in "+channel+"/"+threadTS, func() bool {
		for _, st := range s.streams {
			if st.Channel == channel && st.ThreadTS == threadTS && st.Stopped {
				got = *st
				got.Appends = append([]string(nil), st.Appends...)
				return true
			}
		}
		return false
	})
	return got
}

// Shown is what the message at ts shows now: its last chat.update or,
// for a stream, its stopped text, else what it has streamed so far.
func (s *Server) Shown(channel, ts string) (text string, blocks json.RawMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.posted) - 1; i >= 0; i-- {
		if m := s.posted[i]; m.Channel == channel && m.TS == ts {
			return m.Text, m.Blocks
		}
	}
	if st := s.streamLocked(channel, ts); st != nil {
		return st.Text(), st.Blocks
	}
	return "", nil
}

// SendAssistantThreadStarted sends assistant_thread_started for a thread
// user opened in the assistant container, and returns the envelope id.
func (s *Server) SendAssistantThreadStarted(user, channel, threadTS string) string {
	s.t.Helper()
	return s.SendEvent(map[string]any{"type": "assistant_thread_started", "event_ts": threadTS, "assistant_thread": map[string]any{
		"user_id": user, "channel_id": channel, "thread_ts": threadTS, "context": map[string]any{},
	}})
}

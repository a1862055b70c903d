package slackapp

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"

	"github.com/mnemo-bot/mnemo/agent"
	"github.com/mnemo-bot/mnemo/threads"
)

const fuzzBot = "U0MNEMO"

func envelope(event string) []byte {
	return []byte(`{"type":"events_api","envelope_id":"env-1","accepts_response_payload":false,"retry_attempt":0,
"payload":{"token":"t","team_id":"T0TEAM","api_app_id":"A0MNEMO","type":"event_callback","event_id":"Ev1","event_time":1,"event":` + event + `}}`)
}

// FuzzDecodeEnvelope feeds Socket Mode frames through the decoding a post
// takes before its ack: slack-go's own parsing, as its receive loop does
// it, then postFrom. Whatever the frame, nothing panics, and a post taken
// in is one the inbox can store: valid UTF-8 without NUL (PostgreSQL's jsonb
// refuses \u0000), strict timestamps, plain ids, bounded text.
func FuzzDecodeEnvelope(f *testing.F) {
	for _, ev := range []string{
		`{"type":"app_mention","user":"U0ALICE","text":"<@U0MNEMO> hi","ts":"1800000000.000100","channel":"C0GENERAL"}`,
		`{"type":"app_mention","user":"U0ALICE","text":"<@U0MNEMO> in a thread","ts":"1800000001.000100","thread_ts":"1800000000.000100","channel":"C0GENERAL"}`,
		`{"type":"message","channel_type":"im","user":"U0ALICE","text":"hello\u0000 there","ts":"1800000000.000100","channel":"D0ALICE"}`,
		`{"type":"message","channel_type":"channel","user":"U0BOB","text":"mnemo, a follow-up","ts":"1800000002.000100","thread_ts":"1800000000.000100","channel":"C0GENERAL"}`,
		`{"type":"message","channel_type":"im","user":"U0ALICE","text":"lone \udc00 surrogate","ts":"1800000000.000100","channel":"D0ALICE"}`,
		`{"type":"message","subtype":"message_changed","channel_type":"im","channel":"D0ALICE","ts":"1800000000.000100"}`,
		`{"type":"message","channel_type":"im","bot_id":"B0X","text":"beep","ts":"1800000000.000100","channel":"D0ALICE"}`,
		`{"type":"app_mention","user":"U0ALICE","text":"hi","ts":"17000000.memory-explicit","channel":"C0GENERAL"}`,
		`{"type":"app_mention","user":"U0\u0000ALICE","text":"hi","ts":"1800000000.000100","channel":"C0GENERAL"}`,
		`{"type":"app_mention"}`,
		`"not an object"`,
	} {
		f.Add(envelope(ev))
	}
	f.Add([]byte(`{"type":"events_api","envelope_id":"env-garbled","payload":"not an object"}`))
	f.Add([]byte(`{"type":"hello"}`))
	f.Fuzz(func(t *testing.T, frame []byte) {
		var req socketmode.Request
		if json.Unmarshal(frame, &req) != nil || req.Type != socketmode.RequestTypeEventsAPI {
			return
		}
		e, err := slackevents.ParseEvent(req.Payload, slackevents.OptionNoVerifyToken())
		if err != nil || (e.InnerEvent.Type != string(slackevents.AppMention) && e.InnerEvent.Type != string(slackevents.Message)) {
			return // slack-go reports it as a bad message, or another handler takes it
		}
		p, v, err := postFrom(e, req.EnvelopeID, fuzzBot)
		switch v {
		case reject:
			if err == nil {
				t.Fatalf("a rejected event must say why: %q", frame)
			}
			return
		case ignore:
			if err != nil {
				t.Fatalf("an ignored event is not an error: %v", err)
			}
			return
		}
		if err != nil {
			t.Fatalf("admitted with an error: %v", err)
		}
		if !utf8.ValidString(p.Text) || strings.ContainsRune(p.Text, 0) {
			t.Fatalf("text the database refuses: %q", p.Text)
		}
		if utf8.RuneCountInString(p.Text) > agent.MaxPostChars {
			t.Fatalf("text of %d characters", utf8.RuneCountInString(p.Text))
		}
		if _, _, err := threads.KeyFor(p.Team, p.Channel, p.TS, p.ThreadTS); err != nil {
			t.Fatalf("admitted with a bad timestamp: %v", err)
		}
		for _, id := range []string{p.Team, p.Channel, p.User} {
			if !slackID.MatchString(id) {
				t.Fatalf("admitted with a bad id %q", id)
			}
		}
		if p.User == fuzzBot {
			t.Fatalf("the bot's own message admitted")
		}
		b, err := json.Marshal(p)
		if err != nil || bytes.Contains(b, []byte(`\u0000`)) {
			t.Fatalf("args the inbox can't store: %s (%v)", b, err)
		}
	})
}

// The fuzz target's seeds, decoded: what postFrom takes in, ignores and
// rejects.
func TestPostFromDecidesBeforeTheAck(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, event string
		want        verdict
		text        string
	}{
		{"mention", `{"type":"app_mention","user":"U0ALICE","text":"<@U0MNEMO> hi","ts":"1800000000.000100","channel":"C0GENERAL"}`, admit, "<@U0MNEMO> hi"},
		{"DM with a NUL", `{"type":"message","channel_type":"im","user":"U0ALICE","text":"hello\u0000 there","ts":"1800000000.000100","channel":"D0ALICE"}`, admit, "hello there"},
		{"thread message", `{"type":"message","channel_type":"channel","user":"U0BOB","text":"a follow-up","ts":"1800000002.000100","thread_ts":"1800000000.000100","channel":"C0GENERAL"}`, admit, "a follow-up"},
		{"new channel message", `{"type":"message","channel_type":"channel","user":"U0BOB","text":"hello all","ts":"1800000002.000100","channel":"C0GENERAL"}`, ignore, ""},
		{"message copy of a mention", `{"type":"message","channel_type":"channel","user":"U0BOB","text":"<@U0MNEMO> hi","ts":"1800000002.000100","thread_ts":"1800000000.000100","channel":"C0GENERAL"}`, ignore, ""},
		{"edit", `{"type":"message","subtype":"message_changed","channel_type":"im","channel":"D0ALICE","ts":"1800000000.000100"}`, ignore, ""},
		{"other bot", `{"type":"message","channel_type":"im","bot_id":"B0X","text":"beep","ts":"1800000000.000100","channel":"D0ALICE"}`, ignore, ""},
		{"own message", `{"type":"message","channel_type":"im","user":"U0MNEMO","text":"my reply","ts":"1800000000.000100","channel":"D0ALICE"}`, ignore, ""},
		{"label-suffixed ts", `{"type":"app_mention","user":"U0ALICE","text":"hi","ts":"17000000.memory-explicit","channel":"C0GENERAL"}`, reject, ""},
		{"NUL in a user id", `{"type":"app_mention","user":"U0\u0000ALICE","text":"hi","ts":"1800000000.000100","channel":"C0GENERAL"}`, reject, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var req socketmode.Request
			if err := json.Unmarshal(envelope(c.event), &req); err != nil {
				t.Fatal(err)
			}
			e, err := slackevents.ParseEvent(req.Payload, slackevents.OptionNoVerifyToken())
			if err != nil {
				t.Fatal(err)
			}
			p, v, err := postFrom(e, req.EnvelopeID, fuzzBot)
			if v != c.want {
				t.Fatalf("verdict %d, want %d (%v)", v, c.want, err)
			}
			if v == admit && (p.Text != c.text || p.EnvelopeID != "env-1" || p.EventID != "Ev1" || p.Team != "T0TEAM") {
				t.Fatalf("post %+v", p)
			}
		})
	}
}

package agent

import (
	"context"
	"time"

	"github.com/mnemo-bot/mnemo/provenance"
	"github.com/mnemo-bot/mnemo/threads"
)

// DM continuity: in a DM, a top-level message continues the DM's recent
// conversation, so "yes please do" after the bot's offer reaches the model
// with the offer. A thread in a DM is its own conversation, as in channels.
// Memories stay keyed by the thread (sourceKey): only what the model sees
// changes.
const (
	DMContinuityWindow   = 2 * time.Hour
	DMContinuityMessages = 20
)

// history is the conversation a post's turn sees: its thread's log and, for
// a top-level message in a DM, the DM's recent exchanges before it.
func (r *Runner) history(ctx context.Context, p Post) ([]threads.Message, error) {
	sessions := r.db.Sessions()
	own, err := sessions.History(ctx, p.Key, threads.HistoryLimit)
	if err != nil {
		return nil, err
	}
	if p.Place.Visibility == provenance.DM && p.Key.Root == p.TS {
		earlier, err := sessions.RecentInChannel(ctx, p.Key, r.now().Add(-DMContinuityWindow), DMContinuityMessages)
		if err != nil {
			return nil, err
		}
		own = append(earlier, own...)
	}
	return ownToolTraces(own, p.Actor.ID), nil
}

// ownToolTraces keeps a reply's tool trace only for the person whose turn
// it was: tool results may hold memories only they may see, and a thread is
// shared.
func ownToolTraces(history []threads.Message, actor string) []threads.Message {
	asker := map[int64]string{}
	for _, m := range history {
		if m.TurnID != nil && m.Role == threads.RoleUser && m.Authority == provenance.Instruction {
			asker[*m.TurnID] = m.Actor.ID
		}
	}
	for i, m := range history {
		if m.Tools != "" && (m.TurnID == nil || asker[*m.TurnID] != actor) {
			history[i].Tools = ""
		}
	}
	return history
}

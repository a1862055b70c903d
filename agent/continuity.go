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
	if p.Place.Visibility != provenance.DM || p.Key.Root != p.TS {
		return own, nil
	}
	earlier, err := sessions.RecentInChannel(ctx, p.Key, r.now().Add(-DMContinuityWindow), DMContinuityMessages)
	if err != nil {
		return nil, err
	}
	return append(earlier, own...), nil
}

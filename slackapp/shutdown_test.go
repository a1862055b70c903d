package slackapp

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"
	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/inbox"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakeslack"
	"github.com/mnemo-bot/mnemo/internal/testkit/syncbuf"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/memory"
)

// An ack sent where no connection reads slack-go's queue of responses
// (the socket reconnecting, or closed at shutdown) gives up in time: it
// used to wait for room in the queue for ever once the queue's 20 slots
// were full, holding its handler's goroutine with it.
func TestASocketAckWithNoConnectionGivesUp(t *testing.T) {
	t.Parallel()
	api := slack.New("xoxb-test", slack.OptionAppLevelToken("xapp-1-test"))
	sm := socketmode.New(api) // never run: nothing sends its responses
	done := make(chan []error, 1)
	go func() {
		var errs []error
		for i := range 21 {
			errs = append(errs, socketAcker{sm: sm, req: socketmode.Request{EnvelopeID: fmt.Sprint("env-", i)}}.ack(nil))
		}
		done <- errs
	}()
	select {
	case errs := <-done:
		for i, err := range errs[:20] {
			require.NoError(t, err, "ack %d has room in the queue", i)
		}
		require.ErrorIs(t, errs[20], context.DeadlineExceeded, "the 21st finds the queue full and gives up")
	case <-time.After(4 * ackTimeout):
		t.Fatal("an ack with no connection to send it is still waiting")
	}
}

// Run returns only once the deliveries it took are handled. slack-go runs
// each Socket Mode handler on a goroutine of its own and does not wait for
// them: Run returned while a post's inbox write was still waiting, and
// that goroutine outlived the App.
func TestRunReturnsOnceItsDeliveriesAreHandled(t *testing.T) {
	t.Parallel()
	d := testdb.New(t)
	fs := fakeslack.New(t)
	in, err := inbox.New(d.DB, inbox.Options{Logger: zerolog.Nop()})
	require.NoError(t, err)
	logs := &syncbuf.Buffer{}
	api := slack.New("xoxb-test", slack.OptionAPIURL(fs.URL), slack.OptionAppLevelToken("xapp-1-test"))
	a := New(Config{API: api, Socket: socketmode.New(api), DB: d.DB, Memory: memory.New(d.DB, memory.Options{}),
		Directory: NewDirectory(api, nil), Logger: zerolog.New(logs), Inbox: in})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	fs.WaitConnected(10 * time.Second)

	// The inbox's table is locked, as a long migration would: the post's
	// write waits, until admitTimeout refuses it.
	bg := context.Background()
	tx, err := d.Pool.Begin(bg)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(bg) }()
	_, err = tx.Exec(bg, "LOCK TABLE inbox_arrivals IN ACCESS EXCLUSIVE MODE")
	require.NoError(t, err)
	ts := fs.NextTS()
	fs.SendEvent(map[string]any{"type": "app_mention", "user": "U0ALICE", "text": "<@" + fakeslack.BotUserID + "> hello", "ts": ts, "channel": "C0GENERAL", "event_ts": ts})
	require.Eventually(t, func() bool {
		var waiting bool
		err := d.Pool.QueryRow(bg, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE datname = current_database()
			AND wait_event_type = 'Lock' AND query LIKE '%InboxArrive%')`).Scan(&waiting)
		return err == nil && waiting
	}, 10*time.Second, 10*time.Millisecond, "the post's inbox write waits on the lock")

	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(15 * time.Second):
		t.Fatal("Run did not return")
	}
	require.True(t, strings.Contains(logs.String(), "inbox write failed; envelope not acked"),
		"Run returned before the delivery it took was handled:\n%s", logs.String())
}

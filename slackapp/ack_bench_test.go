package slackapp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/inbox"
	"github.com/mnemo-bot/mnemo/internal/testkit/fakeslack"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/slackapp"
)

// BenchmarkAckLatency measures, side by side in one run, how long the fake
// Slack waits for the ack of an app_mention: from (a) a bare slack-go
// Socket Mode client that only acks, the floor any bot pays, and from (b)
// mnemo's handler, which first writes the post to the inbox in PostgreSQL:
// one autocommit INSERT into inbox_arrivals, committed durably
// (synchronous_commit on, as PostgreSQL's default, though the test server
// is set to commit asynchronously). The inbox runs, so its mover takes each
// post into River after the ack; the next envelope waits until it has, so
// neither client's ack shares the machine with a move. A third client (c)
// is the floor of any durable ack: bare slack-go that makes the same
// single-row durable INSERT on the same pool, then acks (floor-*). The
// connections take turns, one envelope at a time. Over HTTP, in the same
// turns, (d) mnemo's HTTP transport (http-*: signature check, the same
// dispatch and inbox write, then 200) and (e) a bare net/http handler that
// only checks the signature (bare-http-*) answer a fake Slack's signed
// POSTs. Slack's budget is 3 s.
func BenchmarkAckLatency(b *testing.B) {
	d := testdb.New(b)
	fs := fakeslack.New(b)
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)

	bareAPI := slack.New("xoxb-bare", slack.OptionAPIURL(fs.URL), slack.OptionAppLevelToken("xapp-1-bare"))
	bare := socketmode.NewSocketmodeHandler(socketmode.New(bareAPI, socketmode.OptionLog(log.New(io.Discard, "", 0))))
	bare.HandleEvents(slackevents.AppMention, func(evt *socketmode.Event, c *socketmode.Client) { _ = c.Ack(*evt.Request) })
	go func() { _ = bare.RunEventLoopContext(ctx) }()
	fs.WaitConnections(1, 10*time.Second)

	// The test server commits asynchronously (scripts/db.sh); production
	// waits for the WAL flush, and so does the inbox here.
	durable, err := db.Open(ctx, d.URL+"&synchronous_commit=on", 0)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(durable.Close)
	var mode string
	if err := durable.Pool().QueryRow(ctx, "SHOW synchronous_commit").Scan(&mode); err != nil || mode != "on" {
		b.Fatalf("synchronous_commit %q (%v)", mode, err)
	}
	if _, err := durable.Pool().Exec(ctx, "CREATE TABLE ack_floor (team text, channel text, ts text, args jsonb NOT NULL, arrived_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (team, channel, ts))"); err != nil {
		b.Fatal(err)
	}
	in, err := inbox.New(durable, inbox.Options{Logger: zerolog.Nop()})
	if err != nil {
		b.Fatal(err)
	}
	if err := in.Start(ctx); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = in.Stop(time.Second) })
	api := slack.New("xoxb-mnemo", slack.OptionAPIURL(fs.URL), slack.OptionAppLevelToken("xapp-1-mnemo"))
	app := slackapp.New(slackapp.Config{
		API: api, Socket: socketmode.New(api), DB: d.DB, Memory: memory.New(d.DB, memory.Options{}),
		Directory: slackapp.NewDirectory(api, nil), Logger: zerolog.Nop(), Inbox: in,
	})
	done := make(chan error, 1)
	go func() { done <- app.Run(ctx) }()
	b.Cleanup(func() { cancel(); <-done })
	fs.WaitConnections(2, 10*time.Second)

	floorAPI := slack.New("xoxb-floor", slack.OptionAPIURL(fs.URL), slack.OptionAppLevelToken("xapp-1-floor"))
	floor := socketmode.NewSocketmodeHandler(socketmode.New(floorAPI, socketmode.OptionLog(log.New(io.Discard, "", 0))))
	floor.HandleEvents(slackevents.AppMention, func(evt *socketmode.Event, c *socketmode.Client) {
		e := evt.Data.(slackevents.EventsAPIEvent).InnerEvent.Data.(*slackevents.AppMentionEvent)
		args, _ := json.Marshal(map[string]string{"team": "T1", "channel": e.Channel, "ts": e.TimeStamp, "user": e.User, "text": e.Text})
		if _, err := durable.Pool().Exec(ctx, "INSERT INTO ack_floor (team, channel, ts, args) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING", "T1", e.Channel, e.TimeStamp, args); err != nil {
			return // not acked: the benchmark fails on the missing ack
		}
		_ = c.Ack(*evt.Request)
	})
	go func() { _ = floor.RunEventLoopContext(ctx) }()
	fs.WaitConnections(3, 10*time.Second)

	// Over HTTP, from a second fake Slack that posts signed requests: (d)
	// mnemo's handler (verify, parse, the same durable inbox write, 200),
	// the same dispatch as (b); (e) the floor of any HTTP app, a net/http
	// handler that only verifies the signature and answers 200.
	const secret = "bench-signing-secret"
	httpApp := slackapp.New(slackapp.Config{
		API: api, DB: d.DB, Memory: memory.New(d.DB, memory.Options{}),
		Directory: slackapp.NewDirectory(api, nil), Logger: zerolog.Nop(), Inbox: in,
	})
	if err := httpApp.Authenticate(ctx); err != nil {
		b.Fatal(err)
	}
	mux := http.NewServeMux()
	httpApp.Mount(mux, slackapp.HTTPOptions{SigningSecret: secret})
	mux.HandleFunc("POST /bare/slack/events", func(w http.ResponseWriter, r *http.Request) {
		sv, err := slack.NewSecretsVerifier(r.Header, secret)
		body, _ := io.ReadAll(http.MaxBytesReader(w, r.Body, slackapp.MaxRequestBody))
		if err != nil || func() error { _, _ = sv.Write(body); return sv.Ensure() }() != nil {
			http.Error(w, "unsigned", http.StatusUnauthorized)
		}
	})
	srv := httptest.NewServer(mux)
	b.Cleanup(srv.Close)
	httpDone := make(chan error, 1)
	go func() { httpDone <- httpApp.Run(ctx) }()
	b.Cleanup(func() { cancel(); <-httpDone })
	overHTTP, bareHTTP := fakeslack.New(b), fakeslack.New(b)
	overHTTP.DeliverHTTP(srv.URL, secret)
	bareHTTP.DeliverHTTP(srv.URL+"/bare", secret)

	n := 0
	send := func(via *fakeslack.Server, to fakeslack.Target, moved bool) time.Duration {
		n++
		ts := fmt.Sprintf("%d.%06d", 1800000000+n, 100)
		env := via.SendEvent(map[string]any{"type": "app_mention", "user": "U0ALICE", "text": "<@" + fakeslack.BotUserID + "> hi", "ts": ts, "channel": "C0BENCH"}, fakeslack.EventOptions{To: to})
		via.WaitAck(env, 10*time.Second)
		lat, ok := via.AckLatency(env)
		if !ok {
			b.Fatalf("no ack time for %s", env)
		}
		if moved {
			waitMoved(b, d, ts)
		}
		return lat
	}
	ack := func(to fakeslack.Target) time.Duration { return send(fs, to, to == fakeslack.Conn(2)) }
	for i := 0; i < 20; i++ { // warm every path: connections, pool, prepared statements
		ack(fakeslack.Conn(1))
		ack(fakeslack.Conn(3))
		ack(fakeslack.Conn(2))
		send(bareHTTP, fakeslack.Newest, false)
		send(overHTTP, fakeslack.Newest, true)
	}
	var bareLat, floorLat, inboxLat, bareHTTPLat, httpLat []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		bareLat = append(bareLat, ack(fakeslack.Conn(1)))
		floorLat = append(floorLat, ack(fakeslack.Conn(3)))
		inboxLat = append(inboxLat, ack(fakeslack.Conn(2)))
		bareHTTPLat = append(bareHTTPLat, send(bareHTTP, fakeslack.Newest, false))
		httpLat = append(httpLat, send(overHTTP, fakeslack.Newest, true))
	}
	b.StopTimer()
	report := func(name string, lat []time.Duration) {
		slices.Sort(lat)
		at := func(q float64) float64 {
			return float64(lat[min(len(lat)-1, int(q*float64(len(lat))))].Microseconds()) / 1000
		}
		b.ReportMetric(at(0.50), name+"-p50-ms")
		b.ReportMetric(at(0.99), name+"-p99-ms")
		b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, name+"-max-ms")
	}
	report("bare", bareLat)
	report("floor", floorLat)
	report("inbox", inboxLat)
	report("bare-http", bareHTTPLat)
	report("http", httpLat)
}

// waitMoved waits until the mover has taken the post into River.
func waitMoved(b *testing.B, d *testdb.DB, ts string) {
	b.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var moved bool
		if err := d.Pool.QueryRow(context.Background(), "SELECT moved_at IS NOT NULL FROM inbox_arrivals WHERE ts = $1", ts).Scan(&moved); err != nil {
			b.Fatal(err)
		}
		if moved {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("post %s not moved into River", ts)
		}
		time.Sleep(200 * time.Microsecond)
	}
}

package inbox_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/inbox"
	"github.com/mnemo-bot/mnemo/internal/testkit/testdb"
)

// BenchmarkEnqueue measures the inbox write alone, the part of an ack that
// waits on PostgreSQL: Enqueue's one autocommit INSERT into inbox_arrivals
// (enqueue-*). Beside it, in the same run and on the same pool: its floor,
// a bare single-row INSERT of the same shape (insert-*), and what the ack
// used to wait for, River's client.Insert of the post's unique job, a
// transaction of several round trips (river-*). The mover is not running,
// so nothing else touches the database meanwhile.
func BenchmarkEnqueue(b *testing.B) {
	d := testdb.New(b)
	ctx := context.Background()
	// Durable commits, as production's default; the test server commits
	// asynchronously (scripts/db.sh).
	durable, err := db.Open(ctx, d.URL+"&synchronous_commit=on", 0)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(durable.Close)
	var mode string
	if err := durable.Pool().QueryRow(ctx, "SHOW synchronous_commit").Scan(&mode); err != nil || mode != "on" {
		b.Fatalf("synchronous_commit %q (%v)", mode, err)
	}
	in, err := inbox.New(durable, inbox.Options{Logger: zerolog.Nop()})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := durable.Pool().Exec(ctx, "CREATE TABLE bench_baseline (team text, channel text, ts text, args jsonb, PRIMARY KEY (team, channel, ts))"); err != nil {
		b.Fatal(err)
	}
	n := 0
	post := func() inbox.Post {
		n++
		return inbox.Post{Team: "T1", Channel: "C1", TS: fmt.Sprintf("%d.%06d", 1800000000+n, 100), User: "UA", Text: "hello there", Mention: true}
	}
	var enq, ins, riv []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p := post()
		start := time.Now()
		if dup, err := in.Enqueue(ctx, p); err != nil || dup {
			b.Fatal(dup, err)
		}
		enq = append(enq, time.Since(start))
		start = time.Now()
		if _, err := durable.Pool().Exec(ctx, "INSERT INTO bench_baseline VALUES ($1, $2, $3, $4)", p.Team, p.Channel, p.TS, `{"text":"hello there"}`); err != nil {
			b.Fatal(err)
		}
		ins = append(ins, time.Since(start))
		// Another channel's post, so it is a new job, not the arrival's.
		p.Channel = "C2"
		start = time.Now()
		if res, err := in.Client().Insert(ctx, p, nil); err != nil || res.UniqueSkippedAsDuplicate {
			b.Fatal(res, err)
		}
		riv = append(riv, time.Since(start))
	}
	b.StopTimer()
	for name, lat := range map[string][]time.Duration{"enqueue": enq, "insert": ins, "river": riv} {
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, name+"-p50-ms")
		b.ReportMetric(float64(lat[min(len(lat)-1, len(lat)*99/100)].Microseconds())/1000, name+"-p99-ms")
	}
}

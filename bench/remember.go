package bench

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mnemo-bot/mnemo/bench/corpus"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
)

// RememberResult is the write path at a corpus size, without the model's
// review: the latency of one remember at a time, and the throughput of
// Writers at once.
type RememberResult struct {
	Latency     Latency
	Writers     int
	PerSecond   float64
	Stored, Dup int
	Rejected    int
	// Unseen counts stored memories that the next search, on another
	// connection, did not return. Outranked counts those it did not return
	// because it returned as many as it was asked for, every one of the
	// very same text (a corpus of a million repeats its sentences, and
	// the copies the review gave cues to score above one written without):
	// not a miss of the index.
	Unseen, Outranked int
}

// MeasureRemember writes n memories one at a time, each searched for at
// once through reader (another pool), then n more with writers concurrent
// writers. The memories are the corpus's next rows, said by their people in
// their places.
func MeasureRemember(ctx context.Context, store, reader *memory.Store, spec corpus.Spec, n, writers int) (RememberResult, error) {
	res := RememberResult{Writers: writers}
	var mu sync.Mutex
	write := func(i int) (time.Duration, error) {
		req := writeRequest(spec.Row(spec.Rows + i))
		start := time.Now()
		out, err := store.Remember(ctx, req)
		d := time.Since(start)
		if err != nil {
			return 0, fmt.Errorf("remember %q: %w", req.Content, err)
		}
		if i < n && out.Status == memory.Stored {
			found, err := reader.Search(ctx, memory.ViewerAt(req.Actor, req.Place), out.Memory.Content, memory.MaxListLimit, true)
			if err != nil {
				return 0, err
			}
			if !slices.ContainsFunc(found, func(m memory.Memory) bool { return m.ID == out.Memory.ID }) {
				copies := len(found) == memory.MaxListLimit && !slices.ContainsFunc(found, func(m memory.Memory) bool {
					return !strings.EqualFold(m.Content, out.Memory.Content)
				})
				mu.Lock()
				if copies {
					res.Outranked++
				} else {
					res.Unseen++
				}
				mu.Unlock()
			}
		}
		mu.Lock()
		defer mu.Unlock()
		switch out.Status {
		case memory.Stored:
			res.Stored++
		case memory.Duplicate:
			res.Dup++
		default:
			res.Rejected++
		}
		return d, nil
	}
	var lat []time.Duration
	for i := range n {
		d, err := write(i)
		if err != nil {
			return res, err
		}
		lat = append(lat, d)
	}
	res.Latency = latencyOf(lat)

	next := make(chan int)
	var (
		wg    sync.WaitGroup
		first error
		once  sync.Once
	)
	start := time.Now()
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if _, err := write(i); err != nil {
					once.Do(func() { first = err })
				}
			}
		}()
	}
	for i := n; i < 2*n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	if first != nil {
		return res, first
	}
	res.PerSecond = float64(n) / time.Since(start).Seconds()
	return res, nil
}

func writeRequest(r corpus.Row) memory.WriteRequest {
	place := provenance.Place{Team: r.Team, Channel: r.ChannelID, SourceKey: r.SourceKey, Visibility: provenance.Visibility(r.Visibility)}
	return memory.WriteRequest{
		Actor:     provenance.Actor{Kind: provenance.KindUser, Team: r.Team, ID: r.ActorID, Name: r.ActorName, IsAdmin: r.Scope == "workspace"},
		Place:     place,
		MessageTS: r.MessageTS,
		Scope:     memory.Scope(r.Scope),
		Kind:      memory.Kind(r.Kind),
		Content:   r.Content,
		WrittenBy: provenance.ByExplicit,
	}
}

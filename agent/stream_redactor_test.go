package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/mnemo-bot/mnemo/agent"
	"github.com/mnemo-bot/mnemo/detect"
)

// wholeThrottle is the Throttle as it was before detect.Redactor: the same
// rate and the same cut at the last break, but the whole text redacted at
// every append. It is kept here only as the reference the Throttle must
// equal, and as the benchmark's baseline.
type wholeThrottle struct {
	out     agent.TextStream
	now     func() time.Time
	pending strings.Builder
	said    strings.Builder
	shownAs strings.Builder
	stuck   bool
	last    time.Time
	fresh   bool
	shown   int
	err     error
}

func (t *wholeThrottle) Begin() { t.fresh = true }

func (t *wholeThrottle) Write(ctx context.Context, delta string) {
	if t.err != nil {
		return
	}
	if t.fresh {
		t.fresh, t.last = false, t.now()
	}
	t.pending.WriteString(delta)
	if t.pending.Len() >= agent.StreamChars || t.now().Sub(t.last) >= agent.StreamInterval {
		t.flush(ctx, false)
	}
}

func (t *wholeThrottle) Flush(ctx context.Context) error { t.flush(ctx, true); return t.err }
func (t *wholeThrottle) Settle(ctx context.Context)      { t.flush(ctx, false) }

func (t *wholeThrottle) Discard() {
	t.pending.Reset()
	shown := t.shownAs.String()
	t.said.Reset()
	t.said.WriteString(shown)
}

func (t *wholeThrottle) flush(ctx context.Context, end bool) {
	if t.err != nil || t.stuck {
		return
	}
	t.said.WriteString(t.pending.String())
	t.pending.Reset()
	t.last = t.now()
	red := detect.Redact(t.said.String())
	if !end {
		at, _ := detect.SafeBreak(red, 0) // from the start: the Throttle's from only spares work
		red = red[:at]
	}
	shown := t.shownAs.String()
	if !strings.HasPrefix(red, shown) {
		t.stuck = true
		return
	}
	text := red[len(shown):]
	if text == "" {
		return
	}
	if err := t.out.Append(ctx, text); err != nil {
		t.err = err
		return
	}
	t.shownAs.WriteString(text)
	t.shown += len(text)
}

// throttle is what both implement.
type throttle interface {
	Begin()
	Write(ctx context.Context, delta string)
	Flush(ctx context.Context) error
	Settle(ctx context.Context)
	Discard()
}

// streamPieces are the texts an answer is built from: detect's corpora
// (secrets of every kind and the ordinary text beside them) and the
// secrets that span lines or look back: a private key's block, a bare PEM
// body, a keyring, a password named by reference, and secrets in and
// after runs without spaces.
func streamPieces(tb testing.TB) []string {
	tb.Helper()
	var pieces []string
	for _, path := range []string{"../memory/testdata/detectors.json", "../detect/testdata/secret_corpus.json"} {
		raw, err := os.ReadFile(path)
		require.NoError(tb, err)
		var entries []struct{ Text string }
		require.NoError(tb, json.Unmarshal(raw, &entries), path)
		for _, e := range entries {
			pieces = append(pieces, e.Text)
		}
	}
	body := "2uLW4y9SWuzkKFZ/nYhYgvZDJWnyDEQSEiD74VDNp3u2Y06pNBhuND/lLC0HFaXo\nEZXxXfim1qYh5Fk8Zq3pV6rT2nJ9mX4cE7bA0dK1oL8sW5vR3ylQdGBGZ2x3kBEA\nDC1wS0lN7uYh5Fk8Zq3pV6rT2nJ9mX4cE7bA0d=="
	return append(pieces,
		"-----BEGIN PRIVATE KEY-----\n"+body+"\n-----END PRIVATE KEY-----",
		body,
		"the encryption key is k2:zWGiRXuRaudanaJKc65OfJ3YK64WfeEMTI+LdLjNERc=, k1:EoprIzxheeDL+0i0/Vvm+Oa5cp03Z8iL7vtIseIqRJ4=",
		"my password was Tr0ub4dor&3 last week.", "Then the admin changed it to Zq8$wN3rTy and",
		"Paris is lovely in spring, and the trains from London take a little over two hours.",
		"東京の天気は晴れです。",
		"パスワードはpassword:東京タワー123です。", "the user 東京の天気は晴れです。", "接続はhttps://admin:S3cr3t東京@db.example.com/prodです。",
	)
}

// streamAnswer builds an answer of about n bytes from pieces, and the
// deltas a model would send it in.
func streamAnswer(rng *rand.Rand, pieces []string, n int) (string, []string) {
	seps := []string{" ", " ", "\n", "\n\n", ". ", "\n- ", "\n```\n"}
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(pieces[rng.IntN(len(pieces))])
		b.WriteString(seps[rng.IntN(len(seps))])
	}
	text := b.String()
	var deltas []string
	for at := 0; at < len(text); {
		next := min(len(text), at+1+rng.IntN(12))
		for next < len(text) && !utf8.RuneStart(text[next]) {
			next++
		}
		deltas, at = append(deltas, text[at:next]), next
	}
	return text, deltas
}

// The Throttle appends exactly what redacting the whole text at every
// append gave: in random streams of long answers full of secrets, with
// tool steps discarded, the clock moving, appends failing and streams
// failing midway, its appends, what it reports shown and its errors are
// the whole-text reference's; and a stream that ran to its end without
// stopping adds up to the answer redacted whole.
func TestThrottleEqualsRedactingTheWholeText(t *testing.T) {
	t.Parallel()
	pieces := streamPieces(t)
	for seed := range uint64(10) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(seed, 3))
			text, deltas := streamAnswer(rng, pieces, 1500+rng.IntN(2500))
			failAt := 0
			if seed%4 == 3 {
				failAt = 2 + rng.IntN(20)
			}
			discardAt, settle := -1, seed%5 == 4
			if seed%3 == 2 {
				discardAt = rng.IntN(len(deltas))
			}
			run := func(th throttle, clk *clock) {
				// The clock moves by the seed's own steps, the same for both.
				steps := rand.New(rand.NewPCG(seed, 9))
				ctx := context.Background()
				th.Begin()
				for i, d := range deltas {
					clk.add(time.Duration(steps.IntN(120)) * time.Millisecond)
					if i == discardAt {
						th.Discard()
						th.Begin()
					}
					th.Write(ctx, d)
				}
				if settle {
					th.Settle(ctx)
				} else {
					_ = th.Flush(ctx)
				}
			}
			start := time.Date(2026, 12, 3, 4, 0, 0, 0, time.UTC)
			refOut, newOut := &appends{failAt: failAt}, &appends{failAt: failAt}
			refClk, newClk := &clock{t: start}, &clock{t: start}
			ref := &wholeThrottle{out: refOut, now: refClk.now, fresh: true}
			th := agent.NewThrottle(newOut, newClk.now)
			run(ref, refClk)
			run(th, newClk)
			require.Equal(t, refOut.all(), newOut.all())
			require.Equal(t, ref.shown, th.Shown())
			require.Greater(t, len(newOut.all()), 1, "it streamed")
			if failAt == 0 && discardAt < 0 && !settle && !ref.stuck {
				require.Equal(t, detect.Redact(text), strings.Join(newOut.all(), ""))
			}
		})
	}
}

// longProse is a 20,000-character answer of the kind a work chat gets:
// prose, settings, URLs, numbers and talk of keys and passwords, with no
// secret in it.
func longProse() string {
	rng := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	pieces := []string{
		"The deploy went out on Tuesday and nobody noticed a thing.",
		"Paris is lovely in spring, and the trains from London take a little over two hours.",
		"Run `make test` before you push; the race detector catches most of it.",
		"Set DB_HOST=db.internal and PORT=5432 in the .env file, then run `docker compose up -d`.",
		"The API key rotation runbook is at https://wiki.example.com/runbooks/api-keys?rev=42&lang=en.",
		"Our password policy requires 12 characters, and tokens expire after 3600 seconds.",
		"Page the on-call phone at 14:30 UTC if build 2024-06-01.7 fails again.",
		"The user and pass come from Vault: vault kv get secret/app/prod, never from the repo.",
		"Ask in #platform if the staging cluster is down again; the secret is good coffee.",
	}
	for b.Len() < 20000 {
		b.WriteString(pieces[rng.IntN(len(pieces))])
		b.WriteString([]string{" ", "\n", "\n\n"}[rng.IntN(3)])
	}
	return b.String()[:20000]
}

// streamThrough writes text to th a few characters a delta, with the
// clock still, so it appends every StreamChars, and flushes it.
func streamThrough(tb testing.TB, th throttle, text string) {
	ctx := context.Background()
	th.Begin()
	for i := 0; i < len(text); i += 4 {
		th.Write(ctx, text[i:min(len(text), i+4)])
	}
	require.NoError(tb, th.Flush(ctx))
}

// BenchmarkThrottle streams a 20,000-character answer through the
// Throttle, a few characters a delta, with the clock still, so it appends
// every StreamChars: "whole" is the Throttle as it was, which redacted the
// whole text at every append; "Redactor" is agent.Throttle. One op is one
// answer.
func BenchmarkThrottle(b *testing.B) {
	text := longProse()
	clk := &clock{t: time.Date(2026, 12, 3, 4, 0, 0, 0, time.UTC)}
	b.Run(fmt.Sprintf("whole/%d", len(text)), func(b *testing.B) {
		for b.Loop() {
			streamThrough(b, &wholeThrottle{out: &appends{}, now: clk.now, fresh: true}, text)
		}
	})
	b.Run(fmt.Sprintf("Redactor/%d", len(text)), func(b *testing.B) {
		for b.Loop() {
			streamThrough(b, agent.NewThrottle(&appends{}, clk.now), text)
		}
	})
}

package detect

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// answerPieces are what a streamed answer is made of here: the detector
// corpus (secrets of every kind, and the hard negatives beside them),
// statements about people, and the multi-line and context secrets a cut
// could split: a private key's block, bare PEM bodies, keyrings, a
// password named by reference sentences later, and redaction markers.
func answerPieces(tb testing.TB) []string {
	tb.Helper()
	var pieces []string
	for _, e := range loadCorpus(tb) {
		pieces = append(pieces, e.Text)
	}
	pieces = append(pieces, loadStatements(tb)...)
	body := keyBody("answer", 12)
	pieces = append(pieces,
		"-----BEGIN RSA PRIVATE KEY-----\n"+strings.Join(body, "\n")+"\n-----END RSA PRIVATE KEY-----",
		"-----BEGIN OPENSSH PRIVATE KEY-----\n"+strings.Join(keyBody("ssh", 5), "\n"),
		"```\n"+strings.Join(keyBody("bare", 8), "\n")+"\n```",
		strings.Join(keyBody("bare two", 3), "\n"),
		"the encryption key is k1:"+keyA+", and before it k0:"+keyB,
		"MNEMO_ENCRYPTION_KEY=k2:"+keyB+", k1:"+keyA,
		"my password was Tr0ub4dor&3 last week.",
		"After the audit the admin changed it to Zq8$wN3rTy and",
		"the new one is Kx9#mQ2vLp;",
		"pw is "+RedactedMarker+" now",
		RedactedMarker,
		"aws secret key is",
		"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
	)
	return pieces
}

// answer joins random pieces with the separators an answer has, up to n
// bytes.
func answer(rng *rand.Rand, pieces []string, n int) string {
	seps := []string{" ", " ", "\n", "\n\n", ". ", ", ", "\n- ", "\n```\n", "\t", "\r\n", " 東京 "}
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(pieces[rng.IntN(len(pieces))])
		b.WriteString(seps[rng.IntN(len(seps))])
	}
	return b.String()
}

// The Redactor is Redact of the text so far, at every point a stream
// could ask: written in random pieces, across its cuts, with private keys,
// keyrings and context-dependent passwords in the text.
func TestRedactorIsRedactOfTheTextSoFar(t *testing.T) {
	t.Parallel()
	pieces := answerPieces(t)
	for seed := range uint64(6) {
		rng := rand.New(rand.NewPCG(seed, 7))
		text := answer(rng, pieces, 2500+rng.IntN(2000))
		var r Redactor
		cuts := 0
		for at := 0; at < len(text); {
			next := min(len(text), at+1+rng.IntN(400))
			_, _ = r.WriteString(text[at:next])
			at = next
			if r.c0 == 0 {
				// Before its first cut it redacts the whole text.
				r.Redacted()
				continue
			}
			cuts++
			require.Equal(t, Redact(text[:at]), r.Redacted(), "seed %d, after %d bytes", seed, at)
		}
		require.Positive(t, cuts, "seed %d: the window moved", seed)
		require.Equal(t, text, r.String())
	}
}

// A cut is never taken where a pattern could reach across it: inside an
// open private key block, after a line of base64 a key's body could
// continue, inside a redaction marker, or with too few words after it.
func TestRedactorCutsWhereNoSecretCanReachAcross(t *testing.T) {
	t.Parallel()
	prose := strings.Repeat("The deploy went out on Tuesday and nobody noticed a thing. ", 20)
	body := strings.Join(keyBody("cut", 4), "\n")
	for _, tc := range []struct {
		name, before string
		safe         bool
	}{
		{"after prose", prose, true},
		{"inside an open key block", "-----BEGIN PRIVATE KEY-----\n" + body + "\n", false},
		{"after a closed key block", "-----BEGIN PRIVATE KEY-----\n" + body + "\n-----END PRIVATE KEY-----\n" + prose, true},
		{"a BEGIN line and then prose", "-----BEGIN PRIVATE KEY----- is the header it starts with. ", true},
		{"after a line of base64", prose + "\n" + keyBody("line", 1)[0] + "\n", false},
		{"inside a marker", prose + "[redacted ", false},
	} {
		text := tc.before + prose
		if strings.HasSuffix(tc.before, "[redacted ") {
			text = tc.before + "secret] " + prose
		}
		require.Equal(t, tc.safe, safeCut(text, 0, len(tc.before)), tc.name)
	}
	require.False(t, safeCut(prose+strings.Repeat("x", 600), 0, len(prose)), "one long word after the cut")
	require.GreaterOrEqual(t, cutBytes, referenceLookback, "the window keeps all a context rule reads")
}

// Once the window moved, a secret split across writes is still found, as
// is a password named by reference to a keyword before the last cut.
func TestRedactorFindsSecretsAfterItsCuts(t *testing.T) {
	t.Parallel()
	prose := strings.Repeat("The deploy went out on Tuesday and nobody noticed a thing. ", 60)
	text := prose + "my password was Tr0ub4dor&3, then " + prose[:200] + " the new one is Kx9#mQ2vLp and ghp_abcdefghijklmnopqrstuvwxyzABCDEF012345 " + prose
	var r Redactor
	for i := 0; i < len(text); i += 7 {
		_, _ = r.WriteString(text[i:min(len(text), i+7)])
		r.Redacted()
	}
	require.Positive(t, r.c0, "the window moved")
	got := r.Redacted()
	require.Equal(t, Redact(text), got)
	for _, s := range []string{"Tr0ub4dor", "Kx9#mQ2vLp", "ghp_abc"} {
		require.NotContains(t, got, s)
	}
	r.Reset()
	require.Empty(t, r.Redacted())
	require.Empty(t, r.String())
}

// Gates only skip a detector that could not match, wherever its words
// are: a gate that needed a word the pattern does not ("set it to" with
// "new one" and no "set") made a finding depend on words far from it,
// which the Redactor's window does not see.
func TestGatesHoldAWordOfEveryAlternative(t *testing.T) {
	t.Parallel()
	for _, text := range []string{
		"the password: I set it to Xyz123!abc",
		"the old password was Tr0ub4dor&3 and the new\tone is Kx9#mQ2vLp",
		"the old password was Tr0ub4dor&3, the new  value: Kx9#mQ2vLp",
	} {
		require.Equal(t, scan(text, nil, false), Detect(text), text)
		require.NotEqual(t, text, Redact(text), text)
	}
}

// FuzzRedactor streams an answer that holds the fuzzed text twice, at
// positions the seed picks among ordinary prose and runs without white
// space, so the text lands before, across and after the Redactor's cuts;
// what it gives at every write is Redact's.
func FuzzRedactor(f *testing.F) {
	// The seeds are a third of detect's own secret corpus and the pieces
	// that span lines or look back; the fuzzer takes it from there.
	raw, err := os.ReadFile("testdata/secret_corpus.json")
	require.NoError(f, err)
	var entries []corpusEntry
	require.NoError(f, json.Unmarshal(raw, &entries))
	for i := 0; i < len(entries); i += 3 {
		f.Add(entries[i].Text, uint64(i))
	}
	for _, p := range answerPieces(f)[len(loadCorpus(f)):] {
		f.Add(p, uint64(len(p)*31))
	}
	for _, p := range runSecrets {
		f.Add(p, uint64(len(p)*17))
	}
	statements := loadStatements(f)
	f.Fuzz(func(t *testing.T, text string, seed uint64) {
		rng := rand.New(rand.NewPCG(seed, 11))
		var b strings.Builder
		for range 2 {
			b.WriteString(answer(rng, statements, rng.IntN(900)))
			// A run without white space on either side of the text, as
			// Japanese is written, is cut at its neutral runes.
			if rng.IntN(2) == 0 {
				b.WriteString(neutralRun(rng, rng.IntN(900)))
			}
			b.WriteString(text)
			if rng.IntN(2) == 0 {
				b.WriteString(neutralRun(rng, rng.IntN(900)))
			}
		}
		b.WriteString(answer(rng, statements, 400))
		all := b.String()
		var r Redactor
		for at := 0; at < len(all); {
			next := min(len(all), at+1+rng.IntN(400))
			_, _ = r.WriteString(all[at:next])
			at = next
			windowed := r.c0 > 0 // before its first cut it is Redact itself
			got := r.Redacted()
			if !windowed && at < len(all) {
				continue
			}
			if want := Redact(all[:at]); got != want {
				t.Fatalf("after %d bytes of %q:\nRedactor %q\nRedact   %q", at, all, got, want)
			}
		}
	})
}

// BenchmarkThrottleRedaction is the agent's Throttle's redaction of a
// 20,000-character answer, streamed as a model writes it: deltas of a few
// characters, an append each time StreamChars (200) wait, each append
// redacted through its last break. "whole" is the Throttle before the
// Redactor, which redacted the whole text at every append; "Redactor" is
// the same stream through a Redactor. One op is one answer.
func BenchmarkThrottleRedaction(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	text := answer(rng, loadStatements(b), 20000)[:20000]
	stream := func(b *testing.B, redacted func(said string, r *Redactor) string) {
		var r Redactor
		shown, pending := 0, 0
		for i := 0; i < len(text); i += 4 {
			delta := text[i:min(len(text), i+4)]
			_, _ = r.WriteString(delta)
			if pending += len(delta); pending < 200 && i+4 < len(text) {
				continue
			}
			pending = 0
			red := redacted(text[:i+len(delta)], &r)
			if i+4 < len(text) {
				red = streamBreak(red)
			}
			if len(red) < shown {
				b.Fatal("the redaction reached back")
			}
			shown = len(red)
		}
		if shown == 0 {
			b.Fatal("nothing shown")
		}
	}
	b.Run(fmt.Sprintf("whole/%d", len(text)), func(b *testing.B) {
		for b.Loop() {
			stream(b, func(said string, _ *Redactor) string { return Redact(said) })
		}
	})
	b.Run(fmt.Sprintf("Redactor/%d", len(text)), func(b *testing.B) {
		for b.Loop() {
			stream(b, func(_ string, r *Redactor) string { return r.Redacted() })
		}
	})
}

// notInURL reads only the word a match starts in, as it did when it
// replaced every marker in the whole text first: the same answer at every
// position of texts with URLs, markers inside and beside them, and
// white space of every kind.
func TestNotInURLReadsOnlyItsWord(t *testing.T) {
	t.Parallel()
	whole := func(text string, at int) bool {
		text = strings.ReplaceAll(text, RedactedMarker, strings.ReplaceAll(RedactedMarker, " ", "_"))
		start := strings.LastIndexAny(text[:at], " \t\r\n") + 1
		end := at
		for end < len(text) && !strings.ContainsRune(" \t\r\n", rune(text[end])) {
			end++
		}
		return !strings.Contains(text[start:end], "://")
	}
	for _, text := range []string{
		"postgres://admin:" + RedactedMarker + "@db.internal:5432/prod user admin / pw S3cr3t!x",
		RedactedMarker + " https://x.example/" + RedactedMarker + RedactedMarker + "\tlogin: bob\r\npass: " + RedactedMarker,
		"a " + RedactedMarker[:12] + " b://c " + RedactedMarker[9:] + " d",
		"redis://:" + RedactedMarker + "@redis.internal:6379/0\nadmin / S3cretPass!",
	} {
		for at := range len(text) {
			require.Equal(t, whole(text, at), notInURL(text, []int{at}), "%q at %d", text, at)
		}
	}
}

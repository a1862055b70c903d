package detect

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// runPieces are runs without ASCII white space, as a Japanese or Chinese
// answer is written: sentences, their punctuation, and the ASCII words,
// numbers and versions such text holds.
var runPieces = []string{
	"東京の天気は晴れです。", "明日は雨が降るでしょう、", "設定ファイルを更新しました，",
	"数据库已经迁移完成。", "サーバーのAPIはv1.2です。", "2024年3月に", "「確認」してください！",
	"ログを見てください。", "데이터베이스를확인하세요.", "Ελέγξτε", "обновлено",
}

// runSecrets are secrets and their triggers inside and before such runs:
// a value that is the rest of the run, a trigger a word or more before
// it, keys beside kana, and the runes a pattern names (ñ, ’, K).
var runSecrets = []string{
	"パスワードはpassword:東京タワー123です。",
	"the password is ",
	"the new one is ",
	"MNEMO_API_KEY= ",
	"-u ",
	"user: bob pw: ",
	"login ",
	"トークンはghp_abcdefghijklmnopqrstuvwxyzABCDEF012345です。",
	"接続はhttps://admin:S3cr3t東京@db.example.com/prodです。",
	"https://例え.jp/検索?q=東京&access_token=東京Abc12345678です",
	"admin / ",
	"aws",
	"のkey:wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
	"contraseña: ",
	"it’s now ",
	"\u212aey: ",
	"pw is " + RedactedMarker + "東京",
	"deploy:ZXhhbXBsZQ@bastion",
}

// runAnswer is an answer of prose, long runs, and the secrets in and
// before them, up to n bytes; a run is joined to what is before and after
// it without white space as often as with.
func runAnswer(rng *rand.Rand, prose []string, n int) string {
	var b strings.Builder
	for b.Len() < n {
		switch rng.IntN(4) {
		case 0:
			b.WriteString(prose[rng.IntN(len(prose))])
			b.WriteString(" ")
		case 1:
			b.WriteString(runSecrets[rng.IntN(len(runSecrets))])
		default:
			b.WriteString(neutralRun(rng, 50+rng.IntN(1500)))
		}
		if rng.IntN(2) == 0 {
			b.WriteString([]string{" ", "\n", "\n\n", "\t"}[rng.IntN(4)])
		}
	}
	return b.String()
}

// neutralRun is a run of runPieces of about n bytes.
func neutralRun(rng *rand.Rand, n int) string {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(runPieces[rng.IntN(len(runPieces))])
	}
	return b.String()
}

// A run without white space (Japanese or Chinese text) is cut at its
// neutral runes, so the window the Redactor redacts again stays bounded
// and the work of a streamed answer grows with its length, not its
// square: the window was the whole run at every write.
func TestRedactorWindowIsBoundedInARunWithoutSpaces(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 5))
	intro := "Here is the summary you asked for, in Japanese, with the password policy and the new settings for users. "
	run := neutralRun(rng, 4*20000)
	// work streams intro and n bytes of the run in 200-byte writes and
	// returns the bytes of the windows it redacted, and the largest.
	work := func(n int) (total, widest int) {
		text := intro + run[:n]
		var r Redactor
		for at := 0; at < len(text); {
			next := min(len(text), at+200)
			for next < len(text) && !utf8RuneStart(text[next]) {
				next++
			}
			_, _ = r.WriteString(text[at:next])
			at = next
			got := r.Redacted()
			window := len(text[:at]) - r.c0
			total += window
			widest = max(widest, window)
			if at == len(text) {
				require.Equal(t, Redact(text), got)
			}
		}
		return total, widest
	}
	small, _ := work(20000)
	large, widest := work(len(run))
	require.LessOrEqual(t, widest, 6*cutBytes, "the window stays bounded")
	require.Less(t, float64(large)/float64(small), 6.0, "4x the text costs about 4x the work, not 16x: %d then %d bytes redacted", small, large)
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// The Redactor is Redact of the text so far with runs that have no white
// space, secrets in them and triggers before them, written in random
// pieces that split runes.
func TestRedactorIsRedactOfTheTextSoFarWithRuns(t *testing.T) {
	t.Parallel()
	prose := loadStatements(t)
	cutsInRuns := 0
	for seed := range uint64(8) {
		rng := rand.New(rand.NewPCG(seed, 13))
		text := runAnswer(rng, prose, 6000+rng.IntN(6000))
		var r Redactor
		for at := 0; at < len(text); {
			next := min(len(text), at+1+rng.IntN(300))
			_, _ = r.WriteString(text[at:next])
			at = next
			require.Equal(t, Redact(text[:at]), r.Redacted(), "seed %d, after %d bytes", seed, at)
			if r.c1 > 0 && !strings.ContainsRune(" \t\n", rune(text[r.c1-1])) {
				cutsInRuns++
			}
		}
	}
	require.Positive(t, cutsInRuns, "the window was cut inside a run")
}

// A cut inside a run is taken after a neutral rune only where no rule
// can reach it: not in a value after a keyword, a setting, "-u", "user",
// a URL or "aws", where the text after the cut turns the run into a
// secret across the cut. Each unsafe case shows that it does.
func TestRedactorCutsInARunWhereNoSecretCanReach(t *testing.T) {
	t.Parallel()
	prose := strings.Repeat("The deploy went out on Tuesday and nobody noticed a thing. ", 6)
	run := strings.Repeat("東京の天気は晴れです。", 12)
	for _, tc := range []struct {
		name, before, after string
		safe                bool
	}{
		{"prose, then a run", prose, "", true},
		{"a run with ASCII words in it", prose + "サーバーのAPIはv1.2です。", "", true},
		{"'user' and 'now' in the prose before", prose + "the users are set now ", "", true},
		{"a password's value", prose + "the password is ", "1", false},
		{"a value in the run", prose + "パスワードはpassword:", "1", false},
		{"a reference's value", prose + "the password was Tr0ub4dor&3, the new one is ", "1", false},
		{"a setting's value", prose + "MNEMO_API_KEY= ", "", false},
		{"a command line's user", prose + "curl -u ", ":hunter2X", false},
		{"a user, then pw", prose + "user ", " pw hunter2", false},
		{"a URL's user", prose + "see https://", ":S3cret@db.example.com", false},
		{"a URL's query", prose + "see https://x.example/?access_token=", "Ab12345678", false},
	} {
		text := tc.before + run + run
		c := len(tc.before + run)
		require.Equal(t, tc.safe, safeCut(text, 0, c), tc.name)
		if !tc.safe {
			// What comes after makes a secret that the cut splits.
			requireSplits(t, text+tc.after+" and more.", c, tc.name)
		}
	}
	// The runes a pattern names are no cut: ñ, ’, K.
	for _, s := range []string{"contraseña", "it’s", "\u212a"} {
		require.Equal(t, 0, cutBefore(s, len(s)), s)
	}
	require.Equal(t, len("東京"), cutBefore("東京", len("東京")))
}

// Every pattern that can hold a neutral rune is one cutProbes complete:
// a new one must be added here once inRunCut is shown to see its trigger
// before a run.
func TestCutProbesKnowEveryBroadPattern(t *testing.T) {
	t.Parallel()
	var names []string
	for _, re := range broadSecrets {
		for _, d := range detectors {
			if d.re == re {
				names = append(names, d.name)
			}
		}
	}
	require.ElementsMatch(t, []string{"AWS secret key", "encryption key", "password", "password by reference",
		"credential setting", "credentials before a host", "password on a command line", "username and password",
		"username / password", "credential in URL", "credential in URL query"}, names)
	// Each is seen from before a run: its trigger and a run, then the
	// rest of a match.
	run := strings.Repeat("東京。", 10)
	// An AWS key's "aws" holds 20 runes at most before its "key".
	aws := "ok aws 東京"
	require.False(t, inRunCut(aws+run, 0, len(aws)))
	requireSplits(t, aws+"key東京 wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", len(aws), "aws")
	// An encryption key reads the rune after it, which it does not redact.
	key := "ok k1:" + keyA + "東"
	require.False(t, inRunCut(key+run, 0, len(key)))
	require.Equal(t, "ok k1:"+RedactedMarker+"東"+run, Redact(key+run))
	for _, tc := range []struct{ before, after string }{
		{"password: ", ""},
		{"the password was X1y2z3w4, the new one is ", ""},
		{"DB_PASSWORD=", ""},
		{"admin:", "@db.example.com"},
		{"-u ", ":hunter2"},
		{"user ", " pw hunter2"},
		{"admin / Ab1", ""},
		{"https://", ":pw@db.example.com"},
		{"https://x.example/?access_token=", ""},
	} {
		text := "ok " + tc.before + run + run
		c := len("ok " + tc.before + run[:6])
		require.False(t, inRunCut(text, 0, c), tc.before)
		requireSplits(t, text+tc.after, c, tc.before)
	}
}

// requireSplits requires that redacting text on either side of the cut c
// is not redacting across it.
func requireSplits(t *testing.T, text string, c int, name string) {
	t.Helper()
	right, ok := redactFrom(text, c)
	require.True(t, ok, name)
	require.NotEqual(t, Redact(text), Redact(text[:c])+right, "%s: a secret spans the cut", name)
}

// BenchmarkRedactorRun streams 20,000 bytes of Japanese without white
// space after a line of prose, in 200-byte writes, through Redact of the
// whole text ("whole") and through a Redactor. One op is one answer.
func BenchmarkRedactorRun(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	text := "Here is the summary in Japanese, with the password policy and the new settings for users. " + neutralRun(rng, 20000)
	stream := func(redacted func(said string, r *Redactor) string) {
		var r Redactor
		for at := 0; at < len(text); {
			next := min(len(text), at+200)
			for next < len(text) && !utf8RuneStart(text[next]) {
				next++
			}
			_, _ = r.WriteString(text[at:next])
			at = next
			redacted(text[:at], &r)
		}
	}
	b.Run(fmt.Sprintf("whole/%d", len(text)), func(b *testing.B) {
		for b.Loop() {
			stream(func(said string, _ *Redactor) string { return Redact(said) })
		}
	})
	b.Run(fmt.Sprintf("Redactor/%d", len(text)), func(b *testing.B) {
		for b.Loop() {
			stream(func(_ string, r *Redactor) string { return r.Redacted() })
		}
	})
}

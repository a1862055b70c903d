package threads

import (
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseTS(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in string
		ok bool
	}{
		{"1700000000.000100", true},
		{"1.000000", true},
		{"0001700000.123456", true},
		{"17000000.memory-explicit", false}, // rejected: label-suffixed
		{"1700000000", false},
		{"1700000000.1", false},
		{" 1700000000.000100", false},
		{"1700000000.000100x", false},
		{"1700000000.000100 ", false},
		{"-1700000000.000100", false},
		{"+1700000000.000100", false},
		{".000100", false},
		{"1700000000.0001000", false},
		{"1700000000..000100", false},
		{"1700000000.00010", false},
		{"", false},
		{"١٧٠٠٠٠٠٠٠٠.000100", false}, // Arabic-Indic digits are not ASCII digits
		{"1234567890123.000100", false},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseTS("event.ts", tc.in)
			if tc.ok {
				require.NoError(t, err)
				require.Equal(t, TS(tc.in), got)
				return
			}
			require.ErrorIs(t, err, ErrBadTS)
			require.Contains(t, err.Error(), "event.ts", "error names the field")
			require.Contains(t, err.Error(), strconv.Quote(tc.in), "error names the value")
			require.Empty(t, got)
		})
	}
}

func TestTSTimeRoundTrip(t *testing.T) {
	t.Parallel()
	ts, err := ParseTS("ts", "1700000000.000100")
	require.NoError(t, err)
	require.Equal(t, int64(1700000000), ts.Time().Unix())
	require.Equal(t, 100000, ts.Time().Nanosecond())
	require.Equal(t, ts, TSFromTime(ts.Time()))
}

var tsGrammar = regexp.MustCompile(`^[0-9]{1,12}\.[0-9]{6}$`)

func FuzzParseTS(f *testing.F) {
	for _, s := range []string{"1700000000.000100", "17000000.memory-explicit", "1700000000", "1700000000.1", " 1700000000.000100", "1700000000.000100x", "1.000000"} { // fuzz seeds, valid and rejected
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ts, err := ParseTS("ts", s)
		if err != nil {
			if tsGrammar.MatchString(s) {
				t.Fatalf("rejected %q, which matches the grammar: %v", s, err)
			}
			return
		}
		if !tsGrammar.MatchString(string(ts)) {
			t.Fatalf("accepted %q, which does not match the grammar", s)
		}
		if string(ts) != s {
			t.Fatalf("accepted %q but returned %q", s, ts)
		}
		// Round trip through the thread key.
		k, _, err := KeyFor("T1", "C1", s, "")
		if err != nil {
			t.Fatalf("KeyFor rejected accepted ts %q: %v", s, err)
		}
		back, err := ParseSourceKey(k.SourceKey())
		if err != nil || back != k {
			t.Fatalf("source key %q did not round-trip: %v %v", k.SourceKey(), back, err)
		}
	})
}

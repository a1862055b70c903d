package threads

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestReplyKeyEqualsRootKey(t *testing.T) {
	t.Parallel()
	root, ts, err := KeyFor("T1", "C1", "1700000000.000100", "")
	require.Equal(t, TS("1700000000.000100"), ts)
	require.NoError(t, err)
	reply, _, err := KeyFor("T1", "C1", "1700000050.000200", "1700000000.000100")
	require.NoError(t, err)
	require.Equal(t, root.SourceKey(), reply.SourceKey())
	require.Equal(t, "slack:T1:C1:1700000000.000100", reply.SourceKey())

	other, _, err := KeyFor("T1", "C1", "1700000050.000200", "")
	require.NoError(t, err)
	require.NotEqual(t, root.SourceKey(), other.SourceKey(), "a new top-level post is its own thread")
}

func TestKeyForRejectsBadThreadTS(t *testing.T) {
	t.Parallel()
	_, _, err := KeyFor("T1", "C1", "1700000050.000200", "17000000.memory-explicit") // rejected
	require.ErrorIs(t, err, ErrBadTS)
	require.Contains(t, err.Error(), "thread_ts")

	_, _, err = KeyFor("T1", "C1", "17000000.memory-explicit", "") // rejected
	require.ErrorIs(t, err, ErrBadTS)
	require.Contains(t, err.Error(), "field ts")

	_, _, err = KeyFor("", "C1", "1700000050.000200", "")
	require.Error(t, err)
}

func TestParseSourceKey(t *testing.T) {
	t.Parallel()
	k, err := ParseSourceKey("slack:T1:D9:1700000000.000100")
	require.NoError(t, err)
	require.Equal(t, Key{Team: "T1", Channel: "D9", Root: "1700000000.000100"}, k)
	for _, bad := range []string{"", "slack:T1:C1", "slack:T1:C1:17000000.memory-explicit", "teams:T1:C1:1700000000.000100", "slack::C1:1700000000.000100"} {
		_, err := ParseSourceKey(bad)
		require.Error(t, err, bad)
	}
}

package evals

import (
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"
)

func TestBuiltinSuiteLoads(t *testing.T) {
	t.Parallel()
	ss, err := Load(Builtin())
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(ss), 14)
	names := map[string]bool{}
	for _, s := range ss {
		require.False(t, names[s.Name], "unique names")
		names[s.Name] = true
	}
}

func TestLoadRejectsLabelSuffixedTimestamps(t *testing.T) {
	t.Parallel()
	_, err := Load(os.DirFS("testdata/bad"))
	require.Error(t, err)
	msg := err.Error()
	require.Contains(t, msg, "label_suffixed.yaml")
	require.Contains(t, msg, "event.ts")
	require.Contains(t, msg, `"17000000.memory-explicit"`) // the rejected value is named
}

func TestLoadRejectsSharedThreadsAndUnknownFields(t *testing.T) {
	t.Parallel()
	one := "name: %s\nevents:\n  - {id: e, user: alice, channel: C0SAME, mention: true, text: hi, ts: \"1730000000.000100\"}\nrubric: {pass: [x]}\n"
	fsys := fstest.MapFS{
		"a.yaml": {Data: []byte(strings.Replace(one, "%s", "a", 1))},
		"b.yaml": {Data: []byte(strings.Replace(one, "%s", "b", 1))},
	}
	_, err := Load(fsys)
	require.ErrorContains(t, err, "reuses thread")

	fsys = fstest.MapFS{"c.yaml": {Data: []byte(strings.Replace(one, "%s", "c", 1) + "surprise: 1\n")}}
	_, err = Load(fsys)
	require.ErrorContains(t, err, "surprise")
}

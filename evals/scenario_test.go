package evals

import (
	"io/fs"
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
	require.GreaterOrEqual(t, len(ss), 25)
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

// Pending scenarios load, and share no thread with the suite, so each can
// move into it unchanged once the product does what it needs.
func TestPendingScenariosLoadBesideTheSuite(t *testing.T) {
	t.Parallel()
	pending, err := Load(os.DirFS("pending"))
	require.NoError(t, err)
	require.NotEmpty(t, pending)
	both := fstest.MapFS{}
	for _, src := range []fs.FS{Builtin(), os.DirFS("pending")} {
		files, err := fs.Glob(src, "*.yaml")
		require.NoError(t, err)
		for _, f := range files {
			b, err := fs.ReadFile(src, f)
			require.NoError(t, err)
			require.NotContains(t, both, f, "file names are unique across the suite and pending")
			both[f] = &fstest.MapFile{Data: b}
		}
	}
	_, err = Load(both)
	require.NoError(t, err)
}

func TestLoadChecksNothingStoredAssertions(t *testing.T) {
	t.Parallel()
	base := "name: n\nevents:\n  - {id: e, user: alice, channel: C0NS, mention: true, text: hi, ts: \"1730000000.000100\"}\nrubric: {pass: [x]}\nassert:\n  - %s\n"
	tests := map[string]string{
		"{thread: e, count: 0}":                                      "",
		"{thread: e, scope: personal, count: 0}":                     "",
		"{thread: e, count: 1}":                                      "scope and subject_type are required",
		"{thread: e, count: 0, archived: true}":                      "scope and subject_type are required",
		"{thread: e, subject_type: user, count: 0}":                  "without a scope",
		"{thread: e, scope: personal, subject: alice, count: 0}":     "without a subject_type",
		"{thread: e, scope: personal, subject_type: user, count: 1}": "",
	}
	for a, want := range tests {
		_, err := Load(fstest.MapFS{"s.yaml": {Data: []byte(strings.Replace(base, "%s", a, 1))}})
		if want == "" {
			require.NoError(t, err, a)
		} else {
			require.ErrorContains(t, err, want, a)
		}
	}
	_, err := Load(fstest.MapFS{"s.yaml": {Data: []byte(strings.Replace(base, "%s", "{thread: e, count: 0}", 1) + "expect_discovery: memory\n")}})
	require.ErrorContains(t, err, "names no memory write tool")
}

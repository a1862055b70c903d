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
		// Real values, and ids shaped like Slack's, load.
		"{thread: e, scope: personal, subject_type: user, subject: Alice, count: 0}":                                             "",
		"{thread: e, scope: personal, subject_type: user, subject: U0EVALICE, count: 0}":                                         "",
		"{thread: e, scope: channel, subject_type: channel, subject: C0NS, count: 0}":                                            "",
		"{thread: e, scope: workspace, subject_type: team, subject: T0TEAM, count: 0}":                                           "",
		"{thread: e, scope: conversation, subject_type: conversation, count: 0}":                                                 "",
		"{thread: e, scope: conversation, subject_type: conversation, subject: 'slack:T0TEAM:C0NS:1730000000.000100', count: 0}": "",
		// Typos select nothing, so each would pass whatever was stored.
		"{thread: e, scope: personl, count: 0}":                                                      `scope "personl" is none of`,
		"{thread: e, scope: personl, subject_type: user, subject: alice, count: 0}":                  `scope "personl" is none of`,
		"{thread: e, scope: personal, subject_type: usr, subject: alice, count: 0}":                  `subject_type "usr" is none of`,
		"{thread: e, scope: workspace, subject_type: workspace, count: 0}":                           `subject_type "workspace" is none of`,
		"{thread: e, scope: personal, subject_type: user, subject: alcie, count: 0}":                 `subject "alcie" of subject_type user is not one of the users [alice bob carol] or a user id`,
		"{thread: e, scope: personal, subject_type: user, subject: alcie, count: 0, archived: true}": `subject "alcie" of subject_type user is not one of the users [alice bob carol] or a user id`,
		"{thread: e, scope: personl, subject_type: user, count: 0, archived: true}":                  `scope "personl" is none of`,
		"{thread: e, scope: personal, subject_type: usr, count: 1}":                                  `subject_type "usr" is none of`,
		"{thread: e, scope: channel, subject_type: channel, subject: alice, count: 0}":               `subject "alice" of subject_type channel is not a channel id`,
		"{thread: e, scope: channel, subject_type: channel, subject: c0ns, count: 0}":                `subject "c0ns" of subject_type channel is not a channel id`,
		"{thread: e, scope: conversation, subject_type: conversation, subject: C0NS, count: 0}":      `subject "C0NS" of subject_type conversation is not a thread's source key`,
	}
	for a, want := range tests {
		t.Run(a, func(t *testing.T) {
			t.Parallel()
			_, err := Load(fstest.MapFS{"s.yaml": {Data: []byte(strings.Replace(base, "%s", a, 1))}})
			if want == "" {
				require.NoError(t, err)
			} else {
				require.ErrorContains(t, err, want)
			}
		})
	}
	_, err := Load(fstest.MapFS{"s.yaml": {Data: []byte(strings.Replace(base, "%s", "{thread: e, count: 0}", 1) + "expect_discovery: memory\n")}})
	require.ErrorContains(t, err, "names no memory write tool")
}

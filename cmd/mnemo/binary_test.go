package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A binary that can call a method by a name computed at run time
// (reflect's MethodByName, which executing a text/template or
// html/template does) keeps every exported method of every type it links,
// since the linker cannot tell which one will be called. mnemo links two
// large model SDKs, so that one call made bin/mnemo 131 MB instead of 78,
// and serve's idle RSS 72 MB instead of 50 (the kernel maps a binary's
// pages in large folios, so a bigger text is a bigger resident set). The
// linker marks such a call <ReflectMethod> in its -dumpdep graph of what it
// keeps: built as make builds it, with the Makefile's tags, mnemo has none.
func TestTheLinkerDropsUnusedMethods(t *testing.T) {
	t.Parallel()
	mk, err := os.ReadFile("../../Makefile")
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^GOTAGS := (\S+)$`).FindSubmatch(mk)
	require.NotNil(t, m, "the Makefile sets GOTAGS")

	cmd := exec.Command("go", "build", "-tags", string(m[1]), "-ldflags=-dumpdep", "-o", filepath.Join(t.TempDir(), "mnemo"), ".")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", tail(out))
	graph := string(out)
	require.Contains(t, graph, "main.main", "-dumpdep printed the linker's graph")

	var marked []string
	for line := range strings.Lines(graph) {
		if strings.Contains(line, "<ReflectMethod>") {
			marked = append(marked, strings.TrimSpace(line))
		}
	}
	if len(marked) > 5 {
		marked = append(marked[:5], "…")
	}
	require.Empty(t, marked, "these calls keep every exported method in the binary; "+
		"find what reaches them with go build -ldflags=-dumpdep (a template executed, or a package whose init executes one)")
}

// tail is the end of a long output, for a failure message.
func tail(b []byte) string {
	const n = 4000
	if len(b) > n {
		return "…" + string(b[len(b)-n:])
	}
	return string(b)
}

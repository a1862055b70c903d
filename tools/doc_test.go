package tools

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestToolsImportsOnlyWhatDocGoAllows keeps the boundary doc.go states:
// the registry knows no package that registers tools into it.
func TestToolsImportsOnlyWhatDocGoAllows(t *testing.T) {
	t.Parallel()
	allowed := map[string]bool{"github.com/mnemo-bot/mnemo/llm": true, "github.com/mnemo-bot/mnemo/provenance": true}
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	seen := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		parsed, err := parser.ParseFile(token.NewFileSet(), f, src, parser.ImportsOnly)
		require.NoError(t, err)
		for _, imp := range parsed.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			require.NoError(t, err)
			if strings.HasPrefix(path, "github.com/mnemo-bot/mnemo/") {
				seen[path] = true
				require.True(t, allowed[path], "%s imports %s", f, path)
			}
		}
	}
	require.Equal(t, allowed, seen, "the check read the imports it guards")
}

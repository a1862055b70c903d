package archtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const module = "github.com/mnemo-bot/mnemo"

// layers lists, for each runtime package, the mnemo packages it may import
// directly. A package missing here is a new package: add it, with its layer.
var layers = map[string][]string{
	"provenance":         {},
	"threads":            {"provenance"},
	"detect":             {},
	"llm":                {},
	"db":                 {"db/internal/dbsqlc", "detect", "provenance", "threads"},
	"db/internal/dbsqlc": {},
	// The evals' queries, apart so that the binary does not link them.
	"db/evalcheck":                  {"db", "db/evalcheck/internal/evalsql"},
	"db/evalcheck/internal/evalsql": {},
	"tools":                         {"llm", "provenance"},
	"tools/mcp":                     {"tools"},
	"memory":                        {"db", "detect", "llm", "provenance", "threads", "tools"},
	"learn":                         {"db", "llm", "memory", "provenance", "threads"},
	"agent":                         {"db", "detect", "llm", "memory", "provenance", "threads", "tools", "usage"},
	"usage":                         {"db", "llm"},
	"terminal":                      {"agent", "provenance", "threads"},
	"inbox":                         {"db", "internal/periodic", "threads"},
	"ops":                           {"db", "detect", "llm"},
	"lifecycle":                     {"db"},
	// The background embedding job: reads rows to embed, writes vectors.
	"embedding":                  {"db", "llm"},
	"install":                    {"db"},
	"slackapp":                   {"agent", "db", "detect", "inbox", "install", "internal/periodic", "lifecycle", "memory", "provenance", "threads", "tools", "usage"},
	"cmd/mnemo":                  {"*"},
	"cmd/mnemo-eval":             {"evals"},
	"evals":                      {"*"},
	"internal/testkit/fakeslack": {"internal/testkit/harness"},
	"internal/testkit/fakellm":   {"llm", "internal/testkit/harness"},
	"internal/testkit/scripted":  {"internal/testkit/fakellm", "learn", "llm", "memory", "tools"},
	"internal/testkit/testdb":    {"db", "internal/testkit/harness"},
	"internal/testkit/harness":   {},
	"internal/testkit/syncbuf":   {},
	"internal/periodic":          {},
	"internal/archtest":          {},
	"deploy":                     {},
	"bench/corpus":               {"memory", "provenance"},
	"bench/bm25":                 {},
	"bench":                      {"bench/bm25", "bench/corpus", "db", "embedding", "internal/testkit/fakellm", "internal/testkit/fakeslack", "internal/testkit/scripted", "internal/testkit/harness", "llm", "memory", "provenance", "tools", "tools/mcp"},
	"cmd/mnemo-bench":            {"bench", "llm"},
	"cmd/mnemo-soak":             {"bench"},
}

// surfaces are what memory, the store and its rules, must never reach.
var surfaces = []string{"slackapp", "agent", "learn", "evals", "cmd/"}

// testOnly may never be linked into the mnemo binary.
var testOnly = []string{"net/http/httptest", module + "/db/evalcheck", module + "/db/evalcheck/internal/evalsql", module + "/evals", module + "/bench", module + "/bench/bm25", module + "/bench/corpus"}

// testKit is the one folder of test support (the fake Slack and model
// servers, the scripted model, test databases, the barrier harness): nothing
// under it may be linked into the binary, whatever its name.
const testKit = module + "/internal/testkit/"

// driverUsers may import pgx: the stores, River's queues (the inbox and
// learning), the test databases, and the benchmarks, which load corpora
// with COPY and make their own databases.
var driverUsers = map[string]bool{"db": true, "db/internal/dbsqlc": true, "db/evalcheck/internal/evalsql": true, "inbox": true, "learn": true, "internal/testkit/testdb": true, "bench": true, "bench/corpus": true}

// riverDriverAPI is River's driver interface (Driver().GetExecutor() and
// its params), which no package may call: riverpgxv5, which makes the
// driver, is another package.
const riverDriverAPI = "github.com/riverqueue/river/riverdriver"

type pkg struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

// check returns every broken rule in pkgs (relative to the module) and in
// the binary's dependency list.
func check(pkgs []pkg, binaryDeps []string) []string {
	var out []string
	for _, p := range pkgs {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		allowed, known := layers[rel]
		if !known {
			out = append(out, fmt.Sprintf("%s: not in the layer table; give it a layer", rel))
			continue
		}
		for _, imp := range p.Imports {
			if imp == riverDriverAPI {
				out = append(out, fmt.Sprintf("%s imports %s, River's driver API, which River marks unstable (\"DO NOT USE\"): use the client's public API", rel, imp))
			}
			if strings.HasPrefix(imp, "github.com/jackc/pgx") && !driverUsers[rel] {
				out = append(out, fmt.Sprintf("%s imports %s: only the stores (db) talk to the driver", rel, imp))
			}
			if !strings.HasPrefix(imp, module+"/") {
				continue
			}
			target := strings.TrimPrefix(imp, module+"/")
			switch {
			case strings.HasPrefix(target, "cmd/"):
				out = append(out, fmt.Sprintf("%s imports %s: nothing imports a command", rel, target))
				continue
			case target == "db/internal/dbsqlc" && rel != "db":
				out = append(out, fmt.Sprintf("%s imports the generated code: only the stores in db may", rel))
				continue
			}
			if rel == "memory" {
				for _, s := range surfaces {
					if target == s || strings.HasPrefix(target, s) {
						out = append(out, fmt.Sprintf("memory imports %s: memory imports no surface", target))
					}
				}
			}
			if len(allowed) == 1 && allowed[0] == "*" {
				continue
			}
			if !contains(allowed, target) {
				out = append(out, fmt.Sprintf("%s imports %s, which its layer does not allow (allowed: %v)", rel, target, allowed))
			}
		}
	}
	for _, d := range binaryDeps {
		if contains(testOnly, d) || strings.HasPrefix(d, testKit) {
			out = append(out, fmt.Sprintf("the mnemo binary links %s, a test-only package", d))
		}
	}
	sort.Strings(out)
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func goList(t *testing.T, args ...string) []pkg {
	t.Helper()
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	cmd := exec.Command("go", append([]string{"list", "-json"}, args...)...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, stderr.String())
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else {
			require.NoError(t, err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

func TestImportGraphKeepsTheLayers(t *testing.T) {
	t.Parallel()
	pkgs := goList(t, "./...")
	require.Greater(t, len(pkgs), 10, "go list found mnemo's packages")
	bin := goList(t, "./cmd/mnemo")
	require.Len(t, bin, 1)
	require.Contains(t, bin[0].Deps, module+"/slackapp", "the binary's dependency list is read")
	require.Empty(t, check(pkgs, bin[0].Deps))
}

// The rules bite: each deliberate violation is reported.
func TestRulesCatchViolations(t *testing.T) {
	t.Parallel()
	m := func(rel string, imports ...string) pkg {
		p := pkg{ImportPath: module + "/" + rel}
		for _, i := range imports {
			if !strings.Contains(i, ".") {
				i = module + "/" + i
			}
			p.Imports = append(p.Imports, i)
		}
		return p
	}
	cases := []struct {
		name string
		pkgs []pkg
		deps []string
		want string
	}{
		{"generated code outside the stores", []pkg{m("memory", "db/internal/dbsqlc")}, nil, "only the stores in db may"},
		{"memory reaching a surface", []pkg{m("memory", "slackapp")}, nil, "memory imports no surface"},
		{"importing a command", []pkg{m("agent", "cmd/mnemo")}, nil, "nothing imports a command"},
		{"test code in the binary", nil, []string{module + "/internal/testkit/fakeslack"}, "test-only"},
		{"a new test kit in the binary", nil, []string{module + "/internal/testkit/fakegrid"}, "test-only"},
		{"httptest in the binary", nil, []string{"net/http/httptest"}, "test-only"},
		{"the evals' queries in the binary", nil, []string{module + "/db/evalcheck"}, "test-only"},
		{"a layer skipped upward", []pkg{m("threads", "memory")}, nil, "does not allow"},
		{"the driver above the stores", []pkg{m("slackapp", "github.com/jackc/pgx/v5")}, nil, "only the stores"},
		{"a package with no layer", []pkg{m("util")}, nil, "not in the layer table"},
		{"River's unstable driver API", []pkg{m("inbox", riverDriverAPI)}, nil, "River marks unstable"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := check(tc.pkgs, tc.deps)
			require.NotEmpty(t, got)
			require.Contains(t, strings.Join(got, "\n"), tc.want)
		})
	}
	// Control: the same shapes, allowed, pass.
	require.Empty(t, check([]pkg{m("memory", "db", "tools"), m("slackapp", "agent")}, []string{module + "/slackapp"}))
}

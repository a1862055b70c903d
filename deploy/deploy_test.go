package deploy_test

import (
	"bufio"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// repoRoot is where `go test ./deploy` finds the repository.
const repoRoot = ".."

// instruction is one Dockerfile instruction, continuation lines joined.
type instruction struct {
	Cmd   string // upper case: FROM, RUN, COPY…
	Args  string
	Stage string // the AS name of the stage it belongs to, or its FROM image
}

// parseDockerfile reads the subset of the Dockerfile syntax ours uses:
// comments, backslash continuations and one instruction per logical line.
func parseDockerfile(t *testing.T, path string) []instruction {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var (
		out   []instruction
		stage string
		buf   strings.Builder
	)
	flush := func() {
		line := strings.TrimSpace(buf.String())
		buf.Reset()
		if line == "" {
			return
		}
		cmd, args, _ := strings.Cut(line, " ")
		in := instruction{Cmd: strings.ToUpper(cmd), Args: strings.TrimSpace(args)}
		if in.Cmd == "FROM" {
			f := strings.Fields(in.Args)
			stage = f[0]
			if len(f) == 3 && strings.EqualFold(f[1], "AS") {
				stage = f[2]
			}
		}
		in.Stage = stage
		out = append(out, in)
	}
	sc := bufio.NewScanner(strings.NewReader(string(raw)))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		if cont, ok := strings.CutSuffix(line, "\\"); ok {
			buf.WriteString(cont + " ")
			continue
		}
		buf.WriteString(line)
		flush()
	}
	flush()
	require.NoError(t, sc.Err())
	require.NotEmpty(t, out, "no instructions in %s", path)
	return out
}

// runShell returns a RUN instruction's shell command without its BuildKit
// flags (--mount=…, --network=…), which only shape the build sandbox.
func runShell(args string) string {
	for strings.HasPrefix(args, "--") {
		_, rest, _ := strings.Cut(args, " ")
		args = strings.TrimSpace(rest)
	}
	return args
}

// builderGoBuild finds the `go build` RUN of the Dockerfile's builder stage.
func builderGoBuild(t *testing.T, ins []instruction) (stage, command string) {
	t.Helper()
	var found []instruction
	for _, in := range ins {
		if in.Cmd == "RUN" && strings.Contains(in.Args, "go build") {
			found = append(found, in)
		}
	}
	require.Len(t, found, 1, "the Dockerfile must have exactly one `go build` RUN")
	return found[0].Stage, runShell(found[0].Args)
}

func TestDockerfileBuildCommandBuildsTheRepository(t *testing.T) {
	t.Parallel()
	ins := parseDockerfile(t, filepath.Join(repoRoot, "Dockerfile"))
	stage, command := builderGoBuild(t, ins)

	// The flags the image depends on: a static binary for distroless/static,
	// no build paths in it, the Makefile's build tags, and the version where
	// `mnemo version` reads it.
	for _, want := range []string{"CGO_ENABLED=0 ", "-trimpath", "-tags " + makefileTags(t), `-X main.version=${VERSION}`, "./cmd/mnemo"} {
		require.Contains(t, command, want)
	}
	if !*buildImageBinary {
		// -trimpath keys a separate build cache: on a fresh machine this is a
		// whole compile of mnemo's dependencies, minutes that make test
		// can't spend. make check-deploy (which CI runs) builds it.
		t.Skip("the image's build runs in make check-deploy (-build-image-binary)")
	}
	const out = "/out/"
	require.Equal(t, 1, strings.Count(command, "-o "+out), "the build writes to %s once: %s", out, command)
	require.Contains(t, command, "./cmd/mnemo-eval", "mnemo eval needs mnemo-eval in the image")

	// The final stage must ship what the builder stage wrote: mnemo, and
	// mnemo-eval beside it, where `mnemo eval` looks.
	copied := false
	for _, in := range ins {
		if in.Cmd == "COPY" && in.Stage != stage && strings.HasPrefix(in.Args, "--from="+stage+" "+out+"mnemo "+out+"mnemo-eval /") {
			copied = true
		}
	}
	require.True(t, copied, "no later stage copies %smnemo and mnemo-eval from stage %s", out, stage)

	// Run that very command, as Docker's shell would, writing to a temp dir.
	dir := t.TempDir()
	bin := filepath.Join(dir, "mnemo")
	cmd := exec.Command("/bin/sh", "-c", strings.Replace(command, "-o "+out, "-o "+dir+"/", 1))
	cmd.Dir = repoRoot
	const version = "v0.0.0-deploy-test"
	cmd.Env = append(os.Environ(), "VERSION="+version)
	outp, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s\n%s", command, outp)

	got, err := exec.Command(bin, "version").CombinedOutput()
	require.NoError(t, err, "%s", got)
	require.Equal(t, "mnemo "+version+"\n", string(got))
	_, err = os.Stat(filepath.Join(dir, "mnemo-eval"))
	require.NoError(t, err, "the build wrote mnemo-eval")

	if runtime.GOOS != "linux" {
		return
	}
	f, err := elf.Open(bin)
	require.NoError(t, err)
	defer f.Close()
	for _, p := range f.Progs {
		require.NotEqual(t, elf.PT_INTERP, p.Type, "the binary wants a dynamic loader, which distroless/static lacks")
	}
	require.Nil(t, f.Section(".symtab"), "-s should have stripped the symbol table")
}

func TestDockerfileFinalStageRunsServeAsNonRoot(t *testing.T) {
	t.Parallel()
	ins := parseDockerfile(t, filepath.Join(repoRoot, "Dockerfile"))
	final := ins[len(ins)-1].Stage
	got := map[string]string{}
	for _, in := range ins {
		if in.Stage == final {
			got[in.Cmd] = in.Args
		}
	}
	require.Equal(t, "gcr.io/distroless/static-debian12:nonroot", got["FROM"])
	require.Equal(t, "65532:65532", got["USER"])
	require.Equal(t, "9464", got["EXPOSE"])
	require.Equal(t, "MNEMO_HTTP_ADDR=0.0.0.0:9464", got["ENV"])
	require.Equal(t, `["/mnemo"]`, got["ENTRYPOINT"])
	require.Equal(t, `["serve"]`, got["CMD"])
}

func TestDockerignoreKeepsWhatTheBuildNeeds(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join(repoRoot, ".dockerignore"))
	require.NoError(t, err)
	var patterns []string
	for _, l := range strings.Split(string(raw), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			patterns = append(patterns, l)
		}
	}
	ignored := func(path string) bool {
		for _, p := range patterns {
			for pre := path; pre != "."; pre = filepath.Dir(pre) {
				if ok, _ := filepath.Match(p, pre); ok {
					return true
				}
			}
		}
		return false
	}
	tests := []struct {
		path    string
		ignored bool
	}{
		{".data/postgres/PG_VERSION", true},
		{"bin/mnemo", true},
		{".git/HEAD", true},
		{"deploy/.env", true},
		{"go.mod", false},
		{"go.sum", false},
		{"cmd/mnemo/main.go", false},
		{"db/migrations/00001_init.sql", false},
		{"slackapp/manifest.yaml", false},
	}
	for _, tt := range tests {
		require.Equal(t, tt.ignored, ignored(tt.path), "%s", tt.path)
	}
}

// makefileTags is the build tags every go command of the Makefile uses
// (GOTAGS), which the image and the release must build with too: without
// grpcnotrace the binary is 1.7 times the size and serve's idle RSS 20 MB
// more (the Makefile says why).
func makefileTags(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(repoRoot, "Makefile"))
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^GOTAGS := (\S+)$`).FindSubmatch(raw)
	require.NotNil(t, m, "the Makefile sets GOTAGS")
	require.Contains(t, string(raw), "export GOFLAGS := $(strip $(GOFLAGS) -tags=$(GOTAGS))", "the Makefile's go commands use GOTAGS")
	require.Contains(t, strings.Split(string(m[1]), ","), "grpcnotrace")
	return string(m[1])
}

// goreleaserConfig is the part of .goreleaser.yaml that must agree with the Dockerfile.
type goreleaserConfig struct {
	Version int `yaml:"version"`
	Builds  []struct {
		ID      string   `yaml:"id"`
		Main    string   `yaml:"main"`
		Env     []string `yaml:"env"`
		Flags   []string `yaml:"flags"`
		Ldflags []string `yaml:"ldflags"`
		Goos    []string `yaml:"goos"`
		Goarch  []string `yaml:"goarch"`
	} `yaml:"builds"`
	Archives []struct {
		IDs   []string `yaml:"ids"`
		Files []string `yaml:"files"`
	} `yaml:"archives"`
	DockersV2 []struct {
		IDs        []string `yaml:"ids"`
		Dockerfile string   `yaml:"dockerfile"`
		Images     []string `yaml:"images"`
		Tags       []string `yaml:"tags"`
		Platforms  []string `yaml:"platforms"`
	} `yaml:"dockers_v2"`
}

func TestGoreleaserBuildsLikeTheDockerfile(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join(repoRoot, ".goreleaser.yaml"))
	require.NoError(t, err)
	var c goreleaserConfig
	require.NoError(t, yaml.Unmarshal(raw, &c))
	require.Equal(t, 2, c.Version)
	_, command := builderGoBuild(t, parseDockerfile(t, filepath.Join(repoRoot, "Dockerfile")))
	m := regexp.MustCompile(`-ldflags "([^"]*)"`).FindStringSubmatch(command)
	require.NotNil(t, m, "no -ldflags in %s", command)
	docker := strings.ReplaceAll(m[1], "${VERSION}", "VERSION")

	// mnemo and mnemo-eval, which `mnemo eval` runs, built alike.
	var mains, ids []string
	for _, b := range c.Builds {
		mains, ids = append(mains, b.Main), append(ids, b.ID)
		require.Contains(t, command, b.Main, "the image builds %s too", b.Main)
		require.Contains(t, b.Env, "CGO_ENABLED=0")
		require.Contains(t, b.Flags, "-trimpath")
		require.Contains(t, b.Flags, "-tags="+makefileTags(t), "the release builds with the Makefile's tags")
		require.ElementsMatch(t, []string{"linux", "darwin"}, b.Goos)
		require.ElementsMatch(t, []string{"amd64", "arm64"}, b.Goarch)
		release := strings.ReplaceAll(strings.Join(b.Ldflags, " "), "{{ .Version }}", "VERSION")
		require.Equal(t, docker, release, "the release and the image must be linked alike")
	}
	require.Equal(t, []string{"./cmd/mnemo", "./cmd/mnemo-eval"}, mains)

	require.Len(t, c.Archives, 1)
	require.ElementsMatch(t, ids, c.Archives[0].IDs, "every binary is in the archives")
	for _, f := range c.Archives[0].Files {
		_, err := os.Stat(filepath.Join(repoRoot, f))
		require.NoError(t, err, "archived file %s", f)
	}
	require.Subset(t, c.Archives[0].Files, []string{"LICENSE", "README.md"})

	// One multi-arch image of both binaries, where the chart looks for it.
	require.Len(t, c.DockersV2, 1)
	d := c.DockersV2[0]
	require.ElementsMatch(t, ids, d.IDs)
	require.ElementsMatch(t, []string{"linux/amd64", "linux/arm64"}, d.Platforms)
	require.Contains(t, d.Tags, "{{ .Version }}", "the chart's image tag is its appVersion, the release's version")
	values, err := os.ReadFile(filepath.Join(chartDir, "values.yaml"))
	require.NoError(t, err)
	var v struct {
		Image struct {
			Repository string `yaml:"repository"`
		} `yaml:"image"`
	}
	require.NoError(t, yaml.Unmarshal(values, &v))
	require.Equal(t, []string{v.Image.Repository}, d.Images)

	// Its Dockerfile ships both binaries, as the source build's final stage does.
	rel := parseDockerfile(t, filepath.Join(repoRoot, d.Dockerfile))
	src := parseDockerfile(t, filepath.Join(repoRoot, "Dockerfile"))
	final := func(ins []instruction) map[string]string {
		got := map[string]string{}
		for _, in := range ins {
			if in.Stage == ins[len(ins)-1].Stage && in.Cmd != "COPY" && in.Cmd != "ARG" {
				got[in.Cmd] = in.Args
			}
		}
		return got
	}
	require.Equal(t, final(src), final(rel), "the release image is the source build's final stage")
	var copies []string
	for _, in := range rel {
		if in.Cmd == "COPY" {
			copies = append(copies, in.Args)
		}
	}
	require.Equal(t, []string{"$TARGETPLATFORM/mnemo $TARGETPLATFORM/mnemo-eval /"}, copies)
}

func TestLicenseIsApache2(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join(repoRoot, "LICENSE"))
	require.NoError(t, err)
	s := string(raw)
	require.Contains(t, s, "Apache License\n                           Version 2.0, January 2004")
	require.Contains(t, s, "END OF TERMS AND CONDITIONS")
	require.Contains(t, s, `limitations under the License.`)
}

func TestSystemdUnitMigratesThenServes(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("systemd", "mnemo.service"))
	require.NoError(t, err)
	keys := map[string][]string{}
	for _, l := range strings.Split(string(raw), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") || strings.HasPrefix(l, "[") {
			continue
		}
		k, v, ok := strings.Cut(l, "=")
		require.True(t, ok, "not key=value: %q", l)
		keys[k] = append(keys[k], v)
	}
	one := func(k string) string {
		require.Len(t, keys[k], 1, "%s", k)
		return keys[k][0]
	}
	pre := strings.Fields(one("ExecStartPre"))
	start := strings.Fields(one("ExecStart"))
	require.Equal(t, []string{"migrate"}, pre[1:])
	require.Equal(t, []string{"serve"}, start[1:])
	require.Equal(t, pre[0], start[0], "migrate and serve must be the same binary")
	require.Equal(t, "/etc/mnemo/mnemo.env", one("EnvironmentFile"))
	require.Equal(t, "yes", one("DynamicUser"))
	require.Equal(t, "on-failure", one("Restart"))
	// serve drains in-flight turns for up to 20 s; systemd must wait longer before SIGKILL.
	require.Equal(t, "30", one("TimeoutStopSec"))
}

// envRead lists the environment variables mnemo's code reads: the names
// in env struct tags (cmd/mnemo's Config, parsed by caarlos0/env) and those
// passed to getenv, os.Getenv and os.LookupEnv, outside tests.
func envRead(t *testing.T) map[string]bool {
	t.Helper()
	re := regexp.MustCompile(`(?:(?i:getenv|lookupenv)\("|\benv:")([A-Z][A-Z0-9_]*)"`)
	names := map[string]bool{}
	err := filepath.WalkDir(repoRoot, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != repoRoot && (strings.HasPrefix(n, ".") || n == "bin" || n == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range re.FindAllStringSubmatch(string(src), -1) {
			names[m[1]] = true
		}
		return nil
	})
	require.NoError(t, err)
	// Positive control: the scan must find what config.go is known to read.
	require.True(t, names["SLACK_BOT_TOKEN"] && names["MNEMO_MODEL"], "scan found %v", names)
	return names
}

// notReadByMnemo are variables the deployment files may set that mnemo's
// code does not read itself.
var notReadByMnemo = []string{
	"GOMEMLIMIT",        // the Go runtime's
	"POSTGRES_PASSWORD", // compose's, for the postgres service
}

// requireReadByMnemo fails on a variable name mnemo would silently ignore,
// such as a typo in a deployment file.
func requireReadByMnemo(t *testing.T, read map[string]bool, names []string, where string) {
	t.Helper()
	for _, n := range names {
		require.True(t, read[n] || slices.Contains(notReadByMnemo, n), "%s sets %s, which mnemo does not read", where, n)
	}
}

// The workflow runs .ci/run on every push, and releases a v* tag with
// goreleaser at the version devtools/go.mod pins for `goreleaser check`.
func TestWorkflowTestsPushesAndReleasesTags(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join(repoRoot, ".github", "workflows", "ci.yaml"))
	require.NoError(t, err)
	type step struct {
		Uses string            `yaml:"uses"`
		Run  string            `yaml:"run"`
		With map[string]string `yaml:"with"`
	}
	var wf struct {
		On struct {
			Push struct {
				Branches []string `yaml:"branches"`
				Tags     []string `yaml:"tags"`
			} `yaml:"push"`
		} `yaml:"on"`
		Jobs map[string]struct {
			Needs       any               `yaml:"needs"`
			If          string            `yaml:"if"`
			Permissions map[string]string `yaml:"permissions"`
			Steps       []step            `yaml:"steps"`
		} `yaml:"jobs"`
	}
	require.NoError(t, yaml.Unmarshal(raw, &wf))
	require.Contains(t, wf.On.Push.Branches, "main")
	require.Contains(t, wf.On.Push.Tags, "v*")

	test, ok := wf.Jobs["test"]
	require.True(t, ok, "a test job")
	require.True(t, slices.ContainsFunc(test.Steps, func(s step) bool { return s.Run == "bash .ci/run" }), "the test job runs .ci/run")

	rel, ok := wf.Jobs["release"]
	require.True(t, ok, "a release job")
	require.Equal(t, "test", rel.Needs, "a release only after the tests pass")
	require.Equal(t, "startsWith(github.ref, 'refs/tags/v')", rel.If)
	require.Equal(t, "write", rel.Permissions["packages"], "it pushes the image")
	i := slices.IndexFunc(rel.Steps, func(s step) bool { return strings.HasPrefix(s.Uses, "goreleaser/goreleaser-action@") })
	require.GreaterOrEqual(t, i, 0, "the release job runs goreleaser-action")
	gr := rel.Steps[i]
	require.Equal(t, "release --clean", gr.With["args"])

	mod, err := os.ReadFile(filepath.Join(repoRoot, "devtools", "go.mod"))
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^\s+github\.com/goreleaser/goreleaser/v2 (v\S+)`).FindSubmatch(mod)
	require.NotNil(t, m, "devtools/go.mod pins goreleaser")
	require.Equal(t, string(m[1]), gr.With["version"], "CI releases with the goreleaser make check-deploy checks with")
}

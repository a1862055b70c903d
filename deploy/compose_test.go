package deploy_test

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

type composeService struct {
	Image string `yaml:"image"`
	Build *struct {
		Context    string `yaml:"context"`
		Dockerfile string `yaml:"dockerfile"`
	} `yaml:"build"`
	Command     []string          `yaml:"command"`
	Environment map[string]string `yaml:"environment"`
	EnvFile     string            `yaml:"env_file"`
	DependsOn   map[string]struct {
		Condition string `yaml:"condition"`
	} `yaml:"depends_on"`
	Healthcheck *struct {
		Test []string `yaml:"test"`
	} `yaml:"healthcheck"`
	Volumes         []string `yaml:"volumes"`
	Ports           []string `yaml:"ports"`
	Restart         string   `yaml:"restart"`
	StopGracePeriod string   `yaml:"stop_grace_period"`
	ReadOnly        bool     `yaml:"read_only"`
}

type composeFile struct {
	Services map[string]composeService `yaml:"services"`
	Volumes  map[string]any            `yaml:"volumes"`
}

// interpolate expands compose's ${VAR} and ${VAR:-default} the way compose
// does when VAR is unset.
func interpolate(s string) string {
	return os.Expand(s, func(v string) string {
		_, def, _ := strings.Cut(v, ":-")
		return def
	})
}

func TestComposeMigratesBeforeServing(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("compose.yaml")
	require.NoError(t, err)
	var c composeFile
	require.NoError(t, yaml.Unmarshal(raw, &c))
	require.Contains(t, c.Services, "postgres")
	require.Contains(t, c.Services, "migrate")
	require.Contains(t, c.Services, "mnemo")
	pg, migrate, mnemo := c.Services["postgres"], c.Services["migrate"], c.Services["mnemo"]

	// PostgreSQL: a named volume, and a healthcheck that depends_on can wait for.
	// PostgreSQL 16 with pgvector: recall by meaning needs the extension.
	require.True(t, strings.HasPrefix(pg.Image, "pgvector/pgvector:pg16"), pg.Image)
	require.NotNil(t, pg.Healthcheck)
	require.Contains(t, strings.Join(pg.Healthcheck.Test, " "), "pg_isready")
	require.Len(t, pg.Volumes, 1)
	vol, _, _ := strings.Cut(pg.Volumes[0], ":")
	require.Contains(t, c.Volumes, vol)

	// migrate: one shot, after PostgreSQL is healthy.
	require.Equal(t, []string{"migrate"}, migrate.Command)
	require.Equal(t, "service_healthy", migrate.DependsOn["postgres"].Condition)
	require.Equal(t, "no", migrate.Restart)

	// mnemo: serve, only once migrate has exited 0.
	require.Equal(t, []string{"serve"}, mnemo.Command)
	require.Equal(t, "service_completed_successfully", mnemo.DependsOn["migrate"].Condition)
	require.Equal(t, "0.0.0.0:9464", mnemo.Environment["MNEMO_HTTP_ADDR"])
	require.Contains(t, mnemo.Ports, "127.0.0.1:9464:9464")
	require.Equal(t, ".env", mnemo.EnvFile)
	require.Equal(t, "30s", mnemo.StopGracePeriod)
	require.True(t, mnemo.ReadOnly)

	// Both run the image built from this repository's Dockerfile (the YAML
	// merge key gives them the same image and build).
	for name, s := range map[string]composeService{"migrate": migrate, "mnemo": mnemo} {
		require.Equal(t, "mnemo:local", interpolate(s.Image), name)
		require.NotNil(t, s.Build, name)
		_, err := os.Stat(filepath.Join(s.Build.Context, s.Build.Dockerfile))
		require.NoError(t, err, "%s builds from %s", name, s.Build.Context)
	}

	// The database URL names the postgres service, its user and database.
	require.Equal(t, migrate.Environment["DATABASE_URL"], mnemo.Environment["DATABASE_URL"])
	u, err := url.Parse(interpolate(mnemo.Environment["DATABASE_URL"]))
	require.NoError(t, err)
	require.Equal(t, "postgres", u.Hostname())
	require.Contains(t, c.Services, u.Hostname())
	require.Equal(t, pg.Environment["POSTGRES_USER"], u.User.Username())
	pass, _ := u.User.Password()
	require.Equal(t, interpolate(pg.Environment["POSTGRES_PASSWORD"]), pass)
	require.Equal(t, "/"+pg.Environment["POSTGRES_DB"], u.Path)

	read := envRead(t)
	for name, s := range c.Services {
		if name == "postgres" {
			continue
		}
		var names []string
		for k := range s.Environment {
			names = append(names, k)
		}
		requireReadByMnemo(t, read, names, "compose.yaml "+name)
	}
}

// compose.http.yaml layers http mode over compose.yaml: the Slack address
// it sets is the container port it publishes, on loopback for a TLS proxy,
// apart from the operator port.
func TestComposeHTTPVariant(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("compose.http.yaml")
	require.NoError(t, err)
	var c composeFile
	require.NoError(t, yaml.Unmarshal(raw, &c))
	require.Len(t, c.Services, 1, "an override of the mnemo service only")
	mnemo, ok := c.Services["mnemo"]
	require.True(t, ok)
	require.Equal(t, "http", mnemo.Environment["MNEMO_SLACK_MODE"])
	_, port, ok := strings.Cut(mnemo.Environment["MNEMO_SLACK_HTTP_ADDR"], ":")
	require.True(t, ok)
	require.Equal(t, []string{"127.0.0.1:" + port + ":" + port}, mnemo.Ports)
	require.NotEqual(t, "9464", port)
	var names []string
	for k := range mnemo.Environment {
		names = append(names, k)
	}
	requireReadByMnemo(t, envRead(t), names, "compose.http.yaml")
	base, err := os.ReadFile("compose.yaml")
	require.NoError(t, err)
	var b composeFile
	require.NoError(t, yaml.Unmarshal(base, &b))
	require.Contains(t, b.Services, "mnemo", "it overrides a service compose.yaml has")
}

func TestEnvExampleNamesWhatServeNeeds(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(".env.example")
	require.NoError(t, err)
	var set, mentioned []string
	for _, l := range strings.Split(string(raw), "\n") {
		l = strings.TrimSpace(l)
		commented := strings.HasPrefix(l, "#")
		k, _, ok := strings.Cut(strings.TrimSpace(strings.TrimPrefix(l, "#")), "=")
		if !ok || strings.ContainsAny(k, " \t") {
			continue // prose
		}
		mentioned = append(mentioned, k)
		if !commented {
			set = append(set, k)
		}
	}
	require.Subset(t, set, []string{"SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "MNEMO_LLM_PROVIDER", "MNEMO_MODEL", "MNEMO_LLM_API_KEY"})
	requireReadByMnemo(t, envRead(t), mentioned, ".env.example")
}

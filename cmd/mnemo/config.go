package main

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/install"
	"github.com/mnemo-bot/mnemo/lifecycle"
)

// Config is mnemo's configuration, parsed once from the environment.
type Config struct {
	DatabaseURL  string
	SlackBot     string
	SlackApp     string
	SlackAPIURL  string
	Provider     string
	LLMBaseURL   string
	LLMKey       string
	Model        string
	Admins       []string
	LogLevel     zerolog.Level
	SlashCommand string
	MCPConfig    string
	JudgeModel   string

	// HTTPAddr is where serve answers /healthz, /readyz and /metrics.
	HTTPAddr string
	// MaxTurns bounds the turns serve runs at once.
	MaxTurns int
	// ShutdownTimeout is how long in-flight turns may run after SIGTERM.
	ShutdownTimeout time.Duration
	// BackfillMessages bounds the earlier messages read into the log of a
	// thread the bot sees for the first time.
	BackfillMessages int
	// EmbeddingModel, when set, embeds memories and queries for recall,
	// through EmbeddingBaseURL (MNEMO_LLM_BASE_URL unless set apart).
	EmbeddingModel   string
	EmbeddingBaseURL string
	// LogFile is where chat logs ("-" for stderr; empty: chat decides).
	LogFile string
	// ChatName is the person's name in chat.
	ChatName string
	// Retention is how long serve keeps each kind of data.
	Retention lifecycle.Retention
	// EraseDeletedUsers erases a member when Slack says their account was
	// deleted (user_change with deleted: true).
	EraseDeletedUsers bool

	// ClientID and ClientSecret turn on the OAuth install for many
	// workspaces; EncryptionKey seals their bot tokens.
	ClientID, ClientSecret string
	EncryptionKey          string
	AuthorizeURL           string
	RedirectURL            string
	// RetentionUninstalled is how long a workspace's data is kept after
	// the app is uninstalled there.
	RetentionUninstalled time.Duration
}

// MultiWorkspace reports whether workspaces install the app through OAuth.
func (c Config) MultiWorkspace() bool { return c.ClientID != "" }

// Variable is one environment variable mnemo reads. Variables is the one
// list of them: LoadConfig reads only these and takes their defaults from
// it, `mnemo help env` and `mnemo serve --help` print it, and tests hold
// LoadConfig and the README's configuration table to it.
type Variable struct {
	Name    string
	Meaning string
	// Default is the value used when the variable is unset; DefaultNote
	// says in words what happens instead when there is no literal default.
	Default, DefaultNote string
	// Required lists the commands that refuse to start without it.
	Required []string
}

// DefaultText is the default as help shows it, or "" for none.
func (v Variable) DefaultText() string {
	if v.Default != "" {
		return v.Default
	}
	return v.DefaultNote
}

// Variables is every environment variable mnemo reads, in the order help
// shows them.
var Variables = []Variable{
	{Name: "DATABASE_URL", Meaning: "PostgreSQL connection string, " + db.URLForm + "; the make targets set it to the local cluster",
		Required: []string{"serve", "migrate", "chat", "mcp", "memories", "eval", "teams", "keys"}},
	{Name: "SLACK_BOT_TOKEN", Meaning: "the Slack app's bot token, xoxb-…, for one workspace; optional once SLACK_CLIENT_ID is set (each workspace then installs the app and has its own token)", Required: []string{"serve"}},
	{Name: "SLACK_APP_TOKEN", Meaning: "the app-level token for Socket Mode, xapp-…", Required: []string{"serve"}},
	{Name: "SLACK_API_URL", Meaning: "Slack's Web API base URL; tests and proxies point it elsewhere", Default: "https://slack.com/api/"},
	{Name: "SLACK_CLIENT_ID", Meaning: "the app's client id (Basic Information): turns on the OAuth install for many workspaces at /slack/install"},
	{Name: "SLACK_CLIENT_SECRET", Meaning: "the app's client secret, for the OAuth code exchange (oauth.v2.access); required with SLACK_CLIENT_ID"},
	{Name: "MNEMO_ENCRYPTION_KEY", Meaning: "the key installed workspaces' bot tokens are sealed with (AES-256-GCM): 32 bytes in base64 (openssl rand -base64 32), or id:base64 keys separated by commas, the first current (mnemo keys rotate); required with SLACK_CLIENT_ID"},
	{Name: "SLACK_AUTHORIZE_URL", Meaning: "Slack's OAuth authorize page; tests point it elsewhere", Default: "https://slack.com/oauth/v2/authorize"},
	{Name: "SLACK_REDIRECT_URL", Meaning: "the public URL of /slack/oauth_redirect, sent as redirect_uri", DefaultNote: "none: Slack uses the app's one configured redirect URL"},
	{Name: "MNEMO_LLM_PROVIDER", Meaning: "the model provider: anthropic, or openai for any OpenAI-compatible server", Required: []string{"serve", "chat"}},
	{Name: "MNEMO_MODEL", Meaning: "the model name", Required: []string{"serve", "chat"}},
	{Name: "MNEMO_LLM_API_KEY", Meaning: "the provider's API key; optional with MNEMO_LLM_BASE_URL (a local server such as Ollama needs none)", DefaultNote: "ANTHROPIC_API_KEY or OPENAI_API_KEY, by provider", Required: []string{"serve", "chat"}},
	{Name: "ANTHROPIC_API_KEY", Meaning: "the key when the provider is anthropic and MNEMO_LLM_API_KEY is unset"},
	{Name: "OPENAI_API_KEY", Meaning: "the key when the provider is openai and MNEMO_LLM_API_KEY is unset"},
	{Name: "MNEMO_LLM_BASE_URL", Meaning: "the provider's base URL: an OpenAI-compatible server (Ollama, vLLM, OpenRouter), a proxy or a test server", DefaultNote: "the provider's own"},
	{Name: "MNEMO_JUDGE_MODEL", Meaning: "the model that grades replies in mnemo eval --live", DefaultNote: "MNEMO_MODEL"},
	{Name: "MNEMO_EMBEDDING_MODEL", Meaning: "an embedding model for recall, through the OpenAI-compatible /v1/embeddings endpoint", DefaultNote: "none: recall is lexical only"},
	{Name: "MNEMO_EMBEDDING_BASE_URL", Meaning: "the embeddings endpoint's base URL", DefaultNote: "MNEMO_LLM_BASE_URL"},
	{Name: "MNEMO_ADMINS", Meaning: "comma-separated Slack user ids (U…, W…) with admin rights, beside the workspace's admins and owners; with many workspaces a bare id counts in SLACK_BOT_TOKEN's workspace only, and T…:U… names the workspace"},
	{Name: "MNEMO_SLASH_COMMAND", Meaning: "the slash command's name", Default: "/mnemo"},
	{Name: "MNEMO_MCP_CONFIG", Meaning: `an MCP client configuration file ({"mcpServers": …} or {"servers": …}) whose servers become tool sources`},
	{Name: "MNEMO_HTTP_ADDR", Meaning: "where serve answers /healthz, /readyz and /metrics", Default: "127.0.0.1:9464"},
	{Name: "MNEMO_MAX_TURNS", Meaning: "how many turns serve runs at once; a thread's turns run one at a time", Default: "16"},
	{Name: "MNEMO_SHUTDOWN_TIMEOUT", Meaning: "how long serve takes at most to stop after SIGTERM; in-flight turns run for most of it, then are cancelled", Default: "20s"},
	{Name: "MNEMO_BACKFILL_MESSAGES", Meaning: "how many earlier messages of a thread serve reads into its log when first mentioned there (the root and the newest replies)", Default: "500"},
	{Name: "MNEMO_LOG_LEVEL", Meaning: "debug, info, warn or error; message text is logged only at debug", Default: "info"},
	{Name: "MNEMO_LOG_FILE", Meaning: "the file mnemo chat logs to; - for stderr", DefaultNote: "mnemo/chat.log in the user cache directory when chatting in a terminal, else stderr"},
	{Name: "USER", Meaning: "your name in mnemo chat", Default: "you"},
	{Name: "MNEMO_RETENTION_CONVERSATIONS", Meaning: "how long serve keeps the session log's messages and the turns, in days (90d) or as a duration (720h); 0 keeps them for ever", Default: "90d"},
	{Name: "MNEMO_RETENTION_INBOX", Meaning: "the longest serve keeps a delivered inbox post and a finished job (River keeps completed jobs a day at most)", Default: "7d"},
	{Name: "MNEMO_RETENTION_UNINSTALLED", Meaning: "how long a workspace's data is kept after the app is uninstalled there (or its tokens revoked), before all of it is erased", Default: "30d"},
	{Name: "MNEMO_RETENTION_FORGOTTEN", Meaning: "how long a forgotten, superseded or expired memory is kept, with its history, before it is deleted", Default: "30d"},
	{Name: "MNEMO_ERASE_DELETED_USERS", Meaning: "true: when Slack says a member's account was deleted (user_change), erase them as /mnemo purge does", Default: "false"},
}

// variable returns name's entry in Variables.
func variable(name string) (Variable, bool) {
	i := slices.IndexFunc(Variables, func(v Variable) bool { return v.Name == name })
	if i < 0 {
		return Variable{}, false
	}
	return Variables[i], true
}

// Needs says which parts of the configuration a command requires.
type Needs struct {
	Database, Slack, Model bool
}

// commandNeeds is what each command requires of the configuration; the
// Required column of Variables says the same, and a test holds them
// together.
var commandNeeds = map[string]Needs{
	"serve":    {Database: true, Slack: true, Model: true},
	"chat":     {Database: true, Model: true},
	"migrate":  {Database: true},
	"mcp":      {Database: true},
	"memories": {Database: true},
	"eval":     {Database: true},
	"tools":    {},
	"teams":    {Database: true},
	"keys":     {Database: true},
}

// ConfigError lists every missing or malformed variable at once.
type ConfigError struct{ Problems []string }

func (e *ConfigError) Error() string {
	return "configuration:\n  - " + strings.Join(e.Problems, "\n  - ")
}

// environment reads the variables of Variables, and only those.
type environment struct{ lookup func(string) string }

// getenv returns name's value, or its default when unset. A name missing
// from Variables is a bug that TestEveryVariableIsDocumented catches.
func (e environment) getenv(name string) string {
	v, ok := variable(name)
	if !ok {
		panic("config: " + name + " is read but not in Variables")
	}
	if val := e.lookup(name); val != "" {
		return val
	}
	return v.Default
}

// missing is the problem of a required variable that is not set.
func missing(name string) string {
	v, _ := variable(name)
	return fmt.Sprintf("%s is not set: %s", name, v.Meaning)
}

// LoadConfig reads the environment. getenv is os.Getenv outside tests.
func LoadConfig(getenv func(string) string, needs Needs) (Config, error) {
	e := environment{getenv}
	c := Config{
		DatabaseURL:      e.getenv("DATABASE_URL"),
		SlackBot:         e.getenv("SLACK_BOT_TOKEN"),
		SlackApp:         e.getenv("SLACK_APP_TOKEN"),
		SlackAPIURL:      e.getenv("SLACK_API_URL"),
		Provider:         strings.ToLower(e.getenv("MNEMO_LLM_PROVIDER")),
		LLMBaseURL:       e.getenv("MNEMO_LLM_BASE_URL"),
		LLMKey:           e.getenv("MNEMO_LLM_API_KEY"),
		Model:            e.getenv("MNEMO_MODEL"),
		SlashCommand:     e.getenv("MNEMO_SLASH_COMMAND"),
		MCPConfig:        e.getenv("MNEMO_MCP_CONFIG"),
		JudgeModel:       e.getenv("MNEMO_JUDGE_MODEL"),
		HTTPAddr:         e.getenv("MNEMO_HTTP_ADDR"),
		EmbeddingModel:   e.getenv("MNEMO_EMBEDDING_MODEL"),
		EmbeddingBaseURL: e.getenv("MNEMO_EMBEDDING_BASE_URL"),
		LogFile:          e.getenv("MNEMO_LOG_FILE"),
		ChatName:         e.getenv("USER"),
		ClientID:         e.getenv("SLACK_CLIENT_ID"),
		ClientSecret:     e.getenv("SLACK_CLIENT_SECRET"),
		EncryptionKey:    e.getenv("MNEMO_ENCRYPTION_KEY"),
		AuthorizeURL:     e.getenv("SLACK_AUTHORIZE_URL"),
		RedirectURL:      e.getenv("SLACK_REDIRECT_URL"),
	}
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	isURL := func(s string) bool {
		u, err := url.Parse(s)
		return err == nil && u.Scheme != "" && u.Host != ""
	}

	if c.DatabaseURL == "" {
		if needs.Database {
			bad("%s", missing("DATABASE_URL"))
		}
	} else if err := db.CheckURL(c.DatabaseURL); err != nil {
		bad("DATABASE_URL is not a PostgreSQL connection string (%v); expected the form %s", err, db.URLForm)
	}
	if !isURL(c.SlackAPIURL) {
		bad("SLACK_API_URL is not a URL")
	} else if !strings.HasSuffix(c.SlackAPIURL, "/") {
		c.SlackAPIURL += "/"
	}
	if !strings.HasPrefix(c.SlashCommand, "/") {
		c.SlashCommand = "/" + c.SlashCommand
	}
	lvl := e.getenv("MNEMO_LOG_LEVEL")
	if l, err := zerolog.ParseLevel(strings.ToLower(lvl)); err != nil || l > zerolog.ErrorLevel || l < zerolog.DebugLevel {
		bad("MNEMO_LOG_LEVEL must be debug, info, warn or error, not %q", lvl)
	} else {
		c.LogLevel = l
	}
	for _, a := range strings.Split(e.getenv("MNEMO_ADMINS"), ",") {
		if a = strings.TrimSpace(a); a == "" {
			continue
		}
		if team, user, ok := strings.Cut(a, ":"); ok && validTeamID(team) && validUserID(user) {
			c.Admins = append(c.Admins, a)
			continue
		}
		if !validUserID(a) {
			bad("MNEMO_ADMINS has %q, which is not a Slack user id (U… or W…, or T…:U… for one workspace)", a)
			continue
		}
		c.Admins = append(c.Admins, a)
	}
	if host, port, err := net.SplitHostPort(c.HTTPAddr); err != nil || port == "" || strings.ContainsAny(host, "/ ") {
		bad("MNEMO_HTTP_ADDR must be host:port, like 127.0.0.1:9464, not %q", c.HTTPAddr)
	} else if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		bad("MNEMO_HTTP_ADDR has port %q, which is not a port number", port)
	}
	if n, err := strconv.Atoi(e.getenv("MNEMO_MAX_TURNS")); err != nil || n < 1 || n > 1000 {
		bad("MNEMO_MAX_TURNS must be a whole number from 1 to 1000, not %q", e.getenv("MNEMO_MAX_TURNS"))
	} else {
		c.MaxTurns = n
	}
	if d, err := time.ParseDuration(e.getenv("MNEMO_SHUTDOWN_TIMEOUT")); err != nil || d <= 0 {
		bad("MNEMO_SHUTDOWN_TIMEOUT must be a duration such as 20s or 1m, not %q", e.getenv("MNEMO_SHUTDOWN_TIMEOUT"))
	} else {
		c.ShutdownTimeout = d
	}
	for _, r := range []struct {
		name string
		to   *time.Duration
	}{
		{"MNEMO_RETENTION_CONVERSATIONS", &c.Retention.Conversations},
		{"MNEMO_RETENTION_INBOX", &c.Retention.Inbox},
		{"MNEMO_RETENTION_FORGOTTEN", &c.Retention.Forgotten},
		{"MNEMO_RETENTION_UNINSTALLED", &c.RetentionUninstalled},
	} {
		if d, err := parseDays(e.getenv(r.name)); err != nil {
			bad("%s must be a number of days such as 30d, or a duration such as 12h (0 keeps for ever), not %q", r.name, e.getenv(r.name))
		} else {
			*r.to = d
		}
	}
	switch v := strings.ToLower(e.getenv("MNEMO_ERASE_DELETED_USERS")); v {
	case "true", "1", "yes", "on":
		c.EraseDeletedUsers = true
	case "false", "0", "no", "off":
	default:
		bad("MNEMO_ERASE_DELETED_USERS must be true or false, not %q", v)
	}
	if n, err := strconv.Atoi(e.getenv("MNEMO_BACKFILL_MESSAGES")); err != nil || n < 1 || n > 100000 {
		bad("MNEMO_BACKFILL_MESSAGES must be a whole number from 1 to 100000, not %q", e.getenv("MNEMO_BACKFILL_MESSAGES"))
	} else {
		c.BackfillMessages = n
	}
	if !isURL(c.AuthorizeURL) {
		bad("SLACK_AUTHORIZE_URL is not a URL")
	}
	if c.RedirectURL != "" && !isURL(c.RedirectURL) {
		bad("SLACK_REDIRECT_URL is not a URL")
	}
	if c.ClientID != "" || c.ClientSecret != "" {
		if c.ClientID == "" {
			bad("%s", missing("SLACK_CLIENT_ID"))
		}
		if c.ClientSecret == "" {
			bad("%s", missing("SLACK_CLIENT_SECRET"))
		}
		if c.EncryptionKey == "" {
			bad("%s", missing("MNEMO_ENCRYPTION_KEY"))
		}
	}
	if c.EncryptionKey != "" {
		if _, err := install.ParseKeyring(c.EncryptionKey); err != nil {
			bad("MNEMO_ENCRYPTION_KEY: %v", err)
		}
	}
	if needs.Slack {
		switch {
		case c.SlackBot == "" && c.MultiWorkspace():
			// Every workspace installs the app (OAuth).
		case c.SlackBot == "":
			bad("%s", missing("SLACK_BOT_TOKEN"))
		case !strings.HasPrefix(c.SlackBot, "xoxb-"):
			bad("SLACK_BOT_TOKEN must be a bot token starting with xoxb-")
		}
		switch {
		case c.SlackApp == "":
			bad("%s", missing("SLACK_APP_TOKEN"))
		case !strings.HasPrefix(c.SlackApp, "xapp-"):
			bad("SLACK_APP_TOKEN must be an app-level token starting with xapp-")
		}
	}
	if c.LLMKey == "" {
		switch c.Provider {
		case "anthropic":
			c.LLMKey = e.getenv("ANTHROPIC_API_KEY")
		case "openai":
			c.LLMKey = e.getenv("OPENAI_API_KEY")
		}
	}
	if needs.Model {
		switch c.Provider {
		case "anthropic", "openai":
		case "":
			bad("%s", missing("MNEMO_LLM_PROVIDER"))
		default:
			bad("MNEMO_LLM_PROVIDER must be anthropic or openai, not %q", c.Provider)
		}
		// A server of one's own (Ollama, vLLM) needs no key.
		if c.LLMKey == "" && c.Provider != "" && c.LLMBaseURL == "" {
			bad("MNEMO_LLM_API_KEY is not set (nor %s_API_KEY): the provider's API key", strings.ToUpper(c.Provider))
		}
		if c.Model == "" {
			bad("%s", missing("MNEMO_MODEL"))
		}
	}
	if c.LLMBaseURL != "" && !isURL(c.LLMBaseURL) {
		bad("MNEMO_LLM_BASE_URL is not a URL")
	}
	if c.EmbeddingBaseURL == "" {
		c.EmbeddingBaseURL = c.LLMBaseURL
	} else if !isURL(c.EmbeddingBaseURL) {
		bad("MNEMO_EMBEDDING_BASE_URL is not a URL")
	}
	if c.JudgeModel == "" {
		c.JudgeModel = c.Model
	}
	if c.MCPConfig != "" {
		if _, err := os.Stat(c.MCPConfig); err != nil {
			bad("MNEMO_MCP_CONFIG names %q, which can't be read: %v", c.MCPConfig, errors.Unwrap(err))
		}
	}
	if len(problems) > 0 {
		return c, &ConfigError{Problems: problems}
	}
	return c, nil
}

// parseDays reads a period: whole days ("30d"), any Go duration ("12h"),
// or 0 for none.
func parseDays(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "0" {
		return 0, nil
	}
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.Atoi(n)
		if err != nil || days < 0 {
			return 0, fmt.Errorf("not a number of days")
		}
		return time.Duration(days) * lifecycle.Day, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("not a duration")
	}
	return d, nil
}

// validTeamID says whether s looks like a Slack team id (T…).
func validTeamID(s string) bool {
	return len(s) >= 2 && s[0] == 'T' && strings.Trim(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") == ""
}

func validUserID(s string) bool {
	if len(s) < 2 || (s[0] != 'U' && s[0] != 'W') {
		return false
	}
	for _, c := range s {
		if (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// SlackAppHelp is printed when serve has no Slack tokens.
const SlackAppHelp = `mnemo needs a Slack app to serve. To create one:
  1. Open https://api.slack.com/apps, choose "Create New App" → "From an app manifest",
     pick your workspace and paste slackapp/manifest.yaml.
  2. Under "Basic Information" → "App-Level Tokens", generate a token with the
     connections:write scope: that is SLACK_APP_TOKEN (xapp-…).
  3. Install the app to the workspace; "OAuth & Permissions" shows the Bot User
     OAuth Token: that is SLACK_BOT_TOKEN (xoxb-…).
  4. export SLACK_BOT_TOKEN=… SLACK_APP_TOKEN=… and run make run again.
To try mnemo without Slack, run: make chat`

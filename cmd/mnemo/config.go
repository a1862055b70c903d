package main

import (
	"cmp"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	envparse "github.com/caarlos0/env/v11"
	"github.com/rs/zerolog"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/install"
	"github.com/mnemo-bot/mnemo/lifecycle"
	turnusage "github.com/mnemo-bot/mnemo/usage"
)

// Config is mnemo's configuration and its one definition: each field is an
// environment variable, named by its env tag and parsed by caarlos0/env
// into a type that checks its value. The other tags are its documentation,
// from which `mnemo help env`, `mnemo serve --help` and the README's
// configuration table are generated:
//   - help: what it means (plain text: help prints it as it stands, the
//     README links the docs/ pages it names);
//   - envDefault: the value used when it is unset or empty;
//   - defaultNote: what happens instead when there is no literal default;
//   - requiredBy: the commands that refuse to start without it.
//
// A new variable is a new field here, in the order help lists them, and a
// row in the README that TestReadmeConfigurationTableIsGenerated asks for.
type Config struct {
	DatabaseURL postgresURL `env:"DATABASE_URL" requiredBy:"serve,migrate,chat,mcp,memories,eval,stats,turns,teams,keys,embeddings,installs" help:"PostgreSQL connection string, postgres://user:pass@host:5432/db?sslmode=disable; the make targets set it to the local cluster"`
	SlackBot    botToken    `env:"SLACK_BOT_TOKEN" requiredBy:"serve" help:"the Slack app's bot token, xoxb-…"`
	SlackApp    appToken    `env:"SLACK_APP_TOKEN" requiredBy:"serve" help:"the app-level token for Socket Mode, xapp-…; not read in http mode"`
	// SlackMode is how Slack reaches serve: Socket Mode, or the Events API
	// over HTTP on SlackHTTPAddr, each request signed with SigningSecret.
	SlackMode     slackMode `env:"MNEMO_SLACK_MODE" envDefault:"socket" help:"how Slack reaches serve: socket (Socket Mode: no public URL, at most 10 connections) or http (the Events API over HTTPS at /slack/*, behind a load balancer)"`
	SigningSecret string    `env:"SLACK_SIGNING_SECRET" help:"the app's signing secret (Basic Information → App Credentials); in http mode every request must be signed with it, and serve needs it"`
	SlackHTTPAddr hostPort  `env:"MNEMO_SLACK_HTTP_ADDR" envDefault:"127.0.0.1:3000" help:"in http mode, where serve answers Slack's requests (POST /slack/events, /slack/interactivity, /slack/commands), apart from MNEMO_HTTP_ADDR so that only /slack/* is exposed"`
	SlackAPIURL   apiURL    `env:"SLACK_API_URL" envDefault:"https://slack.com/api/" help:"Slack's Web API base URL; tests and proxies point it elsewhere. Response URLs on its host are answered, beside hooks.slack.com"`
	// ClientID and ClientSecret turn on the OAuth install for many
	// workspaces; EncryptionKey seals their bot tokens.
	ClientID      string   `env:"SLACK_CLIENT_ID" help:"the app's client id (Basic Information): turns on the OAuth install for many workspaces at /slack/install, each with its own bot token; SLACK_BOT_TOKEN is then optional (see the README's Many workspaces)"`
	ClientSecret  string   `env:"SLACK_CLIENT_SECRET" help:"the app's client secret, for the OAuth code exchange (oauth.v2.access); required with SLACK_CLIENT_ID"`
	EncryptionKey keyring  `env:"MNEMO_ENCRYPTION_KEY" help:"the key installed workspaces' bot tokens are sealed with (AES-256-GCM): 32 bytes in base64 (openssl rand -base64 32), or id:base64 keys separated by commas, the first current (mnemo keys rotate); required with SLACK_CLIENT_ID"`
	AuthorizeURL  httpURL  `env:"SLACK_AUTHORIZE_URL" envDefault:"https://slack.com/oauth/v2/authorize" help:"Slack's OAuth authorize page; tests point it elsewhere"`
	RedirectURL   httpURL  `env:"SLACK_REDIRECT_URL" defaultNote:"none: Slack uses the app's one configured redirect URL" help:"the public URL of /slack/oauth_redirect, sent as redirect_uri"`
	Provider      provider `env:"MNEMO_LLM_PROVIDER" requiredBy:"serve,chat" help:"the model provider: anthropic, or openai for any OpenAI-compatible server. Without one, mnemo mcp's remember refuses every call (its other tools work): only the model judges whether a memory is sensitive from what it means"`
	Model         string   `env:"MNEMO_MODEL" requiredBy:"serve,chat" help:"the model name"`
	// LLMKey falls back to the provider's own variable, below.
	LLMKey              string           `env:"MNEMO_LLM_API_KEY" requiredBy:"serve,chat" defaultNote:"ANTHROPIC_API_KEY or OPENAI_API_KEY, by provider" help:"the provider's API key; optional with MNEMO_LLM_BASE_URL (a local server such as Ollama needs none)"`
	AnthropicKey        string           `env:"ANTHROPIC_API_KEY" help:"the key when the provider is anthropic and MNEMO_LLM_API_KEY is unset"`
	OpenAIKey           string           `env:"OPENAI_API_KEY" help:"the key when the provider is openai and MNEMO_LLM_API_KEY is unset"`
	LLMBaseURL          httpURL          `env:"MNEMO_LLM_BASE_URL" defaultNote:"the provider's own" help:"the provider's base URL: an OpenAI-compatible server (Ollama, vLLM, OpenRouter), a proxy or a test server. The SDKs' OPENAI_BASE_URL and ANTHROPIC_BASE_URL are not read"`
	JudgeModel          string           `env:"MNEMO_JUDGE_MODEL" defaultNote:"MNEMO_MODEL" help:"the model that grades replies in mnemo eval --live"`
	EmbeddingModel      string           `env:"MNEMO_EMBEDDING_MODEL" defaultNote:"none: recall is lexical only" help:"an embedding model for recall by meaning, through the OpenAI-compatible /v1/embeddings endpoint: with pgvector, hybrid recall over every memory, embedded in the background (mnemo embeddings status); without it, a rerank of the lexical candidates"`
	EmbeddingBaseURL    httpURL          `env:"MNEMO_EMBEDDING_BASE_URL" defaultNote:"MNEMO_LLM_BASE_URL" help:"the embeddings endpoint's base URL"`
	EmbeddingKey        string           `env:"MNEMO_EMBEDDING_API_KEY" defaultNote:"the model's key (MNEMO_LLM_API_KEY) when the embeddings go to the model's host: MNEMO_EMBEDDING_BASE_URL unset (with MNEMO_LLM_BASE_URL set, or the openai provider) or on MNEMO_LLM_BASE_URL's host; OPENAI_API_KEY when they go to OpenAI's API for the anthropic provider; else none" help:"the embeddings endpoint's API key; the model's key is never sent to another host"`
	EmbeddingDeadline   positiveDuration `env:"MNEMO_EMBEDDING_QUERY_DEADLINE" envDefault:"300ms" help:"how long recall waits for the question's embedding; past it, or on an error, recall is lexical (mnemo_recall_vector_fallback_total counts it)"`
	Admins              userIDs          `env:"MNEMO_ADMINS" help:"comma-separated Slack user ids (U…, W…) with admin rights, beside the workspace's admins and owners; with many workspaces a bare id counts in SLACK_BOT_TOKEN's workspace only, and T…:U… names the workspace"`
	Operator            userID           `env:"MNEMO_OPERATOR" help:"the Slack user id (U…) that mnemo memories search, forget, restore, history and export act as, unless --as says otherwise: it sees and may do what it could in Slack (admin rights from MNEMO_ADMINS), and each action is audited under it"`
	SlashCommand        slashCommand     `env:"MNEMO_SLASH_COMMAND" envDefault:"/mnemo" help:"the slash command's name"`
	MCPConfig           readableFile     `env:"MNEMO_MCP_CONFIG" help:"an MCP client configuration file ({\"mcpServers\": …} or {\"servers\": …}) whose servers become tool sources; see docs/tools.md"`
	HTTPAddr            hostPort         `env:"MNEMO_HTTP_ADDR" envDefault:"127.0.0.1:9464" help:"where serve answers /healthz, /readyz and /metrics"`
	MaxTurns            turnLimit        `env:"MNEMO_MAX_TURNS" envDefault:"16" help:"how many turns serve runs at once; a thread's turns run one at a time. The database pool is MNEMO_MAX_TURNS + 10 connections (one per turn, 2 for learning, 8 for River, the inbox writes and health checks)"`
	ShutdownTimeout     positiveDuration `env:"MNEMO_SHUTDOWN_TIMEOUT" envDefault:"20s" help:"how long serve takes at most to stop after SIGTERM; in-flight turns run for most of it, then are cancelled"`
	BackfillMessages    messageCount     `env:"MNEMO_BACKFILL_MESSAGES" envDefault:"500" help:"how many earlier messages of a thread serve reads into its log when first mentioned there (the root and the newest replies)"`
	LogLevel            logLevel         `env:"MNEMO_LOG_LEVEL" envDefault:"info" help:"debug, info, warn or error; message text is logged only at debug"`
	LogFile             string           `env:"MNEMO_LOG_FILE" defaultNote:"mnemo/chat.log in the user cache directory when chatting in a terminal, else stderr" help:"the file mnemo chat logs to; - for stderr"`
	ChatName            string           `env:"USER" envDefault:"you" help:"your name in mnemo chat"`
	RetainConversations period           `env:"MNEMO_RETENTION_CONVERSATIONS" envDefault:"90d" help:"how long serve keeps the session log's messages and the turns, in days (90d) or as a duration (720h); 0 keeps them for ever. See docs/lifecycle.md"`
	RetainInbox         period           `env:"MNEMO_RETENTION_INBOX" envDefault:"7d" help:"the longest serve keeps a delivered inbox post and a finished job (River keeps completed jobs a day at most)"`
	RetainForgotten     period           `env:"MNEMO_RETENTION_FORGOTTEN" envDefault:"30d" help:"how long a forgotten, superseded or expired memory is kept, with its history, before it is deleted"`
	RetainUninstalled   period           `env:"MNEMO_RETENTION_UNINSTALLED" envDefault:"30d" help:"how long a workspace's data is kept after the app is uninstalled there (or its tokens revoked), before all of it is erased"`
	// EraseDeletedUsers erases a member when Slack says their account was
	// deleted (user_change with deleted: true).
	EraseDeletedUsers onOff `env:"MNEMO_ERASE_DELETED_USERS" envDefault:"false" help:"true: when Slack says a member's account was deleted (user_change), erase them as /mnemo purge does"`
	// OrgMemories are the organisations that opted into org-scope memories.
	OrgMemories enterpriseIDs `env:"MNEMO_ORG_MEMORIES" defaultNote:"none: each workspace is its own tenant" help:"comma-separated Enterprise Grid organisation ids (E…) whose workspace memories are shared by every workspace their org-wide installation serves (org-scope memories), at their org admin's request; personal, thread and channel memories stay each workspace's"`
	// Budgets (docs/observability.md); 0 is no limit.
	BudgetPersonDaily  tokenCount `env:"MNEMO_BUDGET_PERSON_DAILY_TOKENS" envDefault:"0" help:"the most tokens (input plus output) one person's turns may use per UTC day, across replicas; a turn past it ends with a sentence saying so; 0 for no limit. See docs/observability.md"`
	BudgetChannelDaily tokenCount `env:"MNEMO_BUDGET_CHANNEL_DAILY_TOKENS" envDefault:"0" help:"the most tokens one channel's turns may use per UTC day, across replicas; 0 for no limit"`
	BudgetTurnCalls    tokenCount `env:"MNEMO_BUDGET_TURN_MODEL_CALLS" envDefault:"0" help:"the most model calls one turn may make; 0 for no limit"`
	BudgetTurnTools    tokenCount `env:"MNEMO_BUDGET_TURN_TOOL_STEPS" envDefault:"0" help:"the most tool calls the model may make in one turn; 0 for no limit"`
	// The exporter reads the OTEL_* variables itself (ops.StartTracing);
	// this field only checks the endpoint and documents it.
	OTLPEndpoint   httpURL `env:"OTEL_EXPORTER_OTLP_ENDPOINT" defaultNote:"none: no spans are exported" help:"an OTLP collector (http://host:4318, or :4317 with OTEL_EXPORTER_OTLP_PROTOCOL=grpc): serve exports one trace per turn; the other standard OTEL_* variables (headers, OTEL_SERVICE_NAME, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT…) apply as OpenTelemetry documents them"`
	TraceContent   onOff   `env:"MNEMO_TRACE_CONTENT" envDefault:"false" help:"true: model call spans carry the system prompt, the messages and the answer; people's words then reach the trace backend"`
	AdminOversight onOff   `env:"MNEMO_ADMIN_OVERSIGHT" envDefault:"false" help:"true: an admin inspecting a turn (mnemo turns show, the Inspect shortcut) sees the recalled memories they could not see in its place; each such look is recorded in the admin audit"`
	Prices         prices  `env:"MNEMO_PRICES" defaultNote:"none: no costs shown" help:"model prices for estimated costs in mnemo stats and turns show: model=input/output in dollars per million tokens, comma-separated (claude-sonnet-4-5=3/15,gpt-4.1=2/8), or the path of a file of such lines"`
}

// Budgets are the MNEMO_BUDGET_* limits.
func (c Config) Budgets() turnusage.Limits {
	return turnusage.Limits{
		PersonDailyTokens: int64(c.BudgetPersonDaily), ChannelDailyTokens: int64(c.BudgetChannelDaily),
		TurnModelCalls: int64(c.BudgetTurnCalls), TurnToolSteps: int64(c.BudgetTurnTools),
	}
}

// tokenCount is a budget: a whole number, 0 for no limit.
type tokenCount int64

func (n *tokenCount) UnmarshalText(b []byte) error {
	v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || v < 0 {
		return fmt.Errorf("must be a whole number, 0 for no limit, not %q", string(b))
	}
	*n = tokenCount(v)
	return nil
}

// prices are MNEMO_PRICES, read by usage.ParsePrices.
type prices struct{ turnusage.Prices }

func (p *prices) UnmarshalText(b []byte) error {
	v, err := turnusage.ParsePrices(string(b))
	if err != nil {
		return errors.New(": " + err.Error())
	}
	p.Prices = v
	return nil
}

// Retention is how long serve keeps each kind of data.
func (c Config) Retention() lifecycle.Retention {
	return lifecycle.Retention{
		Conversations: time.Duration(c.RetainConversations),
		Inbox:         time.Duration(c.RetainInbox),
		Forgotten:     time.Duration(c.RetainForgotten),
	}
}

// MultiWorkspace reports whether workspaces install the app through OAuth.
func (c Config) MultiWorkspace() bool { return c.ClientID != "" }

// RetentionUninstalled is how long a workspace's data is kept after the
// app is uninstalled there.
func (c Config) RetentionUninstalled() time.Duration { return time.Duration(c.RetainUninstalled) }

// embeddingKey is the key the embeddings endpoint is sent, from c as
// parsed (MNEMO_EMBEDDING_BASE_URL not yet defaulted): MNEMO_EMBEDDING_API_KEY
// when set; else the model's key where the embeddings go where the model's
// requests go (MNEMO_EMBEDDING_BASE_URL unset or on MNEMO_LLM_BASE_URL's
// host); else, for OpenAI's own API (neither base URL set), OpenAI's key.
// Anywhere else, none: an Anthropic key is not sent to another vendor or a
// local server because the embeddings are made there.
func embeddingKey(c Config) string {
	if c.EmbeddingKey != "" {
		return c.EmbeddingKey
	}
	// Where each goes: the model to its base URL, else its provider's API;
	// the embeddings to theirs, else the model's, else OpenAI's API (the
	// embedder's default).
	model := string(c.LLMBaseURL)
	if model == "" {
		model = providerAPI[string(c.Provider)]
	}
	embeddings := string(c.EmbeddingBaseURL)
	if embeddings == "" {
		embeddings = cmp.Or(string(c.LLMBaseURL), openAIAPI)
	}
	switch {
	case sameHost(embeddings, model):
		return c.LLMKey
	case sameHost(embeddings, openAIAPI):
		return c.OpenAIKey
	}
	return ""
}

// openAIAPI is OpenAI's API, the embedder's default endpoint.
const openAIAPI = "https://api.openai.com/v1"

// providerAPI is each provider's own API, where its SDK goes without a
// base URL.
var providerAPI = map[string]string{"openai": openAIAPI, "anthropic": "https://api.anthropic.com"}

// sameHost reports whether two URLs reach the same scheme, host and port.
func sameHost(a, b string) bool {
	ua, err := url.Parse(a)
	if err != nil || b == "" {
		return false
	}
	ub, err := url.Parse(b)
	if err != nil {
		return false
	}
	return strings.EqualFold(ua.Scheme, ub.Scheme) && strings.EqualFold(ua.Host, ub.Host)
}

// Variable is one environment variable mnemo reads, as Config's tags
// define it.
type Variable struct {
	Name    string
	Meaning string
	// Default is the value used when the variable is unset; DefaultNote
	// says in words what happens instead when there is no literal default.
	Default, DefaultNote string
	// Required lists the commands that refuse to start without it.
	Required []string
	// field is Config's field that holds it.
	field string
}

// DefaultText is the default as help shows it, or "" for none.
func (v Variable) DefaultText() string {
	if v.Default != "" {
		return v.Default
	}
	return v.DefaultNote
}

// Variables is every environment variable mnemo reads, in the order help
// shows them: Config's fields, read from their tags.
var Variables = variables()

func variables() []Variable {
	var vs []Variable
	t := reflect.TypeFor[Config]()
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("env"), ",")
		if name == "" || name == "-" {
			continue
		}
		v := Variable{Name: name, Meaning: f.Tag.Get("help"), Default: f.Tag.Get("envDefault"), DefaultNote: f.Tag.Get("defaultNote"), field: f.Name}
		if r := f.Tag.Get("requiredBy"); r != "" {
			v.Required = strings.Split(r, ",")
		}
		if v.Meaning == "" {
			panic("config: " + name + " has no help tag")
		}
		vs = append(vs, v)
	}
	return vs
}

// ConfigError lists every missing or malformed variable at once, one
// problem per variable.
type ConfigError struct{ Problems []string }

func (e *ConfigError) Error() string {
	return "configuration:\n  - " + strings.Join(e.Problems, "\n  - ")
}

// LoadConfig reads the environment for command (serve, chat, …; "" for
// none): the variables of Variables and only those. getenv is os.Getenv
// outside tests; an empty variable is an unset one.
func LoadConfig(getenv func(string) string, command string) (Config, error) {
	environ := map[string]string{}
	for _, v := range Variables {
		if val := getenv(v.Name); val != "" {
			environ[v.Name] = val
		}
	}
	var c Config
	var problems []string
	if err := envparse.ParseWithOptions(&c, envparse.Options{Environment: environ}); err != nil {
		var agg envparse.AggregateError
		if !errors.As(err, &agg) {
			return c, fmt.Errorf("config: %w", err)
		}
		for _, e := range agg.Errors {
			// Each type's UnmarshalText says what is wrong with the value,
			// without echoing a secret; anything else is a bug in the tags.
			var pe envparse.ParseError
			if !errors.As(e, &pe) {
				return c, fmt.Errorf("config: %w", e)
			}
			i := slices.IndexFunc(Variables, func(v Variable) bool { return v.field == pe.Name })
			problems = append(problems, Variables[i].Name+" "+pe.Err.Error())
		}
	}

	if c.LLMKey == "" {
		switch c.Provider {
		case "anthropic":
			c.LLMKey = c.AnthropicKey
		case "openai":
			c.LLMKey = c.OpenAIKey
		}
	}
	c.EmbeddingKey = embeddingKey(c)
	if c.EmbeddingBaseURL == "" {
		c.EmbeddingBaseURL = c.LLMBaseURL
	}
	if c.JudgeModel == "" {
		c.JudgeModel = c.Model
	}

	if c.SlackMode == "http" {
		// Slack connects to mnemo: no app-level token, but every request
		// must be signed, and Slack's routes are not the operator's.
		c.SlackApp = ""
		if command == "serve" && c.SigningSecret == "" {
			problems = append(problems, "SLACK_SIGNING_SECRET is not set: in http mode (MNEMO_SLACK_MODE=http) every request from Slack is checked with the app's signing secret, under Basic Information → App Credentials")
		}
		if _, port, _ := net.SplitHostPort(string(c.SlackHTTPAddr)); c.SlackHTTPAddr == c.HTTPAddr && port != "0" {
			problems = append(problems, "MNEMO_SLACK_HTTP_ADDR and MNEMO_HTTP_ADDR must differ: Slack's routes are exposed, /metrics is not")
		}
	}
	for _, v := range Variables {
		if !slices.Contains(v.Required, command) || environ[v.Name] != "" || v.Default != "" {
			continue
		}
		switch v.Name {
		case "SLACK_APP_TOKEN":
			if c.SlackMode == "http" {
				continue // Socket Mode's token; http mode has the signing secret
			}
		case "SLACK_BOT_TOKEN":
			if c.MultiWorkspace() {
				continue // every workspace installs the app (OAuth)
			}
		case "MNEMO_LLM_API_KEY":
			// A server of one's own (Ollama, vLLM) needs no key; without a
			// provider, the provider is the problem.
			if c.LLMKey != "" || c.LLMBaseURL != "" || c.Provider == "" {
				continue
			}
			problems = append(problems, fmt.Sprintf("%s is not set (nor %s_API_KEY): %s", v.Name, strings.ToUpper(string(c.Provider)), v.Meaning))
			continue
		}
		problems = append(problems, fmt.Sprintf("%s is not set: %s", v.Name, v.Meaning))
	}
	if c.ClientID != "" || c.ClientSecret != "" {
		for _, v := range []struct {
			name string
			set  bool
		}{{"SLACK_CLIENT_ID", c.ClientID != ""}, {"SLACK_CLIENT_SECRET", c.ClientSecret != ""}, {"MNEMO_ENCRYPTION_KEY", environ["MNEMO_ENCRYPTION_KEY"] != ""}} {
			if !v.set {
				i := slices.IndexFunc(Variables, func(x Variable) bool { return x.Name == v.name })
				problems = append(problems, fmt.Sprintf("%s is not set: %s", v.name, Variables[i].Meaning))
			}
		}
	}
	if len(problems) > 0 {
		return c, &ConfigError{Problems: problems}
	}
	return c, nil
}

// The types of Config's fields: each UnmarshalText checks a value and
// says, after the variable's name, what is wrong with it.

// postgresURL is a PostgreSQL connection string.
type postgresURL string

func (u *postgresURL) UnmarshalText(b []byte) error {
	// CheckURL's reason never holds the password.
	if err := db.CheckURL(string(b)); err != nil {
		return fmt.Errorf("is not a PostgreSQL connection string (%v); expected the form %s", err, db.URLForm)
	}
	*u = postgresURL(b)
	return nil
}

// botToken is a Slack bot token; its value is never echoed.
type botToken string

func (t *botToken) UnmarshalText(b []byte) error {
	if !strings.HasPrefix(string(b), "xoxb-") {
		return errors.New("must be a bot token starting with xoxb-")
	}
	*t = botToken(b)
	return nil
}

// appToken is a Slack app-level token; its value is never echoed.
type appToken string

func (t *appToken) UnmarshalText(b []byte) error {
	if !strings.HasPrefix(string(b), "xapp-") {
		return errors.New("must be an app-level token starting with xapp-")
	}
	*t = appToken(b)
	return nil
}

func isURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Scheme != "" && u.Host != ""
}

// httpURL is an absolute URL.
type httpURL string

func (u *httpURL) UnmarshalText(b []byte) error {
	if !isURL(string(b)) {
		return errors.New("is not a URL")
	}
	*u = httpURL(b)
	return nil
}

// apiURL is an absolute URL that ends in a slash, as slack-go wants.
type apiURL string

func (u *apiURL) UnmarshalText(b []byte) error {
	s := string(b)
	if !isURL(s) {
		return errors.New("is not a URL")
	}
	if !strings.HasSuffix(s, "/") {
		s += "/"
	}
	*u = apiURL(s)
	return nil
}

// slackMode is how Slack reaches serve: socket or http, in lower case.
type slackMode string

func (m *slackMode) UnmarshalText(b []byte) error {
	switch s := strings.ToLower(string(b)); s {
	case "socket", "http":
		*m = slackMode(s)
		return nil
	default:
		return fmt.Errorf("must be socket or http, not %q", s)
	}
}

// provider is a model provider, in lower case.
type provider string

func (p *provider) UnmarshalText(b []byte) error {
	switch s := strings.ToLower(string(b)); s {
	case "anthropic", "openai":
		*p = provider(s)
		return nil
	default:
		return fmt.Errorf("must be anthropic or openai, not %q", s)
	}
}

// userIDs is a comma-separated list of Slack user ids.
type userIDs []string

func (ids *userIDs) UnmarshalText(b []byte) error {
	var good userIDs
	var bad []string
	for _, a := range strings.Split(string(b), ",") {
		if a = strings.TrimSpace(a); a == "" {
			continue
		}
		if team, user, ok := strings.Cut(a, ":"); (ok && validTeamID(team) && validUserID(user)) || validUserID(a) {
			good = append(good, a)
		} else {
			bad = append(bad, strconv.Quote(a))
		}
	}
	switch len(bad) {
	case 0:
		*ids = good
		return nil
	case 1:
		return fmt.Errorf("has %s, which is not a Slack user id (U… or W…)", bad[0])
	default:
		return fmt.Errorf("has %s, which are not Slack user ids (U… or W…)", strings.Join(bad, ", "))
	}
}

// keyring is MNEMO_ENCRYPTION_KEY, checked as install.ParseKeyring reads
// it; its value is never echoed.
type keyring string

func (k *keyring) UnmarshalText(b []byte) error {
	if _, err := install.ParseKeyring(string(b)); err != nil {
		return fmt.Errorf("is not a key: %w", err)
	}
	*k = keyring(b)
	return nil
}

// validTeamID says whether s looks like a Slack team id (T…).
func validTeamID(s string) bool {
	return len(s) >= 2 && s[0] == 'T' && strings.Trim(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") == ""
}

type enterpriseIDs []string

func (ids *enterpriseIDs) UnmarshalText(b []byte) error {
	var good enterpriseIDs
	for _, e := range strings.Split(string(b), ",") {
		if e = strings.TrimSpace(e); e == "" {
			continue
		}
		if !validEnterpriseID(e) {
			return fmt.Errorf("has %s, which is not an Enterprise Grid organisation id (E…)", strconv.Quote(e))
		}
		good = append(good, e)
	}
	*ids = good
	return nil
}

// validEnterpriseID is an Enterprise Grid organisation's id (E…).
func validEnterpriseID(s string) bool {
	return len(s) >= 2 && s[0] == 'E' && strings.Trim(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") == ""
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

// userID is one Slack user id.
type userID string

func (id *userID) UnmarshalText(b []byte) error {
	if !validUserID(string(b)) {
		return fmt.Errorf("is %q, which is not a Slack user id (U… or W…)", b)
	}
	*id = userID(b)
	return nil
}

// slashCommand is a slash command's name, with its slash.
type slashCommand string

func (s *slashCommand) UnmarshalText(b []byte) error {
	*s = slashCommand("/" + strings.TrimPrefix(string(b), "/"))
	return nil
}

// readableFile names a file that exists.
type readableFile string

func (f *readableFile) UnmarshalText(b []byte) error {
	if _, err := os.Stat(string(b)); err != nil {
		return fmt.Errorf("names %q, which can't be read: %v", b, errors.Unwrap(err))
	}
	*f = readableFile(b)
	return nil
}

// hostPort is a listening address.
type hostPort string

func (a *hostPort) UnmarshalText(b []byte) error {
	host, port, err := net.SplitHostPort(string(b))
	if err != nil || port == "" || strings.ContainsAny(host, "/ ") {
		return fmt.Errorf("must be host:port, like 127.0.0.1:9464, not %q", b)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("has port %q, which is not a port number", port)
	}
	*a = hostPort(b)
	return nil
}

// wholeNumber reads a whole number from lo to hi.
func wholeNumber(b []byte, lo, hi int) (int, error) {
	n, err := strconv.Atoi(string(b))
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("must be a whole number from %d to %d, not %q", lo, hi, b)
	}
	return n, nil
}

// turnLimit is how many turns run at once.
type turnLimit int

func (n *turnLimit) UnmarshalText(b []byte) error {
	v, err := wholeNumber(b, 1, 1000)
	*n = turnLimit(v)
	return err
}

// messageCount is a number of Slack messages.
type messageCount int

func (n *messageCount) UnmarshalText(b []byte) error {
	v, err := wholeNumber(b, 1, 100000)
	*n = messageCount(v)
	return err
}

// positiveDuration is a Go duration above zero.
type positiveDuration time.Duration

func (d *positiveDuration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil || v <= 0 {
		return fmt.Errorf("must be a duration such as 20s or 1m, not %q", b)
	}
	*d = positiveDuration(v)
	return nil
}

// period is whole days ("30d"), any Go duration ("12h"), or 0 for none.
type period time.Duration

func (p *period) UnmarshalText(b []byte) error {
	s := strings.TrimSpace(string(b))
	bad := fmt.Errorf("must be a number of days such as 30d, or a duration such as 12h (0 keeps for ever), not %q", b)
	if s == "0" {
		*p = 0
		return nil
	}
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.Atoi(n)
		if err != nil || days < 0 {
			return bad
		}
		*p = period(time.Duration(days) * lifecycle.Day)
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return bad
	}
	*p = period(d)
	return nil
}

// logLevel is a zerolog level from debug to error.
type logLevel zerolog.Level

func (l *logLevel) UnmarshalText(b []byte) error {
	v, err := zerolog.ParseLevel(strings.ToLower(string(b)))
	if err != nil || v > zerolog.ErrorLevel || v < zerolog.DebugLevel {
		return fmt.Errorf("must be debug, info, warn or error, not %q", b)
	}
	*l = logLevel(v)
	return nil
}

// Level is the level for zerolog.
func (l logLevel) Level() zerolog.Level { return zerolog.Level(l) }

// onOff is a yes-or-no setting.
type onOff bool

func (o *onOff) UnmarshalText(b []byte) error {
	switch v := strings.ToLower(string(b)); v {
	case "true", "1", "yes", "on":
		*o = true
	case "false", "0", "no", "off":
		*o = false
	default:
		return fmt.Errorf("must be true or false, not %q", v)
	}
	return nil
}

// docLink is a docs/ page named in a variable's meaning.
var docLink = regexp.MustCompile(`docs/[a-z0-9_-]+\.md`)

// ConfigTable is the README's configuration table, in Markdown: `mnemo
// help env --markdown` prints it and a test holds the README to it.
func ConfigTable() string {
	var b strings.Builder
	b.WriteString("| variable | meaning | default | required by |\n|---|---|---|---|\n")
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	for _, v := range Variables {
		def := v.DefaultNote
		if v.Default != "" {
			def = "`" + v.Default + "`"
		}
		meaning := docLink.ReplaceAllStringFunc(cell(v.Meaning), func(p string) string { return "[" + p + "](" + p + ")" })
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", v.Name, meaning, cell(def), strings.Join(v.Required, ", "))
	}
	return b.String()
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
Behind a load balancer instead (MNEMO_SLACK_MODE=http): paste slackapp/manifest.http.yaml
with your host, skip step 2, and export SLACK_SIGNING_SECRET (Basic Information →
App Credentials) instead of SLACK_APP_TOKEN.
To try mnemo without Slack, run: make chat`

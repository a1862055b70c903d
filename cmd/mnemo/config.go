package main

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/rs/zerolog"
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
}

// Needs says which parts of the configuration a command requires.
type Needs struct {
	Database, Slack, Model bool
}

// ConfigError lists every missing or malformed variable at once.
type ConfigError struct{ Problems []string }

func (e *ConfigError) Error() string {
	return "configuration:\n  - " + strings.Join(e.Problems, "\n  - ")
}

// LoadConfig reads the environment. getenv is os.Getenv outside tests.
func LoadConfig(getenv func(string) string, needs Needs) (Config, error) {
	c := Config{
		DatabaseURL:  getenv("DATABASE_URL"),
		SlackBot:     getenv("SLACK_BOT_TOKEN"),
		SlackApp:     getenv("SLACK_APP_TOKEN"),
		SlackAPIURL:  getenv("SLACK_API_URL"),
		Provider:     strings.ToLower(getenv("MNEMO_LLM_PROVIDER")),
		LLMBaseURL:   getenv("MNEMO_LLM_BASE_URL"),
		LLMKey:       getenv("MNEMO_LLM_API_KEY"),
		Model:        getenv("MNEMO_MODEL"),
		SlashCommand: getenv("MNEMO_SLASH_COMMAND"),
		MCPConfig:    getenv("MNEMO_MCP_CONFIG"),
		JudgeModel:   getenv("MNEMO_JUDGE_MODEL"),
		LogLevel:     zerolog.InfoLevel,
	}
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	if c.SlackAPIURL == "" {
		c.SlackAPIURL = "https://slack.com/api/"
	} else if u, err := url.Parse(c.SlackAPIURL); err != nil || u.Scheme == "" || u.Host == "" {
		bad("SLACK_API_URL is not a URL")
	} else if !strings.HasSuffix(c.SlackAPIURL, "/") {
		c.SlackAPIURL += "/"
	}
	if c.SlashCommand == "" {
		c.SlashCommand = "/mnemo"
	} else if !strings.HasPrefix(c.SlashCommand, "/") {
		c.SlashCommand = "/" + c.SlashCommand
	}
	if lvl := getenv("MNEMO_LOG_LEVEL"); lvl != "" {
		l, err := zerolog.ParseLevel(strings.ToLower(lvl))
		if err != nil || l > zerolog.ErrorLevel || l < zerolog.DebugLevel {
			bad("MNEMO_LOG_LEVEL must be debug, info, warn or error, not %q", lvl)
		} else {
			c.LogLevel = l
		}
	}
	for _, a := range strings.Split(getenv("MNEMO_ADMINS"), ",") {
		if a = strings.TrimSpace(a); a == "" {
			continue
		}
		if !validUserID(a) {
			bad("MNEMO_ADMINS has %q, which is not a Slack user id (U… or W…)", a)
			continue
		}
		c.Admins = append(c.Admins, a)
	}
	if needs.Database && c.DatabaseURL == "" {
		bad("DATABASE_URL is not set (make run starts a local PostgreSQL and sets it)")
	}
	if needs.Slack {
		switch {
		case c.SlackBot == "":
			bad("SLACK_BOT_TOKEN is not set: the bot token, xoxb-…")
		case !strings.HasPrefix(c.SlackBot, "xoxb-"):
			bad("SLACK_BOT_TOKEN must be a bot token starting with xoxb-")
		}
		switch {
		case c.SlackApp == "":
			bad("SLACK_APP_TOKEN is not set: the app-level token for Socket Mode, xapp-…")
		case !strings.HasPrefix(c.SlackApp, "xapp-"):
			bad("SLACK_APP_TOKEN must be an app-level token starting with xapp-")
		}
	}
	if needs.Model {
		switch c.Provider {
		case "anthropic", "openai":
		case "":
			bad("MNEMO_LLM_PROVIDER is not set: anthropic or openai")
		default:
			bad("MNEMO_LLM_PROVIDER must be anthropic or openai, not %q", c.Provider)
		}
		if c.LLMKey == "" {
			switch c.Provider {
			case "anthropic":
				c.LLMKey = getenv("ANTHROPIC_API_KEY")
			case "openai":
				c.LLMKey = getenv("OPENAI_API_KEY")
			}
		}
		if c.LLMKey == "" && c.Provider != "" {
			bad("MNEMO_LLM_API_KEY is not set (nor %s_API_KEY)", strings.ToUpper(c.Provider))
		}
		if c.Model == "" {
			bad("MNEMO_MODEL is not set: the model name")
		}
		if c.LLMBaseURL != "" {
			if u, err := url.Parse(c.LLMBaseURL); err != nil || u.Scheme == "" || u.Host == "" {
				bad("MNEMO_LLM_BASE_URL is not a URL")
			}
		}
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

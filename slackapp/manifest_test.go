package slackapp

import (
	"net/url"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

func TestManifest(t *testing.T) {
	t.Parallel()
	checkManifest(t, "manifest.yaml", true)
}

// manifest.http.yaml is manifest.yaml with Slack's request URLs instead of
// Socket Mode: the same checks hold, and apart from the transport the two
// say the same.
func TestHTTPManifest(t *testing.T) {
	t.Parallel()
	checkManifest(t, "manifest.http.yaml", false)
	read := func(name string) map[string]any {
		raw, err := os.ReadFile(name)
		require.NoError(t, err)
		var m map[string]any
		require.NoError(t, yaml.Unmarshal(raw, &m))
		return m
	}
	socket, http := read("manifest.yaml"), read("manifest.http.yaml")
	at := func(m map[string]any, path ...string) map[string]any {
		for _, p := range path {
			m = m[p].(map[string]any)
		}
		return m
	}
	urls := map[string]string{}
	take := func(m map[string]any, key, name string) {
		v, ok := m[key].(string)
		require.True(t, ok, "%s has no %s", name, key)
		urls[name] = v
		delete(m, key)
	}
	take(at(http, "settings", "event_subscriptions"), "request_url", "/slack/events")
	take(at(http, "settings", "interactivity"), "request_url", "/slack/interactivity")
	take(http["features"].(map[string]any)["slash_commands"].([]any)[0].(map[string]any), "url", "/slack/commands")
	for path, raw := range urls {
		u, err := url.Parse(raw)
		require.NoError(t, err)
		require.Equal(t, "https", u.Scheme, "Slack posts only to HTTPS")
		require.Equal(t, path, u.Path, "the route serve answers")
		require.Equal(t, "mnemo.example.com", u.Host, "a placeholder host, the same for all three")
	}
	at(http, "settings")["socket_mode_enabled"] = true
	require.Equal(t, socket, http)
}

func checkManifest(t *testing.T, name string, socketMode bool) {
	t.Helper()
	raw, err := os.ReadFile(name)
	require.NoError(t, err)
	var m struct {
		Features struct {
			AppHome struct {
				HomeTab     bool `yaml:"home_tab_enabled"`
				MessagesTab bool `yaml:"messages_tab_enabled"`
			} `yaml:"app_home"`
			SlashCommands []struct {
				Command string `yaml:"command"`
			} `yaml:"slash_commands"`
			Assistant struct {
				Description string `yaml:"assistant_description"`
				Prompts     []struct {
					Title   string `yaml:"title"`
					Message string `yaml:"message"`
				} `yaml:"suggested_prompts"`
			} `yaml:"assistant_view"`
		} `yaml:"features"`
		OAuth struct {
			Scopes struct {
				Bot []string `yaml:"bot"`
			} `yaml:"scopes"`
		} `yaml:"oauth_config"`
		Settings struct {
			Events struct {
				Bot []string `yaml:"bot_events"`
			} `yaml:"event_subscriptions"`
			Interactivity struct {
				Enabled bool `yaml:"is_enabled"`
			} `yaml:"interactivity"`
			SocketMode bool `yaml:"socket_mode_enabled"`
		} `yaml:"settings"`
	}
	require.NoError(t, yaml.Unmarshal(raw, &m))
	require.Equal(t, socketMode, m.Settings.SocketMode)
	require.True(t, m.Settings.Interactivity.Enabled, "buttons")
	require.True(t, m.Features.AppHome.HomeTab)
	require.True(t, m.Features.AppHome.MessagesTab, "DMs")
	require.Len(t, m.Features.SlashCommands, 1)
	require.Equal(t, "/mnemo", m.Features.SlashCommands[0].Command)
	// Group DMs (mpim) are handled as private places, so their events and
	// scopes are asked for too.
	require.ElementsMatch(t, []string{"app_mention", "app_home_opened", "assistant_thread_started", "assistant_thread_context_changed", "message.channels", "message.groups", "message.im", "message.mpim", "user_change", "app_uninstalled", "tokens_revoked", "team_access_revoked", "team_access_granted"}, m.Settings.Events.Bot)
	// The assistant container: described, with prompts Slack shows before
	// the app sets its own (at most four).
	require.NotEmpty(t, m.Features.Assistant.Description)
	require.NotEmpty(t, m.Features.Assistant.Prompts)
	require.LessOrEqual(t, len(m.Features.Assistant.Prompts), 4)
	for _, p := range m.Features.Assistant.Prompts {
		require.NotEmpty(t, p.Title)
		require.NotEmpty(t, p.Message)
	}

	// Only the scopes the bot uses: each one is justified by a call it makes.
	needed := map[string]string{
		"app_mentions:read": "app_mention", "channels:history": "message.channels", "groups:history": "message.groups",
		"im:history": "message.im", "channels:read": "conversations.info", "groups:read": "conversations.info",
		"im:read": "conversations.info", "im:write": "conversations.open", "mpim:history": "message.mpim", "mpim:read": "conversations.info", "chat:write": "chat.postMessage",
		"reactions:write": "reactions.add", "users:read": "users.info", "commands": "/mnemo", "files:write": "files.uploadV2",
		"assistant:write": "assistant.threads.setStatus",
	}
	require.Len(t, m.OAuth.Scopes.Bot, len(needed))
	require.Equal(t, m.OAuth.Scopes.Bot, BotScopes(), "the OAuth install asks for the manifest's scopes")
	for _, s := range m.OAuth.Scopes.Bot {
		require.Contains(t, needed, s, "scope %s is not needed", s)
	}
}

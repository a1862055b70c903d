package slackapp

import (
	_ "embed"
	"strings"

	"go.yaml.in/yaml/v3"
)

//go:embed manifest.yaml
var manifest []byte

// BotScopes are the bot scopes the manifest asks for: what the OAuth
// install asks a workspace to grant.
func BotScopes() []string {
	var m struct {
		OAuth struct {
			Scopes struct {
				Bot []string `yaml:"bot"`
			} `yaml:"scopes"`
		} `yaml:"oauth_config"`
	}
	if err := yaml.Unmarshal(manifest, &m); err != nil {
		panic("slackapp: manifest.yaml: " + err.Error()) // embedded, and TestManifest reads it
	}
	out := make([]string, 0, len(m.OAuth.Scopes.Bot))
	for _, s := range m.OAuth.Scopes.Bot {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

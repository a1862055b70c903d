package main

import (
	"net/http"
	"time"

	"github.com/rs/zerolog"
	"github.com/slack-go/slack"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/install"
	"github.com/mnemo-bot/mnemo/slackapp"
)

// installations wires the workspaces' bots: with SLACK_CLIENT_ID, each
// workspace's installation (and the OAuth install flow that makes them);
// without, SLACK_BOT_TOKEN's bot alone, set by the app's auth.test.
func installations(cfg Config, d *db.DB, newClient func(string) *slack.Client, log zerolog.Logger) (*install.Clients, *install.OAuth, error) {
	clients := &install.Clients{NewClient: newClient}
	if !cfg.MultiWorkspace() {
		return clients, nil, nil
	}
	keys, err := install.ParseKeyring(string(cfg.EncryptionKey))
	if err != nil {
		return nil, nil, err // LoadConfig checked it
	}
	clients.Store, clients.Keyring = d, keys
	oauth := &install.OAuth{
		ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, Scopes: slackapp.BotScopes(),
		APIURL: string(cfg.SlackAPIURL), AuthorizeURL: string(cfg.AuthorizeURL), RedirectURL: string(cfg.RedirectURL),
		Keyring: keys, DB: d, HTTPClient: &http.Client{Timeout: slackHTTPTimeout}, NewClient: newClient,
		Installed: clients.Forget, Logger: log.With().Str("component", "oauth").Logger(),
	}
	return clients, oauth, nil
}

// mountInstall serves the install flow (/slack/install,
// /slack/oauth_redirect) on one of serve's HTTP listeners: Slack's own in
// http mode, the operator server in socket mode. Slack and the people
// installing must reach it: put those two paths behind the public ingress.
func mountInstall(srv interface{ Handle(string, http.Handler) }, oauth http.Handler) {
	srv.Handle("GET "+install.InstallPath, oauth)
	srv.Handle("GET "+install.RedirectPath, oauth)
}

// teamEraseTimeout bounds `mnemo teams erase`.
const teamEraseTimeout = 10 * time.Minute

package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"text/tabwriter"
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

const installsUsage = `usage: mnemo installs

Lists the app's installations: each workspace's own, and each Enterprise
Grid organisation's org-wide one with the workspaces it has served. A
workspace with an installation of its own is served by it, not by its
organisation's. Disabled installations (uninstalled, or tokens revoked) say
when and why; their data is erased after MNEMO_RETENTION_UNINSTALLED. So is
the data of a workspace an org admin removed the org-wide installation from
(team_access_revoked): it is listed as no longer served, with when, and
when its data is erased, unless an installation of its own serves it.
`

func cmdInstalls(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	if _, err := newFlagSet("installs", installsUsage, stdout).parse(args, 0); err != nil {
		return err
	}
	cfg, err := LoadConfig(getenv, "installs")
	if err != nil {
		return err
	}
	d, err := openDB(ctx, string(cfg.DatabaseURL))
	if err != nil {
		return err
	}
	defer d.Close()
	all, err := d.Installations().List(ctx)
	if err != nil {
		return err
	}
	if len(all) == 0 {
		fmt.Fprintln(stdout, "No installations.")
		return nil
	}
	ownActive := map[string]bool{}
	for _, inst := range all {
		if inst.Team != "" && inst.Active() {
			ownActive[inst.Team] = true
		}
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "LEVEL\tID\tENTERPRISE\tINSTALLED\tSTATUS\tSERVES")
	for _, inst := range all {
		level, id, serves := "workspace", inst.Team, inst.Team
		if inst.Team == "" {
			teams, err := d.Installations().OrgTeams(ctx, inst.Enterprise)
			if err != nil {
				return err
			}
			level, id = "organisation", inst.Enterprise
			serves = orgServes(teams, ownActive, cfg.RetentionUninstalled())
		}
		status := "active"
		if !inst.Active() {
			status = "disabled " + inst.DisabledAt.UTC().Format(time.DateTime) + " (" + inst.DisabledWhy + ")"
		}
		ent := inst.Enterprise
		if ent == "" {
			ent = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", level, id, ent, inst.InstalledAt.UTC().Format(time.DateTime), status, serves)
	}
	return tw.Flush()
}

// orgServes is what an org-wide installation serves: every workspace of
// its organisation, those it has served so far by name, and those an org
// admin removed it from (team_access_revoked), with when, and when their
// data is erased (as DisabledBefore finds them: retention after the
// removal, unless an active installation of their own serves them).
func orgServes(teams []db.OrgTeam, ownActive map[string]bool, retention time.Duration) string {
	var served, removed []string
	for _, t := range teams {
		if t.RevokedAt == nil {
			served = append(served, t.Team)
			continue
		}
		at := t.RevokedAt.UTC()
		note := "removed " + at.Format(time.DateTime)
		switch {
		case ownActive[t.Team]:
			note += ", served by its own installation"
		case retention > 0:
			note += ", data erased after " + at.Add(retention).Format(time.DateTime)
		default:
			note += ", data kept (MNEMO_RETENTION_UNINSTALLED is 0)"
		}
		removed = append(removed, t.Team+" ("+note+")")
	}
	serves := "every workspace of the organisation"
	if len(served) > 0 {
		serves += "; so far " + strings.Join(served, ", ")
	}
	if len(removed) > 0 {
		serves += "; no longer " + strings.Join(removed, ", ")
	}
	return serves
}

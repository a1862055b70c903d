package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"strings"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/install"
)

const teamsUsage = `usage: mnemo teams erase --by OPERATOR T…|E…

Erases everything mnemo holds of one workspace: its memories with their
history, conversation logs, turns, settings, inbox, jobs, the admin record
and its installation with the bot token. It is one transaction and can't be
undone. The erasure is recorded (who, when, rows by table) in the admin
record of that team, which is then all that is left of it. A serve running
stops serving the workspace as the erasure commits; a post of it that
arrives while the erasure runs is refused (Slack delivers it again, and
then it is dropped). serve erases a workspace by itself
MNEMO_RETENTION_UNINSTALLED after the app is uninstalled.

An enterprise id (E…) erases an organisation's org-wide installation: each
workspace it served that has no active installation of its own, as above,
then its record of the workspaces it served and its installation with the
bot token. The erasure is recorded in the admin record under the
enterprise id.
`

const keysUsage = `usage: mnemo keys rotate

Seals every installed workspace's bot token again under the current key:
the first of MNEMO_ENCRYPTION_KEY. To rotate, put a new key first
(new:base64,old:base64), restart serve, run mnemo keys rotate, then drop
the old key. Tokens already under the current key are left as they are.
`

func cmdTeams(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	_, rest, err := subcommand(newFlagSet("teams", teamsUsage, stdout), args, "", "erase")
	if err != nil {
		return err
	}
	fs := newFlagSet("teams erase", teamsUsage, stdout)
	by := fs.String("by", "", "who erases (recorded), e.g. your name or ticket")
	rest, err = fs.parse(rest, 1)
	if err != nil {
		return err
	}
	if len(rest) != 1 || !(validTeamID(rest[0]) || validEnterpriseID(rest[0])) {
		return argsError{"name one team id (T…) or enterprise id (E…)", "teams erase"}
	}
	if strings.TrimSpace(*by) == "" {
		return argsError{"--by is required: the erasure is recorded with who ran it", "teams erase"}
	}
	cfg, err := LoadConfig(getenv, "teams")
	if err != nil {
		return err
	}
	d, err := openDB(ctx, string(cfg.DatabaseURL))
	if err != nil {
		return err
	}
	defer d.Close()
	ctx, cancel := context.WithTimeout(ctx, teamEraseTimeout)
	defer cancel()
	team := rest[0]
	if validEnterpriseID(team) {
		return eraseOrganisation(ctx, d, team, *by, stdout)
	}
	r, err := d.EraseTeam(ctx, team)
	if err != nil {
		return err
	}
	var lines []string
	for _, l := range r {
		lines = append(lines, fmt.Sprintf("%s: %d %s", l.Table, l.Rows, l.Action))
	}
	if err := d.Audit().Record(ctx, db.AuditEntry{Team: team, ActorID: "operator:" + *by, Action: db.AuditEraseTeam, Target: team, Detail: strings.Join(lines, "; ")}); err != nil {
		return fmt.Errorf("erased, but the record of it failed: %w", err)
	}
	fmt.Fprintf(stdout, "Erased team %s (%d rows):\n  %s\n", team, r.Total(), strings.Join(lines, "\n  "))
	return nil
}

// eraseOrganisation is `mnemo teams erase E…`.
func eraseOrganisation(ctx context.Context, d *db.DB, org, by string, stdout io.Writer) error {
	teams, r, err := d.EraseOrganisation(ctx, org)
	for _, team := range teams {
		if aerr := d.Audit().Record(ctx, db.AuditEntry{Team: team, ActorID: "operator:" + by, Action: db.AuditEraseTeam, Target: team, Detail: "with its organisation " + org}); aerr != nil {
			return errors.Join(err, fmt.Errorf("erased %s, but the record of it failed: %w", team, aerr))
		}
	}
	if err != nil {
		return err
	}
	var lines []string
	for _, l := range r {
		lines = append(lines, fmt.Sprintf("%s: %d %s", l.Table, l.Rows, l.Action))
	}
	detail := fmt.Sprintf("workspaces erased: %d (%s); %s", len(teams), strings.Join(teams, ", "), strings.Join(lines, "; "))
	if err := d.Audit().Record(ctx, db.AuditEntry{Team: org, ActorID: "operator:" + by, Action: db.AuditEraseTeam, Target: org, Detail: detail}); err != nil {
		return fmt.Errorf("erased, but the record of it failed: %w", err)
	}
	fmt.Fprintf(stdout, "Erased organisation %s: %d workspaces (%s)\n  %s\n", org, len(teams), strings.Join(teams, ", "), strings.Join(lines, "\n  "))
	return nil
}

func cmdKeys(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	_, rest, err := subcommand(newFlagSet("keys", keysUsage, stdout), args, "", "rotate")
	if err != nil {
		return err
	}
	if _, err := newFlagSet("keys rotate", keysUsage, stdout).parse(rest, 0); err != nil {
		return err
	}
	cfg, err := LoadConfig(getenv, "keys")
	if err != nil {
		return err
	}
	if cfg.EncryptionKey == "" {
		return errors.New("MNEMO_ENCRYPTION_KEY is not set: the key the tokens are sealed with")
	}
	keys, err := install.ParseKeyring(string(cfg.EncryptionKey))
	if err != nil {
		return err
	}
	d, err := openDB(ctx, string(cfg.DatabaseURL))
	if err != nil {
		return err
	}
	defer d.Close()
	n, kept, err := rotate(ctx, d, keys)
	fmt.Fprintf(stdout, "%d tokens sealed again under key %q; %d already were\n", n, keys.Current(), kept)
	return err
}

// rotate seals every installation's token under the current key. A token
// whose key is gone from the keyring is an error, named, and the others
// are still rotated.
func rotate(ctx context.Context, d *db.DB, keys *install.Keyring) (rotated, kept int, err error) {
	all, err := d.Installations().List(ctx)
	if err != nil {
		return 0, 0, err
	}
	var errs []error
	for _, inst := range all {
		if inst.Token.KeyID == keys.Current() {
			kept++
			continue
		}
		owner := inst.Team
		if owner == "" {
			owner = inst.Enterprise
		}
		token, err := keys.Open(owner, inst.Token)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		sealed, err := keys.Seal(owner, token)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		ok, err := d.Installations().Reseal(ctx, inst, inst.Token, sealed)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if ok {
			rotated++
		}
	}
	return rotated, kept, errors.Join(errs...)
}

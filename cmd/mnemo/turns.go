package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"

	"github.com/mnemo-bot/mnemo/agent"
	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
)

const turnsUsage = `usage: mnemo turns show --as U <turn id | message permalink>

Shows one turn: its timeline, the memories it recalled (with provenance and
score), the tools it called, its tokens and estimated cost, and its errors.
--as names you, an admin listed in MNEMO_ADMINS: a recalled memory's text is
shown only where you could see it in the turn's place, or, with
MNEMO_ADMIN_OVERSIGHT=true, through your oversight, which is recorded in the
admin audit.
`

// permalink is a Slack message link: …/archives/<channel>/p<ts without the dot>.
var permalink = regexp.MustCompile(`/archives/([CDG][A-Z0-9]+)/p(\d{10})(\d{6})`)

func cmdTurns(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	_, rest, err := subcommand(newFlagSet("turns", turnsUsage, stdout), args, "", "show")
	if err != nil {
		return err
	}
	fs := newFlagSet("turns show", turnsUsage, stdout)
	as := fs.String("as", "", "your Slack user id, listed in MNEMO_ADMINS")
	pos, err := fs.parse(rest, 1)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return argsError{"give one turn id or message permalink", "turns show"}
	}
	cfg, err := LoadConfig(getenv, "turns")
	if err != nil {
		return err
	}
	if *as == "" || !slices.Contains(cfg.Admins, *as) {
		return argsError{"--as must name you, an admin listed in MNEMO_ADMINS", "turns show"}
	}
	d, err := openDB(ctx, string(cfg.DatabaseURL))
	if err != nil {
		return err
	}
	defer d.Close()
	t, err := findTurn(ctx, d, pos[0])
	if err != nil {
		return err
	}
	actor := provenance.Actor{Kind: provenance.KindUser, Team: t.Place.Team, ID: *as, IsAdmin: true}
	// What an admin may see in the turn's place, shown to them alone. The
	// command line can't tell who is in a DM, a group DM or a private
	// channel, so an admin is placed in one only for their own turns: of
	// anyone else's turn there, they see what they would from nowhere in
	// the workspace, and the rest only by oversight, audited. (The Inspect
	// shortcut is used on a message its admin can see, so it keeps the
	// place.)
	place := t.Place
	if place.Visibility != provenance.Public && t.ActorID != *as {
		place = provenance.Place{Team: t.Place.Team, Org: t.Place.Org}
	}
	v := memory.Viewer{Actor: actor, Place: place, Private: true, Oversight: bool(cfg.AdminOversight)}
	in, err := agent.Inspect(ctx, d, memory.New(d, memory.Options{}), agent.InspectRequest{TurnID: t.ID, Viewer: v, Prices: cfg.Prices.Prices})
	if err != nil {
		return err
	}
	if in.Overseen > 0 {
		if err := d.Audit().Record(ctx, db.AuditEntry{Team: t.Place.Team, ActorID: *as, Action: db.AuditInspect, Target: strconv.FormatInt(t.ID, 10),
			Detail: fmt.Sprintf("mnemo turns show: %d memories shown through oversight", in.Overseen)}); err != nil {
			return err
		}
	}
	_, err = fmt.Fprint(stdout, in.Text)
	return err
}

// findTurn reads a turn id or a message permalink.
func findTurn(ctx context.Context, d *db.DB, ref string) (db.Turn, error) {
	if id, err := strconv.ParseInt(ref, 10, 64); err == nil {
		t, err := d.Turns().Get(ctx, id)
		if errors.Is(err, db.ErrNotFound) {
			return t, fmt.Errorf("no turn %d", id)
		}
		return t, err
	}
	m := permalink.FindStringSubmatch(ref)
	if m == nil {
		return db.Turn{}, argsError{fmt.Sprintf("%q is neither a turn id nor a Slack message permalink (…/archives/C…/p…)", ref), "turns show"}
	}
	t, err := d.Turns().ByMessage(ctx, m[1], m[2]+"."+m[3])
	if errors.Is(err, db.ErrNotFound) {
		return t, fmt.Errorf("no turn answers or replied with the message %s", ref)
	}
	return t, err
}

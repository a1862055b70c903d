package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/mnemo-bot/mnemo/db"
)

const migrateUsage = `usage: mnemo migrate [up | status | down-to VERSION]

Manages the database schema (DATABASE_URL) with goose:
  up               apply every pending migration, mnemo's and then River's (the
                   job queue's); the default, and what serve does as it starts
  status           list mnemo's migrations, applied or pending, and River's version
  down-to VERSION  roll mnemo's migrations back until VERSION is the newest
                   applied; 0 rolls back all of them. River's stay applied.
`

func cmdMigrate(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	sub, rest, err := subcommand(newFlagSet("migrate", migrateUsage, stdout), args, "up", "up", "status", "down-to")
	if err != nil {
		return err
	}
	var target int64
	switch sub {
	case "down-to":
		fs := newFlagSet("migrate down-to", "usage: mnemo migrate down-to VERSION\n\nRolls mnemo's migrations back until VERSION is the newest applied (0: all).\n", stdout)
		pos, err := fs.parse(rest, 1)
		if err != nil {
			return err
		}
		if len(pos) == 0 {
			return argsError{"down-to needs the VERSION to roll back to (see mnemo migrate status)", "migrate down-to"}
		}
		if target, err = strconv.ParseInt(pos[0], 10, 64); err != nil || target < 0 {
			return argsError{fmt.Sprintf("VERSION must be a migration's number, like 2, not %q", pos[0]), "migrate down-to"}
		}
	default:
		fs := newFlagSet("migrate "+sub, migrateUsage, stdout)
		if _, err := fs.parse(rest, 0); err != nil {
			return err
		}
	}
	cfg, err := LoadConfig(getenv, "migrate")
	if err != nil {
		return err
	}
	d, err := db.Open(ctx, string(cfg.DatabaseURL), 0)
	if err != nil {
		return err
	}
	defer d.Close()
	switch sub {
	case "status":
		st, err := d.Status(ctx)
		if err != nil {
			return err
		}
		return printMigrationStatus(stdout, st)
	case "down-to":
		down, err := d.MigrateDownTo(ctx, target)
		for _, v := range down {
			fmt.Fprintf(stdout, "rolled back: %d\n", v)
		}
		if err != nil {
			return err
		}
		if len(down) == 0 {
			fmt.Fprintf(stdout, "nothing to roll back: no migration after %d is applied\n", target)
		}
		return nil
	}
	n, err := d.Migrate(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "migrations applied: %d\n", n)
	return nil
}

func printMigrationStatus(w io.Writer, st db.MigrationStatus) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "VERSION\tSTATE\tAPPLIED AT\tMIGRATION")
	pending := 0
	for _, m := range st.Migrations {
		state, at := "pending", "-"
		if m.Applied {
			state, at = "applied", m.AppliedAt.UTC().Format("2006-01-02 15:04:05Z")
		} else {
			pending++
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", m.Version, state, at, m.Name)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%d applied, %d pending; River's schema: version %d of %d\n", len(st.Migrations)-pending, pending, st.River, st.RiverLatest)
	return nil
}

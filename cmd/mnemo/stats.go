package main

import (
	"context"
	"fmt"
	"io"
	"time"

	turnusage "github.com/mnemo-bot/mnemo/usage"
)

const statsUsage = `usage: mnemo stats --team T [--person U] [--days N]

Prints model usage per UTC day for a workspace (team id T…), with its top
channels and people, or for one person with --person; with MNEMO_PRICES,
an estimated cost. It reads the database and never changes it.
`

func cmdStats(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	fs := newFlagSet("stats", statsUsage, stdout)
	team := fs.String("team", "", "the workspace's team id (T…)")
	person := fs.String("person", "", "only this person's usage (a Slack user id)")
	days := fs.Int("days", 7, "how many days back, today included")
	if _, err := fs.parse(args, 0); err != nil {
		return err
	}
	if *team == "" {
		return argsError{"--team is required: the workspace's team id (T…)", "stats"}
	}
	if *days < 1 || *days > 366 {
		return argsError{"--days must be from 1 to 366", "stats"}
	}
	cfg, err := LoadConfig(getenv, "stats")
	if err != nil {
		return err
	}
	d, err := openDB(ctx, string(cfg.DatabaseURL))
	if err != nil {
		return err
	}
	defer d.Close()
	report, err := turnusage.Report(ctx, d, cfg.Prices.Prices, turnusage.ReportRequest{Team: *team, Person: *person, All: *person == "", Days: *days, Now: time.Now()})
	if err != nil {
		return err
	}
	_, err = fmt.Fprint(stdout, report)
	return err
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mnemo-bot/mnemo/memory"
)

const memoriesUsage = `usage: mnemo memories list [--json | --table] [--user U] [--source-key K] [--all]

Prints memories, newest first: as JSON (the default; id, content, kind,
scope, subject, sourceKey, visibility, who wrote it and how, when, its
expiry and whether it is archived), or with --table as a table for reading
in a terminal. It reads the database and never changes it: on a database
that is not migrated it says to run mnemo migrate.
`

// listLimit is the most memories one list prints; more are said to exist,
// never cut off silently.
const listLimit = 10000

// memoryJSON is one memory as `mnemo memories list --json` prints it.
type memoryJSON struct {
	ID             string     `json:"id"`
	Content        string     `json:"content"`
	Kind           string     `json:"kind"`
	Scope          string     `json:"scope"`
	SubjectType    string     `json:"subjectType"`
	SubjectID      string     `json:"subjectId"`
	SourceKey      string     `json:"sourceKey"`
	Visibility     string     `json:"visibility"`
	ActorID        string     `json:"actorId"`
	WrittenBy      string     `json:"writtenBy"`
	CreatedAt      time.Time  `json:"createdAt"`
	ExpiresAt      *time.Time `json:"expiresAt"`
	ArchivedAt     *time.Time `json:"archivedAt"`
	ArchivedReason string     `json:"archivedReason,omitempty"`
}

func cmdMemories(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	_, rest, err := subcommand(newFlagSet("memories", memoriesUsage, stdout), args, "", "list")
	if err != nil {
		return err
	}
	fs := newFlagSet("memories list", memoriesUsage, stdout)
	asJSON := fs.Bool("json", false, "print JSON (the default)")
	asTable := fs.Bool("table", false, "print a table, for reading in a terminal")
	user := fs.String("user", "", "only personal memories of this Slack user id")
	sourceKey := fs.String("source-key", "", "only memories from this thread (slack:<team>:<channel>:<root_ts>)")
	all := fs.Bool("all", false, "include archived memories")
	if _, err := fs.parse(rest, 0); err != nil {
		return err
	}
	if *asJSON && *asTable {
		return argsError{"--json and --table are two formats: pass one", "memories list"}
	}
	cfg, err := LoadConfig(getenv, "memories")
	if err != nil {
		return err
	}
	d, err := openDB(ctx, string(cfg.DatabaseURL))
	if err != nil {
		return err
	}
	defer d.Close()
	store := memory.New(d, memory.Options{})
	ms, err := store.ListAll(ctx, memory.Filter{SubjectUser: *user, SourceKey: *sourceKey, IncludeArchived: *all, Limit: listLimit + 1})
	if err != nil {
		return err
	}
	if len(ms) > listLimit {
		ms = ms[:listLimit]
		fmt.Fprintf(stderr, "mnemo memories list: more than %d memories match; the newest %d are printed. Narrow the list with --user or --source-key.\n", listLimit, listLimit)
	}
	if *asTable {
		return printMemoryTable(stdout, ms)
	}
	out := make([]memoryJSON, 0, len(ms))
	for _, m := range ms {
		out = append(out, memoryJSON{
			ID: m.ID.String(), Content: m.Content, Kind: string(m.Kind), Scope: string(m.Scope),
			SubjectType: string(m.SubjectType), SubjectID: m.SubjectID, SourceKey: m.SourceKey, Visibility: string(m.Visibility),
			ActorID: m.ActorID, WrittenBy: string(m.WrittenBy), CreatedAt: m.CreatedAt, ExpiresAt: m.ExpiresAt,
			ArchivedAt: m.ArchivedAt, ArchivedReason: m.ArchivedReason,
		})
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// printMemoryTable prints memories one a line, their content on one line
// and cut to fit a terminal.
func printMemoryTable(w io.Writer, ms []memory.Memory) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSCOPE\tSUBJECT\tKIND\tCREATED\tSTATE\tCONTENT")
	for _, m := range ms {
		state := "active"
		if m.ArchivedAt != nil {
			state = "archived"
		}
		subject := string(m.SubjectType)
		if m.SubjectID != "" {
			subject += ":" + m.SubjectID
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", m.ID, m.Scope, subject, m.Kind, m.CreatedAt.UTC().Format("2006-01-02 15:04"), state, oneLine(m.Content, 80))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	noun := "memories"
	if len(ms) == 1 {
		noun = "memory"
	}
	_, err := fmt.Fprintf(w, "%d %s\n", len(ms), noun)
	return err
}

// oneLine is s on one line, cut to at most n characters.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

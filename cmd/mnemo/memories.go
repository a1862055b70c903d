package main

import (
	"context"
	"encoding/json"
	"io"
	"time"

	"github.com/rs/zerolog"

	"github.com/mnemo-bot/mnemo/memory"
)

const memoriesUsage = `usage: mnemo memories list --json [--user U] [--source-key K] [--all]

Prints memories as JSON: id, content, kind, scope, subject, sourceKey,
visibility, who wrote it and how, when, its expiry and whether it is archived.
`

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
	asJSON := fs.Bool("json", false, "print JSON (required: JSON is the only format)")
	user := fs.String("user", "", "only personal memories of this Slack user id")
	sourceKey := fs.String("source-key", "", "only memories from this thread (slack:<team>:<channel>:<root_ts>)")
	all := fs.Bool("all", false, "include archived memories")
	if _, err := fs.parse(rest, 0); err != nil {
		return err
	}
	if !*asJSON {
		return argsError{"memories list prints JSON only: pass --json", "memories list"}
	}
	cfg, err := LoadConfig(getenv, commandNeeds["memories"])
	if err != nil {
		return err
	}
	d, err := openDB(ctx, cfg.DatabaseURL, zerolog.Nop())
	if err != nil {
		return err
	}
	defer d.Close()
	store := memory.New(d, memory.Options{})
	ms, err := store.ListAll(ctx, memory.Filter{SubjectUser: *user, SourceKey: *sourceKey, IncludeArchived: *all, Limit: 10000})
	if err != nil {
		return err
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

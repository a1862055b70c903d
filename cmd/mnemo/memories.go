package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/google/uuid"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
)

const memoriesUsage = `usage: mnemo memories <list | search | forget | restore | history | export> [flags]

An operator's view of mnemo's memories, without Slack:
  list      every memory the filters select, as the database holds it
  search    the memories you may see, as /mnemo memories shows them
  forget    forget (archive) one memory, as /mnemo forget does
  restore   bring an archived memory back (admin), as /mnemo restore does
  history   how a memory was created, changed and archived
  export    a person's memories, all of them, as /mnemo export sends them

search, forget, restore, history and export act as a Slack user (--as, or
MNEMO_OPERATOR) in one workspace (--team): they see and may do what that
person could in Slack, with admin rights when MNEMO_ADMINS lists them, and
each leaves a row in admin_audit. Output is JSON (the default) or, with
--table, a table for reading in a terminal. Lists have no cap: they print
every match, or --limit N of them and, on stderr, the --after cursor of the
next page. These commands never change the schema: on a database that is
not migrated they say to run mnemo migrate.

Run 'mnemo memories <command> -h' for a command's flags.
`

const listUsage = `usage: mnemo memories list [--json | --table] [--team T] [--user U] [--channel C] [--source-key K] [--all] [--limit N] [--after CURSOR]

Prints memories, newest first, whoever may see them: the database's own
view, for the operator who runs it. JSON (the default) has each memory's id,
content, kind, scope, subject, sourceKey, visibility, who wrote it and how,
when, its expiry and whether it is archived.
`

const searchUsage = `usage: mnemo memories search --as U --team T [--user U | --channel C] [--all] [--limit N] [--after CURSOR] [--json | --table] [QUERY…]

Prints, newest first, the memories matching QUERY (every one without a
query) that the operator may see, by the rule /mnemo memories follows: an
admin sees the workspace's, or one person's (--user) or one channel's
(--channel), except sensitive ones; anyone else sees only their own.
`

const forgetUsage = `usage: mnemo memories forget --as U --team T [--json | --table] ID

Forgets (archives) the memory ID or an unambiguous id prefix names, if the
operator may see it and may forget it, as /mnemo forget would let them.
`

const restoreUsage = `usage: mnemo memories restore --as U --team T [--json | --table] ID

Brings back an archived memory. Only an admin may. A memory an erasure
deleted (/mnemo purge) can't be brought back, and it says so.
`

const historyUsage = `usage: mnemo memories history --as U --team T [--json | --table] ID

Prints the memory and every change to it: who created, changed, archived or
restored it, through which surface, when and why.
`

const exportUsage = `usage: mnemo memories export --as U --team T [--user U]

Prints a person's memories as JSON, archived ones too: the operator's own
(their personal memories and the shared ones they wrote), or with --user
another person's personal memories (admin).
`

// listPageSize is how many memories one database read takes while a list
// streams.
const listPageSize = 500

// memoryJSON is one memory as `mnemo memories` prints it.
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

func toJSON(m memory.Memory) memoryJSON {
	return memoryJSON{
		ID: m.ID.String(), Content: m.Content, Kind: string(m.Kind), Scope: string(m.Scope),
		SubjectType: string(m.SubjectType), SubjectID: m.SubjectID, SourceKey: m.SourceKey, Visibility: string(m.Visibility),
		ActorID: m.ActorID, WrittenBy: string(m.WrittenBy), CreatedAt: m.CreatedAt, ExpiresAt: m.ExpiresAt,
		ArchivedAt: m.ArchivedAt, ArchivedReason: m.ArchivedReason,
	}
}

// memoriesCmd is one run of a `mnemo memories` subcommand.
type memoriesCmd struct {
	name           string // e.g. "memories search"
	getenv         func(string) string
	stdout, stderr io.Writer

	fs                      *flagSet
	asJSON, asTable         *bool
	as, team, user, channel *string
	all                     *bool
	limit                   *int
	after                   *string
}

func newMemoriesCmd(sub, usage string, getenv func(string) string, stdout, stderr io.Writer) *memoriesCmd {
	c := &memoriesCmd{name: "memories " + sub, getenv: getenv, stdout: stdout, stderr: stderr}
	c.fs = newFlagSet(c.name, usage, stdout)
	return c
}

func (c *memoriesCmd) formatFlags() {
	c.asJSON = c.fs.Bool("json", false, "print JSON (the default)")
	c.asTable = c.fs.Bool("table", false, "print a table, for reading in a terminal")
}

func (c *memoriesCmd) operatorFlags() {
	c.as = c.fs.String("as", "", "the Slack user id you act as (default $MNEMO_OPERATOR)")
	c.team = c.fs.String("team", "", "the Slack workspace id (T…)")
}

func (c *memoriesCmd) filterFlags(channel bool) {
	c.user = c.fs.String("user", "", "only personal memories of this Slack user id")
	if channel {
		c.channel = c.fs.String("channel", "", "only memories said in this channel id")
	}
}

func (c *memoriesCmd) pageFlags() {
	c.all = c.fs.Bool("all", false, "include archived memories")
	c.limit = c.fs.Int("limit", 0, "print at most N memories, then the cursor of the next page on stderr (default: all)")
	c.after = c.fs.String("after", "", "start after the memory this cursor names, printed by an earlier --limit")
}

func (c *memoriesCmd) argsErr(format string, args ...any) error {
	return argsError{fmt.Sprintf(format, args...), c.name}
}

// parse parses the flags and checks them before the database is opened.
func (c *memoriesCmd) parse(args []string, maxArgs int) ([]string, error) {
	rest, err := c.fs.parse(args, maxArgs)
	if err != nil {
		return nil, err
	}
	if c.asJSON != nil && *c.asJSON && *c.asTable {
		return nil, c.argsErr("--json and --table are two formats: pass one")
	}
	if c.limit != nil && *c.limit < 0 {
		return nil, c.argsErr("--limit must be 1 or more, not %d", *c.limit)
	}
	if c.channel != nil && *c.channel != "" && *c.user != "" {
		return nil, c.argsErr("--user and --channel select different memories (a person's, a channel's): pass one")
	}
	return rest, nil
}

func (c *memoriesCmd) table() bool { return c.asTable != nil && *c.asTable }

// cursor decodes --after.
func (c *memoriesCmd) cursor() (*memory.Cursor, error) {
	if *c.after == "" {
		return nil, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(*c.after)
	var raw struct {
		T  time.Time `json:"t"`
		ID uuid.UUID `json:"id"`
	}
	if err != nil || json.Unmarshal(b, &raw) != nil || raw.ID == uuid.Nil {
		return nil, c.argsErr("--after %q is not a cursor that mnemo memories printed", *c.after)
	}
	return &memory.Cursor{CreatedAt: raw.T, ID: raw.ID}, nil
}

func encodeCursor(cur memory.Cursor) string {
	b, _ := json.Marshal(map[string]any{"t": cur.CreatedAt, "id": cur.ID})
	return base64.RawURLEncoding.EncodeToString(b)
}

// session is an open database and the store on it.
type session struct {
	db    *db.DB
	store *memory.Store
	cfg   Config
}

func (c *memoriesCmd) open(ctx context.Context) (*session, error) {
	cfg, err := LoadConfig(c.getenv, "memories")
	if err != nil {
		return nil, err
	}
	d, err := openDB(ctx, string(cfg.DatabaseURL))
	if err != nil {
		return nil, err
	}
	return &session{db: d, store: memory.New(d, memory.Options{}), cfg: cfg}, nil
}

func (s *session) Close() { s.db.Close() }

// operator is the viewer the command acts as: the Slack user --as names,
// in --team, an admin when MNEMO_ADMINS lists them, seeing the answer
// alone (as an ephemeral /mnemo answer), from no channel.
func (c *memoriesCmd) operator(s *session) (memory.Viewer, error) {
	as := *c.as
	if as == "" {
		as = string(s.cfg.Operator)
	}
	switch {
	case as == "":
		return memory.Viewer{}, c.argsErr("say who you act as: --as U… or MNEMO_OPERATOR, a Slack user id (admins are listed in MNEMO_ADMINS)")
	case !validUserID(as):
		return memory.Viewer{}, c.argsErr("--as %q is not a Slack user id (U… or W…)", as)
	case *c.team == "":
		return memory.Viewer{}, c.argsErr("--team is required: the Slack workspace id (T…) the memories belong to")
	}
	actor := provenance.Actor{Kind: provenance.KindUser, Team: *c.team, ID: as, IsAdmin: slices.Contains(s.cfg.Admins, as)}
	return memory.Viewer{Actor: actor, Place: provenance.Place{Team: *c.team}, Private: true}, nil
}

// audit records one operator action; an action that can't be recorded
// fails the command.
func (s *session) audit(ctx context.Context, v memory.Viewer, action db.AuditAction, target, detail string) error {
	err := s.db.Audit().Record(ctx, db.AuditEntry{Team: v.Actor.Team, ActorID: v.Actor.ID, Action: action, Target: target, Detail: strings.TrimSpace("cli " + detail)})
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	return nil
}

// errNotAdmin is an operator's request that only an admin may make.
func errNotAdmin(what string) error {
	return fmt.Errorf("only an admin can %s: add your id to MNEMO_ADMINS", what)
}

func cmdMemories(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	sub, rest, err := subcommand(newFlagSet("memories", memoriesUsage, stdout), args, "", "list", "search", "forget", "restore", "history", "export")
	if err != nil {
		return err
	}
	switch sub {
	case "list":
		return memoriesList(ctx, newMemoriesCmd(sub, listUsage, getenv, stdout, stderr), rest)
	case "search":
		return memoriesSearch(ctx, newMemoriesCmd(sub, searchUsage, getenv, stdout, stderr), rest)
	case "forget", "restore":
		usage := forgetUsage
		if sub == "restore" {
			usage = restoreUsage
		}
		return memoriesChange(ctx, newMemoriesCmd(sub, usage, getenv, stdout, stderr), rest)
	case "history":
		return memoriesHistory(ctx, newMemoriesCmd(sub, historyUsage, getenv, stdout, stderr), rest)
	default:
		return memoriesExport(ctx, newMemoriesCmd(sub, exportUsage, getenv, stdout, stderr), rest)
	}
}

func memoriesList(ctx context.Context, c *memoriesCmd, args []string) error {
	c.formatFlags()
	c.team = c.fs.String("team", "", "only memories of this Slack workspace id")
	c.filterFlags(true)
	sourceKey := c.fs.String("source-key", "", "only memories from this thread (slack:<team>:<channel>:<root_ts>)")
	c.pageFlags()
	if _, err := c.parse(args, 0); err != nil {
		return err
	}
	after, err := c.cursor()
	if err != nil {
		return err
	}
	s, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	f := memory.Filter{Team: *c.team, SubjectUser: *c.user, Channel: *c.channel, SourceKey: *sourceKey, IncludeArchived: *c.all, After: after}
	_, err = c.stream(ctx, f, func(f memory.Filter) (memory.Page, error) { return s.store.ListAllPage(ctx, f) })
	return err
}

func memoriesSearch(ctx context.Context, c *memoriesCmd, args []string) error {
	c.formatFlags()
	c.operatorFlags()
	c.filterFlags(true)
	c.pageFlags()
	query, err := c.parse(args, -1)
	if err != nil {
		return err
	}
	after, err := c.cursor()
	if err != nil {
		return err
	}
	s, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	v, err := c.operator(s)
	if err != nil {
		return err
	}
	// As /mnemo memories: an admin oversees anyone's and any channel's;
	// anyone else lists their own.
	f := memory.Filter{Team: *c.team, SubjectUser: *c.user, Channel: *c.channel, Query: strings.Join(query, " "), IncludeArchived: *c.all, After: after}
	target := "" // the whole workspace, team_id's
	switch {
	case v.Actor.IsAdmin:
		v.Oversight = f.SubjectUser != v.Actor.ID
	case f.Channel != "" || (f.SubjectUser != "" && f.SubjectUser != v.Actor.ID):
		return errNotAdmin("see someone else's or a channel's memories")
	default:
		f.SubjectUser = v.Actor.ID
	}
	// The target is the bare id, as erasure finds it.
	if f.SubjectUser != "" {
		target = f.SubjectUser
	} else if f.Channel != "" {
		target = f.Channel
	}
	// The row is written before anything is shown: nothing is read off
	// the record.
	if err := s.audit(ctx, v, db.AuditSearch, target, ""); err != nil {
		return err
	}
	_, err = c.stream(ctx, f, func(f memory.Filter) (memory.Page, error) { return s.store.ListPage(ctx, v, f) })
	return err
}

// stream prints the pages fetch returns from f on, up to --limit
// memories, as one JSON array or one table, and says on stderr where the
// next page starts when --limit stopped it.
func (c *memoriesCmd) stream(ctx context.Context, f memory.Filter, fetch func(memory.Filter) (memory.Page, error)) (int, error) {
	return c.streamPages(ctx, f, listPageSize, fetch)
}

// streamPages is stream, reading pageSize memories at a time.
func (c *memoriesCmd) streamPages(ctx context.Context, f memory.Filter, pageSize int, fetch func(memory.Filter) (memory.Page, error)) (int, error) {
	out := newMemoryWriter(c.stdout, c.table())
	limit := *c.limit
	for {
		f.Limit = pageSize
		if limit > 0 {
			f.Limit = min(pageSize, limit-out.n)
		}
		p, err := fetch(f)
		if err != nil {
			return out.n, err
		}
		for _, m := range p.Memories {
			if err := out.write(m); err != nil {
				return out.n, err
			}
		}
		switch {
		case p.Next == nil:
			return out.n, out.close()
		case limit > 0 && out.n >= limit:
			if err := out.close(); err != nil {
				return out.n, err
			}
			fmt.Fprintf(c.stderr, "mnemo %s: more may match; the next page: --after %s\n", c.name, encodeCursor(*p.Next))
			return out.n, nil
		}
		if err := ctx.Err(); err != nil {
			return out.n, err
		}
		f.After = p.Next
	}
}

// memoryWriter prints memories one at a time, as a JSON array or a table.
type memoryWriter struct {
	w     io.Writer
	table *tabwriter.Writer
	n     int
}

func newMemoryWriter(w io.Writer, table bool) *memoryWriter {
	mw := &memoryWriter{w: w}
	if table {
		mw.table = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(mw.table, "ID\tSCOPE\tSUBJECT\tKIND\tCREATED\tSTATE\tCONTENT")
	}
	return mw
}

func (mw *memoryWriter) write(m memory.Memory) error {
	mw.n++
	if mw.table != nil {
		_, err := fmt.Fprintln(mw.table, tableRow(m))
		return err
	}
	b, err := json.MarshalIndent(toJSON(m), "  ", "  ")
	if err != nil {
		return err
	}
	sep := ",\n  "
	if mw.n == 1 {
		sep = "[\n  "
	}
	_, err = fmt.Fprintf(mw.w, "%s%s", sep, b)
	return err
}

func (mw *memoryWriter) close() error {
	if mw.table != nil {
		if err := mw.table.Flush(); err != nil {
			return err
		}
		_, err := fmt.Fprintln(mw.w, count(mw.n))
		return err
	}
	end := "\n]\n"
	if mw.n == 0 {
		end = "[]\n"
	}
	_, err := io.WriteString(mw.w, end)
	return err
}

func count(n int) string {
	if n == 1 {
		return "1 memory"
	}
	return fmt.Sprintf("%d memories", n)
}

// tableRow is a memory on one line, its content cut to fit a terminal.
func tableRow(m memory.Memory) string {
	state := "active"
	if m.ArchivedAt != nil {
		state = "archived"
	}
	subject := string(m.SubjectType)
	if m.SubjectID != "" {
		subject += ":" + m.SubjectID
	}
	return fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t%s\t%s", m.ID, m.Scope, subject, m.Kind, m.CreatedAt.UTC().Format("2006-01-02 15:04"), state, oneLine(m.Content, 80))
}

// memoriesChange is forget and restore: one memory, by id or id prefix.
func memoriesChange(ctx context.Context, c *memoriesCmd, args []string) error {
	s, v, ref, err := c.openOne(ctx, args)
	if err != nil {
		return err
	}
	defer s.Close()
	var (
		m      memory.Memory
		action db.AuditAction
		done   string
	)
	if c.name == "memories forget" {
		// As /mnemo forget: an admin may forget anyone's memory.
		v.Oversight = v.Actor.IsAdmin
		ms, err := s.store.Resolve(ctx, v, ref)
		switch {
		case errors.Is(err, memory.ErrNotFound):
			return fmt.Errorf("no memory you can see has the id %q", ref)
		case err != nil:
			return err
		case len(ms) > 1:
			return fmt.Errorf("%q names %d memories; give more of the id", ref, len(ms))
		case ms[0].ArchivedAt != nil:
			return fmt.Errorf("%s is already forgotten", ms[0].ID)
		}
		out, err := s.store.ForgetMemory(ctx, v, ms[0], "forgotten with mnemo memories forget", memory.PathCLI)
		switch {
		case err != nil:
			return err
		case out.Refusal != "":
			return fmt.Errorf("you can't forget %s: %s", ms[0].ID, out.Refusal)
		}
		m, action, done = *out.Forgotten, db.AuditForget, "Forgotten"
	} else {
		if !v.Actor.IsAdmin {
			return errNotAdmin("restore memories")
		}
		v.Oversight = true
		m, err = s.store.Restore(ctx, v, ref, memory.PathCLI)
		var erased *memory.ErasedError
		if errors.As(err, &erased) {
			return errors.New(erased.Sentence())
		}
		if err != nil {
			return err
		}
		action, done = db.AuditRestore, "Restored"
	}
	// The id, never the text.
	if err := s.audit(ctx, v, action, m.ID.String(), ""); err != nil {
		return fmt.Errorf("%s %s, but %w", strings.ToLower(done), m.ID, err)
	}
	if c.table() {
		_, err = fmt.Fprintf(c.stdout, "%s %s: %s\n", done, m.ID, oneLine(m.Content, 80))
		return err
	}
	return writeJSON(c.stdout, toJSON(m))
}

// openOne is forget's, restore's and history's start: the flags, the one
// memory's id or prefix, the database and the operator. The caller closes
// the session.
func (c *memoriesCmd) openOne(ctx context.Context, args []string) (*session, memory.Viewer, string, error) {
	c.formatFlags()
	c.operatorFlags()
	ref, err := c.oneID(args)
	if err != nil {
		return nil, memory.Viewer{}, "", err
	}
	s, err := c.open(ctx)
	if err != nil {
		return nil, memory.Viewer{}, "", err
	}
	v, err := c.operator(s)
	if err != nil {
		s.Close()
		return nil, memory.Viewer{}, "", err
	}
	return s, v, ref, nil
}

func (c *memoriesCmd) oneID(args []string) (string, error) {
	rest, err := c.parse(args, 1)
	if err != nil {
		return "", err
	}
	if len(rest) == 0 {
		return "", c.argsErr("say which memory: its id, or the first 8 characters of it")
	}
	return rest[0], nil
}

// eventJSON is one change in a memory's history.
type eventJSON struct {
	Action    string    `json:"action"`
	ActorID   string    `json:"actorId"`
	Path      string    `json:"path"`
	Reason    string    `json:"reason,omitempty"`
	RelatedID string    `json:"relatedId,omitempty"`
	At        time.Time `json:"at"`
}

func memoriesHistory(ctx context.Context, c *memoriesCmd, args []string) error {
	s, v, ref, err := c.openOne(ctx, args)
	if err != nil {
		return err
	}
	defer s.Close()
	v.Oversight = v.Actor.IsAdmin
	m, events, err := s.store.History(ctx, v, ref)
	if errors.Is(err, memory.ErrNotFound) {
		return fmt.Errorf("no memory you can see has the id %q", ref)
	}
	if err != nil {
		return err
	}
	if err := s.audit(ctx, v, db.AuditHistory, m.ID.String(), ""); err != nil {
		return err
	}
	out := struct {
		Memory memoryJSON  `json:"memory"`
		Events []eventJSON `json:"events"`
	}{Memory: toJSON(m), Events: []eventJSON{}}
	for _, e := range events {
		ej := eventJSON{Action: e.Action, ActorID: e.ActorID, Path: e.Path, Reason: e.Reason, At: e.At}
		if e.Related != nil {
			ej.RelatedID = e.Related.String()
		}
		out.Events = append(out.Events, ej)
	}
	if !c.table() {
		return writeJSON(c.stdout, out)
	}
	fmt.Fprintf(c.stdout, "%s (%s, %s): %s\n\n", m.ID, m.Scope, m.Kind, oneLine(m.Content, 80))
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "AT\tACTION\tBY\tPATH\tREASON")
	for _, e := range out.Events {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.At.UTC().Format("2006-01-02 15:04:05"), e.Action, e.ActorID, e.Path, oneLine(e.Reason, 60))
	}
	return tw.Flush()
}

func memoriesExport(ctx context.Context, c *memoriesCmd, args []string) error {
	c.operatorFlags()
	c.user = c.fs.String("user", "", "export this person's personal memories (admin; default: your own)")
	if _, err := c.parse(args, 0); err != nil {
		return err
	}
	s, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	v, err := c.operator(s)
	if err != nil {
		return err
	}
	user := *c.user
	if user == "" {
		user = v.Actor.ID
	}
	if user != v.Actor.ID {
		if !v.Actor.IsAdmin {
			return errNotAdmin("export someone else's memories")
		}
		v.Oversight = true
	}
	// Every page, by the rule /mnemo export follows: the person's personal
	// memories, and for one's own export the shared ones one wrote.
	ms := []memoryJSON{}
	f := memory.Filter{Team: *c.team, SubjectUser: user, IncludeArchived: true, Limit: listPageSize}
	for {
		p, err := s.store.ListPage(ctx, v, f)
		if err != nil {
			return err
		}
		for _, m := range p.Memories {
			ms = append(ms, toJSON(m))
		}
		if p.Next == nil {
			break
		}
		f.After = p.Next
	}
	if user == v.Actor.ID {
		for offset := 0; ; offset += listPageSize {
			page, err := s.store.Mine(ctx, v, memory.MineQuery{Authored: true, IncludeArchived: true, Limit: listPageSize, Offset: offset})
			if err != nil {
				return err
			}
			for _, m := range page {
				ms = append(ms, toJSON(m))
			}
			if len(page) < listPageSize {
				break
			}
		}
	}
	if err := s.audit(ctx, v, db.AuditExport, user, fmt.Sprintf("%d memories", len(ms))); err != nil {
		return err
	}
	return writeJSON(c.stdout, map[string]any{"user": user, "team": *c.team, "exportedAt": time.Now().UTC(), "memories": ms})
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// oneLine is s on one line, cut to at most n characters, with the
// characters a terminal would act on (escapes, bells, bidirectional
// overrides: db.Unsafe) written as Go escapes ("\x1b"). Stored text is
// sanitized; rows written before it was may still hold them.
func oneLine(s string, n int) string {
	var b strings.Builder
	for _, r := range strings.Join(strings.Fields(s), " ") {
		if db.Unsafe(r) {
			b.WriteString(strings.Trim(strconv.QuoteRuneToASCII(r), "'"))
			continue
		}
		b.WriteRune(r)
	}
	s = b.String()
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

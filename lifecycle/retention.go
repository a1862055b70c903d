package lifecycle

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/rs/zerolog"

	"github.com/mnemo-bot/mnemo/db"
)

// Retention is how long mnemo keeps each kind of data; zero keeps it for
// ever.
type Retention struct {
	// Conversations: the session log's messages and the turns.
	Conversations time.Duration
	// Inbox: posts delivered (moved into the job queue) and finished jobs.
	Inbox time.Duration
	// Forgotten: memories forgotten, superseded, expired or archived, with
	// their history, and the ids of memories an erasure deleted.
	Forgotten time.Duration
}

// Defaults are the retention periods when none is configured.
var Defaults = Retention{Conversations: 90 * Day, Inbox: 7 * Day, Forgotten: 30 * Day}

// Day is 24 hours.
const Day = 24 * time.Hour

// Setting is one retention period as people read it.
type Setting struct {
	What string
	Keep time.Duration // 0: for ever
}

// Settings lists the periods, in the order /mnemo stats shows them.
func (r Retention) Settings() []Setting {
	return []Setting{
		{"conversation logs and turns", r.Conversations},
		{"delivered inbox posts and finished jobs", r.Inbox},
		{"forgotten and superseded memories, with their history", r.Forgotten},
	}
}

// FormatKeep says a period in days when it is whole days.
func FormatKeep(d time.Duration) string {
	switch {
	case d == 0:
		return "for ever"
	case d%Day == 0:
		if d == Day {
			return "1 day"
		}
		return fmt.Sprintf("%d days", d/Day)
	}
	return d.String()
}

// tables is what each period applies to.
func (r Retention) tables() []struct {
	table string
	keep  time.Duration
} {
	return []struct {
		table string
		keep  time.Duration
	}{
		{db.TableSessionMessages, r.Conversations},
		{db.TableTurns, r.Conversations},
		{db.TableMemories, r.Forgotten},
		{db.TableInboxArrivals, r.Inbox},
		{db.TableJobs, r.Inbox},
		// An erased memory's id lives as long as the memory would have,
		// archived.
		{db.TableErasedMemories, r.Forgotten},
	}
}

// Observer is told how many rows retention deleted, by table. It must
// return at once.
type Observer interface {
	RetentionDeleted(table string, rows int64)
}

// Batch is how many rows one statement deletes: small enough that a batch
// holds its locks for milliseconds, so turns never wait on retention.
const Batch = 1000

// Sweeper deletes what is past its retention.
type Sweeper struct {
	DB        *db.DB
	Retention Retention
	Observer  Observer // may be nil
	Batch     int      // rows per statement; 0 means Batch
	// Uninstalled is how long a workspace's data is kept after the app was
	// uninstalled there (or its tokens revoked); then all of it is erased.
	// Zero keeps it.
	Uninstalled time.Duration
}

// Sweep deletes, table by table, the rows older than their retention
// allows, a batch at a time until none is left or ctx ends, and tells the
// observer each batch's count. It returns the rows deleted, by table.
func (s Sweeper) Sweep(ctx context.Context, now time.Time) (map[string]int64, error) {
	batch := s.Batch
	if batch <= 0 {
		batch = Batch
	}
	out := map[string]int64{}
	for _, t := range s.Retention.tables() {
		if t.keep <= 0 {
			continue
		}
		before := now.Add(-t.keep)
		for {
			n, err := s.DB.Lifecycle().DeleteExpired(ctx, t.table, before, batch)
			if n > 0 {
				out[t.table] += n
				if s.Observer != nil {
					s.Observer.RetentionDeleted(t.table, n)
				}
			}
			if err != nil {
				return out, err
			}
			if n < int64(batch) {
				break
			}
		}
	}
	if s.Uninstalled > 0 {
		teams, err := s.DB.Installations().DisabledBefore(ctx, now.Add(-s.Uninstalled), batch)
		if err != nil {
			return out, err
		}
		for _, team := range teams {
			if _, err := s.DB.EraseTeam(ctx, team); err != nil {
				return out, err
			}
			out[TableTeams]++
			if s.Observer != nil {
				s.Observer.RetentionDeleted(TableTeams, 1)
			}
		}
		// An uninstalled organisation whose workspaces are erased: its
		// installation and its record of them go too.
		orgs, err := s.DB.Installations().OrgsErasable(ctx, now.Add(-s.Uninstalled), batch)
		if err != nil {
			return out, err
		}
		for _, org := range orgs {
			if _, _, err := s.DB.EraseOrganisation(ctx, org); err != nil {
				return out, err
			}
			out[TableOrganisations]++
			if s.Observer != nil {
				s.Observer.RetentionDeleted(TableOrganisations, 1)
			}
		}
	}
	return out, nil
}

// TableTeams counts the uninstalled workspaces whose data retention erased.
const TableTeams = "teams"

// TableOrganisations counts the uninstalled organisations (org-wide
// installations) retention erased, once their workspaces were.
const TableOrganisations = "organisations"

// Args is the retention job. It carries nothing: the periods are the
// process's.
type Args struct{}

// Kind names the job in River.
func (Args) Kind() string { return "mnemo_retention" }

// InsertOpts: a failed sweep is tried again a few times; the next period's
// sweep picks up whatever is left.
func (Args) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 3} }

// Every is how often the sweep runs.
const Every = time.Hour

// Periodic is the River periodic job that sweeps every Every, and once as
// the client starts. River's leader enqueues it, so one replica sweeps.
func Periodic() *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(Every), func() (river.JobArgs, *river.InsertOpts) {
		return Args{}, nil
	}, &river.PeriodicJobOpts{ID: "mnemo_retention", RunOnStart: true})
}

// Worker runs the sweep.
type Worker struct {
	river.WorkerDefaults[Args]
	Sweeper
	Logger zerolog.Logger
	Now    func() time.Time // default time.Now
}

// Work sweeps once.
func (w *Worker) Work(ctx context.Context, _ *river.Job[Args]) error {
	now := time.Now
	if w.Now != nil {
		now = w.Now
	}
	n, err := w.Sweep(ctx, now())
	ev := w.Logger.Info()
	if err != nil {
		ev = w.Logger.Warn().Err(err)
	}
	d := zerolog.Dict()
	for t, c := range n {
		d.Int64(t, c)
	}
	ev.Dict("deleted", d).Msg("retention sweep")
	if err != nil {
		return fmt.Errorf("retention: %w", err)
	}
	return nil
}

// Timeout bounds one sweep.
func (w *Worker) Timeout(*river.Job[Args]) time.Duration { return 10 * time.Minute }

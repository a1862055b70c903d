package agent

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/usage"
)

// InspectRequest is one look at a turn: `mnemo turns show` and the Inspect
// shortcut.
type InspectRequest struct {
	TurnID int64
	// Viewer is who looks, from where: a recalled memory's text is shown
	// only when memory.Visible lets Viewer see it (with Oversight, an
	// admin's oversight). Hidden reports whether one was hidden.
	Viewer memory.Viewer
	Prices usage.Prices
}

// Inspection is a turn as an admin reads it, and what reading it showed.
type Inspection struct {
	Text string
	// Hidden counts recalled memories whose text the viewer may not see.
	Hidden int
	// Overseen counts memories shown only through the viewer's oversight:
	// the access an audit record must name.
	Overseen int
}

// Inspect renders one turn: its timeline, the memories it recalled (with
// provenance and score, and only where the viewer may see them), the
// tools it called, its tokens and estimated cost, and its errors. It holds
// no message text but the recalled memories the viewer may see.
func Inspect(ctx context.Context, d *db.DB, store *memory.Store, r InspectRequest) (Inspection, error) {
	t, err := d.Turns().Get(ctx, r.TurnID)
	if err != nil {
		return Inspection{}, err
	}
	calls, err := d.Usage().OfTurn(ctx, t.ID)
	if err != nil {
		return Inspection{}, err
	}
	steps, err := d.Usage().Steps(ctx, t.ID)
	if err != nil {
		return Inspection{}, err
	}
	recalls, err := d.Usage().Recalls(ctx, t.ID)
	if err != nil {
		return Inspection{}, err
	}
	ids := make([]uuid.UUID, len(recalls))
	for i, rc := range recalls {
		ids[i] = rc.MemoryID
	}
	plain := r.Viewer
	plain.Oversight = false
	looked, err := store.Look(ctx, r.Viewer, ids)
	if err != nil {
		return Inspection{}, err
	}
	var out Inspection
	var b strings.Builder
	asker := "<@" + t.ActorID + ">"
	if t.ActorID == "" {
		asker = "a former member"
	}
	status := string(t.Status)
	fmt.Fprintf(&b, "Turn %d in <#%s> (%s), asked by %s at %s: %s after %d attempt(s)\n", t.ID, t.Place.Channel, t.Place.Visibility, asker, utc(t.CreatedAt), status, t.Attempts)
	if t.TraceID != "" {
		fmt.Fprintf(&b, "trace %s\n", t.TraceID)
	}

	type event struct {
		at   time.Time
		text string
	}
	evs := []event{{t.CreatedAt, "post accepted, turn opened"}}
	var in, outTok, cached int64
	var cost float64
	priced := false
	for _, c := range calls {
		start := c.At.Add(-c.Duration)
		evs = append(evs, event{start, fmt.Sprintf("model %s (%s): %d tokens in (%d cached), %d out, %s, %s", c.Model, c.Provider, c.InputTokens, c.CachedTokens, c.OutputTokens, orNone(c.FinishReason), ms(c.Duration))})
		in, outTok, cached = in+c.InputTokens, outTok+c.OutputTokens, cached+c.CachedTokens
		if v, ok := r.Prices.Cost(c.Model, c.InputTokens, c.OutputTokens); ok {
			cost, priced = cost+v, true
		}
	}
	var tools, errs []string
	for _, s := range steps {
		start := s.At.Add(-s.Duration)
		switch s.Kind {
		case db.StepRecall:
			evs = append(evs, event{start, fmt.Sprintf("recall %s: %d memories, %s", s.Outcome, len(recalls), ms(s.Duration))})
		case db.StepTool:
			evs = append(evs, event{start, fmt.Sprintf("tool %s: %s, %s", s.Name, s.Outcome, ms(s.Duration))})
			tools = append(tools, s.Name+" ("+s.Outcome+")")
		case db.StepError:
			evs = append(evs, event{start, "error in " + s.Name + ": " + s.Outcome})
			errs = append(errs, s.Name+": "+s.Outcome)
		case db.StepBudget:
			evs = append(evs, event{start, "stopped by the budget " + s.Name})
			errs = append(errs, "budget "+s.Name)
		}
	}
	if t.FinishedAt != nil {
		end := "finished: " + status
		if t.ReplyTS != "" {
			end += ", reply " + t.ReplyTS
		}
		evs = append(evs, event{*t.FinishedAt, end})
	}
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].at.Before(evs[j].at) })
	b.WriteString("\nTimeline:\n")
	for _, e := range evs {
		fmt.Fprintf(&b, "  +%7.3fs  %s\n", e.at.Sub(t.CreatedAt).Seconds(), e.text)
	}

	b.WriteString("\nMemories recalled (rank, score: text match, scope and recency, and meaning with embeddings; in hybrid recall, the reciprocal-rank score and the leg that found it):\n")
	if len(recalls) == 0 {
		b.WriteString("  none\n")
	}
	for i, l := range looked {
		rc := recalls[i]
		legNote := "" // hybrid recall: which leg found it, after the score
		if rc.Leg != "" {
			legNote = " [" + rc.Leg + "]"
		}
		switch {
		case !l.Exists:
			fmt.Fprintf(&b, "  %d. %.3f%s  %s: deleted since\n", rc.Rank, rc.Score, legNote, l.ID.String()[:8])
		case !l.Visible:
			out.Hidden++
			fmt.Fprintf(&b, "  %d. %.3f%s  %s: not visible here (an admin sees it only with MNEMO_ADMIN_OVERSIGHT)\n", rc.Rank, rc.Score, legNote, l.ID.String()[:8])
		default:
			if !memory.Visible(plain, l.Memory, memory.Show) {
				out.Overseen++
			}
			m := l.Memory
			by := "<@" + m.ActorID + ">"
			if m.ActorID == "" {
				by = "a former member"
			}
			fmt.Fprintf(&b, "  %d. %.3f%s  %s: %s %s about %s %s, written by %s (%s) in <#%s> (%s) on %s: %q\n", rc.Rank, rc.Score, legNote, m.ShortID(), m.Scope, m.Kind, m.SubjectType, m.SubjectID, by, m.WrittenBy, m.ChannelID, m.Visibility, m.CreatedAt.UTC().Format("2006-01-02"), m.Content)
		}
	}

	b.WriteString("\nTools called: ")
	if len(tools) == 0 {
		b.WriteString("none")
	}
	b.WriteString(strings.Join(tools, ", ") + "\n")
	fmt.Fprintf(&b, "Tokens: %d in (%d cached), %d out, in %d model calls", in, cached, outTok, len(calls))
	if priced {
		fmt.Fprintf(&b, "; ≈ $%.4f", cost)
	}
	b.WriteString("\nErrors: ")
	if len(errs) == 0 {
		b.WriteString("none")
	}
	b.WriteString(strings.Join(errs, "; ") + "\n")
	out.Text = b.String()
	return out, nil
}

func utc(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") }

func ms(d time.Duration) string { return fmt.Sprintf("%d ms", d.Milliseconds()) }

func orNone(s string) string {
	if s == "" {
		return "no finish reason"
	}
	return s
}

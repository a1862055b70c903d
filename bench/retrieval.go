package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
)

// Labelled is the retrieval benchmark's corpus (testdata/retrieval.json):
// memories of a workspace, with the cues a review would write, and
// questions with the memories that answer them.
type Labelled struct {
	Team     string           `json:"team"`
	People   []LabelledPerson `json:"people"`
	Channels []LabelledPlace  `json:"channels"`
	Memories []LabelledMemory `json:"memories"`
	Queries  []LabelledQuery  `json:"queries"`
}

// LabelledPerson is one member of the workspace.
type LabelledPerson struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// LabelledPlace is a channel; DMs with the bot are "D" + the person's id.
type LabelledPlace struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	Visibility string `json:"visibility"`
}

// LabelledMemory is one memory and where it was said.
type LabelledMemory struct {
	ID      string   `json:"id"`
	Scope   string   `json:"scope"`
	Kind    string   `json:"kind"`
	Actor   string   `json:"actor"`
	Channel string   `json:"channel"`
	Thread  string   `json:"thread"`
	Content string   `json:"content"`
	Cues    []string `json:"cues"`
	AgeDays int      `json:"age_days"`
}

// LabelledQuery is a question asked by Asker in a thread of Channel, and
// the memories that answer it. A paraphrase shares no word (after
// stemming) with the content of its answers.
type LabelledQuery struct {
	ID         string   `json:"id"`
	Asker      string   `json:"asker"`
	Channel    string   `json:"channel"`
	Thread     string   `json:"thread"`
	Text       string   `json:"text"`
	Paraphrase bool     `json:"paraphrase"`
	Relevant   []string `json:"relevant"`
}

// ReadLabelled reads the labelled corpus.
func ReadLabelled(path string) (*Labelled, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var l Labelled
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &l, nil
}

func (l *Labelled) place(channel, thread string) provenance.Place {
	vis := provenance.Public
	if strings.HasPrefix(channel, "D") {
		vis = provenance.DM
	}
	for _, c := range l.Channels {
		if c.ID == channel {
			vis = provenance.Visibility(c.Visibility)
		}
	}
	return provenance.Place{Team: l.Team, Channel: channel, SourceKey: "slack:" + l.Team + ":" + channel + ":" + thread, Visibility: vis}
}

func (l *Labelled) actor(id string) provenance.Actor {
	a := provenance.Actor{Kind: provenance.KindUser, Team: l.Team, ID: id}
	for _, p := range l.People {
		if p.ID == id {
			a.Name = p.Name
		}
	}
	return a
}

// Load writes the corpus into d (withCues false drops every cue, for the
// ranking without them) and returns the database id of each memory.
func (l *Labelled) Load(ctx context.Context, d *db.DB, pool *pgxpool.Pool, withCues bool) (map[uuid.UUID]string, error) {
	ids := make(map[uuid.UUID]string, len(l.Memories))
	for _, m := range l.Memories {
		p := l.place(m.Channel, m.Thread)
		subject := map[string]string{"personal": m.Actor, "conversation": p.SourceKey, "channel": p.Channel, "workspace": p.Team}[m.Scope]
		var cues []string
		if withCues {
			cues = m.Cues
		}
		row, err := d.Memories().Insert(ctx, db.MemoryInsert{
			Team: l.Team, Scope: m.Scope, SubjectType: string(memory.Scope(m.Scope).DefaultSubject()), SubjectID: subject, Kind: m.Kind,
			Content: m.Content, Normalized: memory.Normalize(m.Content), Cues: cues, SourceKey: p.SourceKey,
			ChannelID: p.Channel, Visibility: p.Visibility, ActorID: m.Actor, ActorName: l.actor(m.Actor).Name,
			WrittenBy: "explicit", ObservedAt: time.Now().Add(-time.Duration(m.AgeDays) * 24 * time.Hour),
			IdempotencyKey: m.ID,
		})
		if err != nil {
			return nil, fmt.Errorf("memory %s: %w", m.ID, err)
		}
		ids[row.ID] = m.ID
	}
	if _, err := pool.Exec(ctx, "UPDATE memories SET created_at = observed_at"); err != nil {
		return nil, err
	}
	if _, err := pool.Exec(ctx, "ANALYZE memories"); err != nil {
		return nil, err
	}
	return ids, nil
}

// Scores are recall@8 and MRR, over all queries and per kind.
type Scores struct {
	Recall, MRR                     float64
	DirectRecall, DirectMRR         float64
	ParaphraseRecall, ParaphraseMRR float64
	// Misses names the paraphrase queries none of whose answers came back.
	Misses []string
	// Rank is, per query, the rank of its first answer (0: not returned).
	Rank map[string]int
}

// Ranker answers a query with memory ids, best first (at most 8).
type Ranker func(ctx context.Context, q LabelledQuery) ([]string, error)

// Score runs every query through rank.
func (l *Labelled) Score(ctx context.Context, rank Ranker) (Scores, error) {
	s := Scores{Rank: map[string]int{}}
	var n, nd, np float64
	for _, q := range l.Queries {
		got, err := rank(ctx, q)
		if err != nil {
			return s, fmt.Errorf("query %s: %w", q.ID, err)
		}
		got = got[:min(len(got), 8)]
		hit, rr := 0, 0.0
		for i, id := range got {
			for _, r := range q.Relevant {
				if id == r {
					hit++
					if rr == 0 {
						rr = 1 / float64(i+1)
						s.Rank[q.ID] = i + 1
					}
				}
			}
		}
		recall := float64(hit) / float64(len(q.Relevant))
		s.Recall += recall
		s.MRR += rr
		n++
		if q.Paraphrase {
			s.ParaphraseRecall += recall
			s.ParaphraseMRR += rr
			np++
			if hit == 0 {
				s.Misses = append(s.Misses, q.ID)
			}
		} else {
			s.DirectRecall += recall
			s.DirectMRR += rr
			nd++
		}
	}
	s.Recall, s.MRR = s.Recall/n, s.MRR/n
	s.DirectRecall, s.DirectMRR = s.DirectRecall/nd, s.DirectMRR/nd
	s.ParaphraseRecall, s.ParaphraseMRR = s.ParaphraseRecall/np, s.ParaphraseMRR/np
	return s, nil
}

// StoreRanker ranks with the store's auto-recall, as a turn would.
func (l *Labelled) StoreRanker(store *memory.Store, ids map[uuid.UUID]string) Ranker {
	return func(ctx context.Context, q LabelledQuery) ([]string, error) {
		ms, err := store.ForPrompt(ctx, memory.ViewerAt(l.actor(q.Asker), l.place(q.Channel, q.Thread)), q.Text)
		if err != nil {
			return nil, err
		}
		out := make([]string, len(ms))
		for i, m := range ms {
			out[i] = ids[m.ID]
		}
		return out, nil
	}
}

// ParentRanker is the auto-recall of the parent commit (e3c4bcb),
// reproduced: its MemorySearch over the content alone (no cues), with
// trigram word similarity for queries of four words or fewer, every
// visible memory ranked (requireMatch false), 16 rows, then the prompt
// budget.
func (l *Labelled) ParentRanker(pool *pgxpool.Pool, ids map[uuid.UUID]string) Ranker {
	return func(ctx context.Context, q LabelledQuery) ([]string, error) {
		v := memory.ViewerAt(l.actor(q.Asker), l.place(q.Channel, q.Thread))
		query := strings.TrimSpace(q.Text)
		rows, err := pool.Query(ctx, parentSearch, query, len(strings.Fields(query)) <= 4, v.Place.SourceKey, v.Place.Channel,
			v.Place.Team, v.Actor.ID, v.Private, true, false, memory.PromptMemories*2)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var out []string
		total := 0
		for rows.Next() {
			var id uuid.UUID
			var content string
			if err := rows.Scan(&id, &content); err != nil {
				return nil, err
			}
			if r := []rune(content); len(r) > memory.PromptEachChars {
				content = string(r[:memory.PromptEachChars-1]) + "…"
			}
			if len(out) == memory.PromptMemories || total+len(content) > memory.PromptTotalChars {
				continue
			}
			total += len(content)
			out = append(out, ids[id])
		}
		return out, rows.Err()
	}
}

// parentSearch is the parent commit's MemorySearch, with the text vector
// computed from the content alone, as its generated column was.
const parentSearch = `
SELECT m.id, m.content FROM memories m
WHERE m.team_id = $5
  AND m.archived_at IS NULL
  AND (m.expires_at IS NULL OR m.expires_at > now())
  AND (
        (m.scope = 'personal' AND m.subject_id = $6::text
            AND (m.channel_id = $4::text
                 OR (m.sensitive <> '' AND $7::boolean AND NOT $8::boolean)
                 OR (m.sensitive = '' AND (m.visibility = 'public' OR $7::boolean
                                           OR ($8::boolean AND m.kind = 'preference')))))
     OR (m.scope = 'conversation' AND m.source_key = $3::text)
     OR (m.scope = 'channel' AND m.channel_id = $4::text)
     OR (m.scope = 'workspace' AND (m.channel_id = $4::text OR (m.sensitive = '' AND m.visibility = 'public')))
  )
  AND (NOT $9::boolean OR $1::text = ''
       OR to_tsvector('english', m.content) @@ websearch_to_tsquery('english', $1::text)
       OR ($2::boolean AND word_similarity($1::text, m.content) > 0.3))
ORDER BY (
    CASE WHEN $1::text = '' THEN 0
         ELSE ts_rank(to_tsvector('english', m.content), websearch_to_tsquery('english', $1::text)) * 2
              + CASE WHEN $2::boolean THEN word_similarity($1::text, m.content) ELSE 0 END END
    + CASE WHEN m.source_key = $3::text THEN 0.4
           WHEN m.channel_id = $4::text AND m.scope <> 'personal' THEN 0.3
           WHEN m.scope = 'personal' THEN 0.2
           ELSE 0.1 END
    + 0.2 / (1 + extract(epoch FROM now() - m.observed_at) / 2592000)
) DESC, m.created_at DESC
LIMIT $10`

package bench

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/sync/errgroup"

	"github.com/mnemo-bot/mnemo/bench/bm25"
	"github.com/mnemo-bot/mnemo/bench/corpus"
	"github.com/mnemo-bot/mnemo/db"
	"github.com/mnemo-bot/mnemo/memory"
	"github.com/mnemo-bot/mnemo/provenance"
)

// The three shapes of issue 19 (item 3): the same conversation as one
// public channel's memories, as the asker's own personal memories in their
// DM, and in a channel that also holds unrelated memories.
const (
	ShapeChannel  = "channel"
	ShapePersonal = "personal"
	ShapeNoisy    = "noisy"
)

// LoCoMoShapes are the shapes, in the order they run and are reported.
var LoCoMoShapes = []string{ShapeChannel, ShapePersonal, ShapeNoisy}

// The methods each shape is scored with: the product's recall tool and
// auto-recall, and the two baselines over the same rows.
const (
	MethodSearch    = "mnemo Search"
	MethodForPrompt = "mnemo ForPrompt"
	MethodBM25      = "BM25 (Go)"
	MethodTSRank    = "ts_rank_cd, OR query"
)

// LoCoMoKs are the cut-offs reported. ForPrompt returns at most
// memory.PromptMemories (8), so it is reported at 8 only.
var LoCoMoKs = []int{5, 8, 10, 25}

// LoCoMoOptions is what the LoCoMo benchmark runs on.
type LoCoMoOptions struct {
	Server string
	Shapes []string
	// Noise is how many unrelated memories share each conversation's
	// channel in the noisy shape (issue 19: 100,000).
	Noise int
	// Done, when set, is called with each shape's result as it ends, so a
	// tuning run sees the quick shapes while the noisy one loads.
	Done func(ShapeResult)
	Log  func(format string, args ...any)
	// Database prefixes the databases made (and dropped), one per shape
	// (default mnemo_bench_locomo_).
	Database string
	// Keep leaves each shape's database in place after the run, for
	// looking at a ranking by hand (it is dropped at the next run).
	Keep bool
}

// LoCoMoResult is the benchmark's outcome, one entry per shape run.
type LoCoMoResult struct {
	Conversations, Turns, Questions int
	NoEvidence, DroppedEvidence     int
	Shapes                          []ShapeResult
}

// ShapeResult is one shape's scores, per method.
type ShapeResult struct {
	Shape   string
	Rows    int // memories in the database, the conversations' and the noise
	Load    time.Duration
	Took    time.Duration
	Methods []MethodResult
	// Unmoved is the check that recall without pgvector is today's:
	// each question's Search and ForPrompt ranking, compared memory by
	// memory, before and after the extension is dropped (channel and
	// personal shapes only).
	Unmoved *UnmovedCheck
}

// UnmovedCheck counts the rankings compared and those that differed.
type UnmovedCheck struct {
	Rankings, Differ int
	Example          string
}

// MethodResult is one method's recall@k and hit@k, over all questions and
// per category.
type MethodResult struct {
	Name  string
	All   Tally
	ByCat map[int]*Tally
	// Took is the time its questions took, one at a time.
	Took time.Duration
}

// Tally sums a method's results over questions.
type Tally struct {
	N           int
	Recall, Hit map[int]float64 // k → sum over questions
}

// R is mean recall@k: the fraction of a question's evidence turns in the
// top k, averaged over questions.
func (t Tally) R(k int) float64 {
	if t.N == 0 {
		return 0
	}
	return t.Recall[k] / float64(t.N)
}

// H is hit@k: the fraction of questions with any evidence turn in the top k.
func (t Tally) H(k int) float64 {
	if t.N == 0 {
		return 0
	}
	return t.Hit[k] / float64(t.N)
}

func (m *MethodResult) merge(o MethodResult) {
	m.All.merge(o.All)
	for c, t := range o.ByCat {
		if m.ByCat[c] == nil {
			m.ByCat[c] = &Tally{}
		}
		m.ByCat[c].merge(*t)
	}
	m.Took += o.Took
}

func (t *Tally) merge(o Tally) {
	if t.Recall == nil {
		t.Recall, t.Hit = map[int]float64{}, map[int]float64{}
	}
	t.N += o.N
	for k, v := range o.Recall {
		t.Recall[k] += v
	}
	for k, v := range o.Hit {
		t.Hit[k] += v
	}
}

func (t *Tally) add(got, evidence []string) {
	if t.Recall == nil {
		t.Recall, t.Hit = map[int]float64{}, map[int]float64{}
	}
	t.N++
	for _, k := range LoCoMoKs {
		found := 0
		for _, e := range evidence {
			for _, g := range got[:min(k, len(got))] {
				if g == e {
					found++
					break
				}
			}
		}
		t.Recall[k] += float64(found) / float64(len(evidence))
		if found > 0 {
			t.Hit[k]++
		}
	}
}

// Method returns the shape's result for a method.
func (s ShapeResult) Method(name string) MethodResult {
	for _, m := range s.Methods {
		if m.Name == name {
			return m
		}
	}
	return MethodResult{Name: name}
}

// Shape returns the result of one shape, and whether it ran.
func (r *LoCoMoResult) Shape(name string) (ShapeResult, bool) {
	for _, s := range r.Shapes {
		if s.Shape == name {
			return s, true
		}
	}
	return ShapeResult{}, false
}

// RunLoCoMo loads the conversations in each shape and scores every
// question (categories 1–4) with the product's Search and ForPrompt and
// with the two baselines, on the same rows.
func RunLoCoMo(ctx context.Context, convs []Conversation, o LoCoMoOptions) (*LoCoMoResult, error) {
	res := &LoCoMoResult{Conversations: len(convs)}
	for _, c := range convs {
		res.Turns += len(c.Turns)
		res.Questions += len(c.Questions)
		res.NoEvidence += c.QuestionsNoEvidence
		res.DroppedEvidence += len(c.DroppedEvidence)
	}
	if o.Log == nil {
		o.Log = func(string, ...any) {}
	}
	for _, shape := range o.Shapes {
		s, err := runShape(ctx, convs, shape, o)
		if err != nil {
			return nil, fmt.Errorf("locomo %s: %w", shape, err)
		}
		res.Shapes = append(res.Shapes, s)
		if o.Done != nil {
			o.Done(s)
		}
	}
	return res, nil
}

// loaded is one conversation in the database: its team and where the
// asker asks from.
type loaded struct {
	conv   Conversation
	team   string
	viewer memory.Viewer
	turns  map[uuid.UUID]string // memory id → dia_id
}

func runShape(ctx context.Context, convs []Conversation, shape string, o LoCoMoOptions) (ShapeResult, error) {
	res := ShapeResult{Shape: shape}
	start := time.Now()
	prefix := o.Database
	if prefix == "" {
		prefix = "mnemo_bench_locomo_"
	}
	d, err := NewDatabase(ctx, o.Server, prefix+shape, 8)
	if err != nil {
		return res, err
	}
	if o.Keep {
		defer d.Pool.Close()
	} else {
		defer d.Close()
	}
	if shape == ShapeNoisy && o.Noise > 0 {
		t := time.Now()
		if err := loadNoise(ctx, d.Pool, convs, o.Noise); err != nil {
			return res, err
		}
		o.Log("  locomo %s: %d unrelated memories in each conversation's channel, loaded with COPY in %s", shape, o.Noise, time.Since(t).Round(time.Millisecond))
	}
	ls := make([]*loaded, len(convs))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(3)
	for i, c := range convs {
		g.Go(func() error {
			l, err := loadConversation(gctx, d.DB, c, shape)
			ls[i] = l
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return res, err
	}
	// Each memory was stored when it was said: created_at is the turn's
	// time, as retrieval.go does, so the newest are the last sessions.
	if _, err := d.Pool.Exec(ctx, "UPDATE memories SET created_at = observed_at WHERE idempotency_key LIKE 'locomo:%'"); err != nil {
		return res, err
	}
	if _, err := d.Pool.Exec(ctx, "VACUUM (ANALYZE) memories"); err != nil {
		return res, err
	}
	if err := d.Pool.QueryRow(ctx, "SELECT count(*) FROM memories").Scan(&res.Rows); err != nil {
		return res, err
	}
	if shape == ShapeNoisy && o.Noise > 0 {
		if err := checkNoiseFound(ctx, d, ls[0]); err != nil {
			return res, err
		}
	}
	base, err := newBaselines(ctx, d.Pool, ls)
	if err != nil {
		return res, err
	}
	res.Load = time.Since(start)
	o.Log("  locomo %s: %d memories loaded in %s", shape, res.Rows, res.Load.Round(time.Millisecond))

	store := memory.New(d.DB, memory.Options{})
	methods := []MethodResult{{Name: MethodSearch}, {Name: MethodForPrompt}, {Name: MethodBM25}, {Name: MethodTSRank}}
	for i := range methods {
		methods[i].ByCat = map[int]*Tally{}
		for c := range LoCoMoCategories {
			methods[i].ByCat[c] = &Tally{}
		}
	}
	rankers := []func(context.Context, *loaded, string) ([]string, error){
		func(ctx context.Context, l *loaded, q string) ([]string, error) {
			ms, err := store.Search(ctx, l.viewer, q, 25, true)
			return l.ids(ms), err
		},
		func(ctx context.Context, l *loaded, q string) ([]string, error) {
			ms, err := store.ForPrompt(ctx, l.viewer, q)
			return l.ids(ms), err
		},
		func(_ context.Context, l *loaded, q string) ([]string, error) { return base.bm25(l, q, 25), nil },
		func(ctx context.Context, l *loaded, q string) ([]string, error) { return base.tsRank(ctx, l, q, 25) },
	}
	// The product's two methods run one question at a time, as a user
	// asks; the baselines run alongside them, two conversations at once,
	// so a tuning run takes about the time of the slower half. Each job
	// tallies on its own and the tallies are summed at the end.
	score := func(ctx context.Context, l *loaded, part []int) ([]MethodResult, error) {
		out := make([]MethodResult, len(part))
		for n, i := range part {
			out[n] = MethodResult{Name: methods[i].Name, ByCat: map[int]*Tally{}}
			for c := range LoCoMoCategories {
				out[n].ByCat[c] = &Tally{}
			}
		}
		for _, q := range l.conv.Questions {
			for n, i := range part {
				t := time.Now()
				got, err := rankers[i](ctx, l, q.Text)
				out[n].Took += time.Since(t)
				if err != nil {
					return nil, fmt.Errorf("%s, conversation %s, %q: %w", methods[i].Name, l.conv.Name, q.Text, err)
				}
				out[n].All.add(got, q.Evidence)
				out[n].ByCat[q.Category].add(got, q.Evidence)
			}
		}
		return out, nil
	}
	var mu sync.Mutex
	merge := func(part []int, rs []MethodResult) {
		mu.Lock()
		defer mu.Unlock()
		for n, i := range part {
			methods[i].merge(rs[n])
		}
	}
	g, gctx = errgroup.WithContext(ctx)
	g.Go(func() error {
		for _, l := range ls {
			rs, err := score(gctx, l, []int{0, 1})
			if err != nil {
				return err
			}
			merge([]int{0, 1}, rs)
		}
		return nil
	})
	sem := make(chan struct{}, 2)
	for _, l := range ls {
		g.Go(func() error {
			select {
			case sem <- struct{}{}:
			case <-gctx.Done():
				return gctx.Err()
			}
			defer func() { <-sem }()
			rs, err := score(gctx, l, []int{2, 3})
			if err != nil {
				return err
			}
			merge([]int{2, 3}, rs)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return res, err
	}
	res.Methods = methods
	if shape != ShapeNoisy {
		if res.Unmoved, err = checkUnmoved(ctx, d, ls); err != nil {
			return res, err
		}
	}
	res.Took = time.Since(start)
	return res, nil
}

// checkUnmoved ranks every question with the product's lexical recall
// (embeddings off, as make bench runs it), drops the vector extension, as
// on a server without pgvector, and ranks them again: the LoCoMo figures
// must not move, memory by memory.
func checkUnmoved(ctx context.Context, d *Database, ls []*loaded) (*UnmovedCheck, error) {
	rank := func(s *memory.Store) ([][]uuid.UUID, error) {
		var out [][]uuid.UUID
		for _, l := range ls {
			for _, q := range l.conv.Questions {
				a, err := s.Search(ctx, l.viewer, q.Text, 25, true)
				if err != nil {
					return nil, err
				}
				b, err := s.ForPrompt(ctx, l.viewer, q.Text)
				if err != nil {
					return nil, err
				}
				for _, ms := range [][]memory.Memory{a, b} {
					ids := make([]uuid.UUID, len(ms))
					for i, m := range ms {
						ids[i] = m.ID
					}
					out = append(out, ids)
				}
			}
		}
		return out, nil
	}
	before, err := rank(memory.New(d.DB, memory.Options{}))
	if err != nil {
		return nil, err
	}
	if _, err := d.Pool.Exec(ctx, "DROP EXTENSION IF EXISTS vector CASCADE"); err != nil {
		return nil, fmt.Errorf("drop pgvector: %w", err)
	}
	vec, err := d.DB.HasVectors(ctx)
	if err != nil {
		return nil, err
	}
	if vec {
		return nil, fmt.Errorf("the vector table is still there after dropping pgvector")
	}
	after, err := rank(memory.New(d.DB, memory.Options{Vectors: vec}))
	if err != nil {
		return nil, err
	}
	c := &UnmovedCheck{Rankings: len(before)}
	for i := range before {
		if !slices.Equal(before[i], after[i]) {
			c.Differ++
			if c.Example == "" {
				c.Example = fmt.Sprintf("ranking %d: %v, then %v", i, before[i], after[i])
			}
		}
	}
	return c, nil
}

func (l *loaded) ids(ms []memory.Memory) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = l.turns[m.ID] // "" for a memory that is not a turn (noise)
	}
	return out
}

// locomoPlace is where a conversation's memories were said and its
// questions asked: its channel, or the asker's DM with the bot.
func locomoPlace(team, shape, thread string) provenance.Place {
	if shape == ShapePersonal {
		return provenance.Place{Team: team, Channel: "DLOCOMO", SourceKey: "slack:" + team + ":DLOCOMO:" + thread, Visibility: provenance.DM}
	}
	return provenance.Place{Team: team, Channel: "CLOCOMO", SourceKey: "slack:" + team + ":CLOCOMO:" + thread, Visibility: provenance.Public}
}

// loadConversation stores one memory per turn, through the product's own
// insert, without cues (no model writes them here), in the conversation's
// own team. Each session is a thread. The asker is speaker A: in the
// personal shape every turn is their own memory, in their DM.
func loadConversation(ctx context.Context, d *db.DB, c Conversation, shape string) (*loaded, error) {
	team := "TLOCOMO" + c.Name
	asker := provenance.Actor{Kind: provenance.KindUser, Team: team, ID: "U" + c.Name + "A", Name: c.SpeakerA}
	l := &loaded{conv: c, team: team, turns: map[uuid.UUID]string{},
		viewer: memory.ViewerAt(asker, locomoPlace(team, shape, "question"))}
	for i, t := range c.Turns {
		p := locomoPlace(team, shape, fmt.Sprintf("%d.000000", t.At.Unix()))
		content := t.Memory()
		in := db.MemoryInsert{
			Team: team, Scope: string(memory.ScopeChannel), SubjectType: string(memory.ScopeChannel.DefaultSubject()), SubjectID: p.Channel,
			Kind: string(memory.KindKnowledge), Content: content, Normalized: memory.Normalize(content), SourceKey: p.SourceKey,
			ChannelID: p.Channel, Visibility: p.Visibility, ActorID: "U" + c.Name + "B", ActorName: t.Speaker,
			WrittenBy: "explicit", ObservedAt: t.At.Add(time.Duration(i) * time.Second),
			IdempotencyKey: "locomo:" + shape + ":" + c.Name + ":" + t.DiaID,
		}
		if t.Speaker == c.SpeakerA {
			in.ActorID = asker.ID
		}
		if shape == ShapePersonal {
			in.Scope, in.SubjectType, in.SubjectID = string(memory.ScopePersonal), string(memory.ScopePersonal.DefaultSubject()), asker.ID
			in.ActorID, in.ActorName = asker.ID, asker.Name
		}
		row, err := d.Memories().Insert(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("conversation %s, turn %s: %w", c.Name, t.DiaID, err)
		}
		l.turns[row.ID] = t.DiaID
	}
	return l, nil
}

// loadNoise writes n memories of the synthetic corpus (bench/corpus) into
// each conversation's channel, with COPY, as the recall corpora are
// loaded: the same sentences, moved into that channel, all of them
// visible there. Their ages are the corpus's own (two years, more of them
// recent) counted back from the conversation's last session, so they are
// interleaved with its turns rather than all newer or all older.
func loadNoise(ctx context.Context, pool *pgxpool.Pool, convs []Conversation, n int) error {
	specs := make([]corpus.Spec, len(convs))
	for i, c := range convs {
		specs[i] = corpus.Spec{Rows: n, Seed: 1, Now: c.Turns[len(c.Turns)-1].At}
	}
	return corpus.LoadRows(ctx, pool, n*len(convs), func(i int) corpus.Row {
		c, j := i/n, i%n
		r := specs[c].Row(j)
		team := "TLOCOMO" + convs[c].Name
		p := locomoPlace(team, ShapeNoisy, r.SourceKey[strings.LastIndex(r.SourceKey, ":")+1:])
		// The corpus's id is the same in every team: make one per team,
		// the same in every run.
		r.ID = uuid.NewSHA1(r.ID, []byte(team))
		r.Team, r.Scope, r.SubjectType, r.SubjectID = team, string(memory.ScopeChannel), string(memory.ScopeChannel.DefaultSubject()), p.Channel
		r.ChannelID, r.SourceKey, r.Visibility = p.Channel, p.SourceKey, string(p.Visibility)
		r.ArchivedAt, r.ArchivedReason, r.ArchivedBy, r.ExpiresAt = nil, "", "", nil
		r.IdempotencyKey = team + ":" + r.IdempotencyKey
		return r
	})
}

// checkNoiseFound proves the noise is in the product's index: the recall
// tool finds a noise memory by its own words. Without it, a ranking
// whose index COPY bypasses would look unaffected by the noise.
func checkNoiseFound(ctx context.Context, d *Database, l *loaded) error {
	var content string
	if err := d.Pool.QueryRow(ctx, "SELECT content FROM memories WHERE team_id = $1 AND idempotency_key NOT LIKE 'locomo:%' ORDER BY created_at DESC LIMIT 1", l.team).Scan(&content); err != nil {
		return fmt.Errorf("noise: %w", err)
	}
	ms, err := memory.New(d.DB, memory.Options{}).Search(ctx, l.viewer, content, 10, true)
	if err != nil {
		return err
	}
	for _, m := range ms {
		if _, turn := l.turns[m.ID]; !turn {
			return nil
		}
	}
	return fmt.Errorf("the recall tool finds none of the %q noise memories: is the index maintained for rows written with COPY?", content)
}

// baselines are the two rankings put beside the product's, over the rows
// each asker sees: every memory of the conversation's team (the shapes
// put nothing else there).
type baselines struct {
	pool  *pgxpool.Pool
	index map[string]*bm25.Index
	docs  map[string][]string // team → BM25 document number → dia_id ("" for noise)
}

func newBaselines(ctx context.Context, pool *pgxpool.Pool, ls []*loaded) (*baselines, error) {
	b := &baselines{pool: pool, index: map[string]*bm25.Index{}, docs: map[string][]string{}}
	for _, l := range ls {
		// Newest first, so BM25's ties (broken by document number) go to
		// the newest, as ts_rank_cd's do below.
		rows, err := pool.Query(ctx, `SELECT id, content FROM memories WHERE team_id = $1 AND archived_at IS NULL
			AND (expires_at IS NULL OR expires_at > now()) ORDER BY created_at DESC, id`, l.team)
		if err != nil {
			return nil, err
		}
		x := bm25.New()
		var docs []string
		for rows.Next() {
			var id uuid.UUID
			var content string
			if err := rows.Scan(&id, &content); err != nil {
				rows.Close()
				return nil, err
			}
			x.Add(content)
			docs = append(docs, l.turns[id])
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		b.index[l.team], b.docs[l.team] = x, docs
	}
	// ts_rank_cd reads a table of its own, the content's text vector, so
	// the baseline stays the same whatever the product's schema becomes.
	for _, q := range []string{
		"DROP TABLE IF EXISTS locomo_tsv",
		`CREATE TABLE locomo_tsv AS SELECT id, team_id, created_at, to_tsvector('english', content) AS tsv FROM memories
			WHERE archived_at IS NULL AND (expires_at IS NULL OR expires_at > now())`,
		"CREATE INDEX ON locomo_tsv USING gin (tsv)",
		"ANALYZE locomo_tsv",
	} {
		if _, err := pool.Exec(ctx, q); err != nil {
			return nil, fmt.Errorf("ts_rank_cd baseline: %w", err)
		}
	}
	return b, nil
}

func (b *baselines) bm25(l *loaded, q string, k int) []string {
	hits := b.index[l.team].Search(q, k)
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = b.docs[l.team][h.Doc]
	}
	return out
}

// tsRank is PostgreSQL's cover-density ranking with the question's
// lexemes ORed: any row with any of them is a candidate.
func (b *baselines) tsRank(ctx context.Context, l *loaded, q string, k int) ([]string, error) {
	rows, err := b.pool.Query(ctx, `
		WITH q AS (SELECT string_agg(quote_literal(w), ' | ')::tsquery AS q
		           FROM unnest(tsvector_to_array(to_tsvector('english', $2::text))) AS w)
		SELECT t.id FROM locomo_tsv t, q
		WHERE t.team_id = $1 AND t.tsv @@ q.q
		ORDER BY ts_rank_cd(t.tsv, q.q) DESC, t.created_at DESC, t.id
		LIMIT $3`, l.team, q, k)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id uuid.UUID
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, l.turns[id])
	}
	return out, rows.Err()
}

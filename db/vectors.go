package db

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/mnemo-bot/mnemo/db/internal/dbsqlc"
)

// Recall by meaning (issue 31). With pgvector, embeddings are stored as
// halfvec in memory_vectors (one row per memory) and searched through one HNSW index
// per dimension; without it, as real[] in memories.embedding, which only
// the reranker reads. The halfvec statements are written here rather than
// in dbsqlc: memory_vectors exists only where the server has pgvector, and
// an HNSW index is on a fixed dimension (embedding::halfvec(768)), and a type's dimension cannot be a query parameter, so
// each statement is made for the model's dimension. They filter with
// memory_visible, the one SQL definition of the visibility rule.

// MaxIndexedDim is the largest dimension HNSW indexes as halfvec; a larger
// embedding is searched exactly.
const MaxIndexedDim = 4000

// HasVectors reports whether the server has pgvector and mnemo's vector
// table (migration 00020 makes it where the extension exists).
func (d *DB) HasVectors(ctx context.Context) (bool, error) {
	var ok bool
	err := d.pool.QueryRow(ctx, `SELECT EXISTS (
		SELECT 1 FROM pg_attribute
		WHERE attrelid = to_regclass('memory_vectors') AND attname = 'embedding' AND NOT attisdropped)`).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("pgvector: %w", mapErr(err))
	}
	return ok, nil
}

// ToEmbed is a memory the embedding job has to embed.
type ToEmbed struct {
	ID   uuid.UUID
	Text string // EmbeddingText(content, cues)
}

// EmbedPending returns up to limit memories of the embedding job's queue
// (memory_embed_queue: active memories written, restored or changed since
// their last embedding, and those Requeue added), newest first.
func (s Memories) EmbedPending(ctx context.Context, limit int) ([]ToEmbed, error) {
	rows, err := s.q.MemoryEmbedPending(ctx, s.e, int32(limit))
	if err != nil {
		return nil, fmt.Errorf("memories to embed: %w", mapErr(err))
	}
	out := make([]ToEmbed, len(rows))
	for i, r := range rows {
		out[i] = ToEmbed{ID: r.ID, Text: EmbeddingText(r.Content, r.Cues)}
	}
	return out, nil
}

// Requeue queues every active memory with no embedding of model: stored
// as halfvec (vectors, the server has pgvector) or as real[]. The job does
// it once as it starts, so that changing MNEMO_EMBEDDING_MODEL, or
// installing pgvector, re-embeds every memory; until a memory is redone,
// recall treats it as lexical-only. It reads every active memory once
// and returns how many it queued.
func (s Memories) Requeue(ctx context.Context, model string, vectors bool) (int64, error) {
	var n int64
	var err error
	if vectors {
		var tag pgconn.CommandTag
		tag, err = s.e.Exec(ctx, `INSERT INTO memory_embed_queue (id, created_at)
			SELECT m.id, m.created_at FROM memories m
			WHERE m.archived_at IS NULL
			  AND NOT EXISTS (SELECT 1 FROM memory_vectors v WHERE v.id = m.id AND v.model = $1::text)
			ON CONFLICT (id) DO NOTHING`, model)
		n = tag.RowsAffected()
	} else {
		n, err = s.q.MemoryEmbedRequeueOtherModels(ctx, s.e, model)
	}
	if err != nil {
		return 0, fmt.Errorf("queue memories to embed: %w", mapErr(err))
	}
	return n, nil
}

// EmbeddingStatus is how far the embedding job is.
type EmbeddingStatus struct {
	// Active memories, those embedded by the model asked about, and those
	// in the job's queue.
	Active, Embedded, Queued int64
	// Models are the models active memories are embedded by.
	Models []EmbeddingModel
}

// EmbeddingModel is a model and the memories embedded by it.
type EmbeddingModel struct {
	Model    string
	Dim      int
	Memories int64
}

// EmbeddingStatus counts the active memories, those embedded by model (as
// halfvec when vectors, else as real[]) and those queued. It reads every
// active memory: for an operator's demand, not for a turn.
func (s Memories) EmbeddingStatus(ctx context.Context, model string, vectors bool) (EmbeddingStatus, error) {
	var out EmbeddingStatus
	err := func() error {
		var err error
		if out.Queued, err = s.q.MemoryEmbedQueueLength(ctx, s.e); err != nil {
			return err
		}
		if !vectors {
			r, err := s.q.MemoryEmbeddingStatus(ctx, s.e, model)
			if err != nil {
				return err
			}
			out.Active, out.Embedded = r.Active, r.Embedded
			ms, err := s.q.MemoryEmbeddingModels(ctx, s.e)
			if err != nil {
				return err
			}
			for _, m := range ms {
				out.Models = append(out.Models, EmbeddingModel{Model: m.Model, Dim: int(m.Dim), Memories: m.Memories})
			}
			return nil
		}
		err = s.e.QueryRow(ctx, `SELECT count(*), count(v.id)
			FROM memories m LEFT JOIN memory_vectors v ON v.id = m.id AND v.model = $1::text
			WHERE m.archived_at IS NULL`, model).Scan(&out.Active, &out.Embedded)
		if err != nil {
			return err
		}
		rows, err := s.e.Query(ctx, `SELECT v.model, v.dim, count(*)
			FROM memory_vectors v JOIN memories m ON m.id = v.id
			WHERE m.archived_at IS NULL
			GROUP BY 1, 2 ORDER BY 3 DESC, 1`)
		if err != nil {
			return err
		}
		out.Models, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (EmbeddingModel, error) {
			var m EmbeddingModel
			return m, r.Scan(&m.Model, &m.Dim, &m.Memories)
		})
		return err
	}()
	if err != nil {
		return EmbeddingStatus{}, fmt.Errorf("embedding status: %w", mapErr(err))
	}
	return out, nil
}

// Embedded is one memory's new embedding, of the text it was computed from.
type Embedded struct {
	ID   uuid.UUID
	Text string
	Vec  []float32
}

// StoreEmbeddings stores embeddings of model, as halfvec in memory_vectors
// when half (the server has pgvector) and as real[] in memories otherwise,
// and takes the memories out of the job's queue, in one statement. With
// pgvector, memories' own rows are not written: a row version per
// embedding, in every index of memories, would cost as much as the
// remember did. A memory archived, or whose text changed, since it was
// read is left as it is (and in the queue, when its text changed). It
// returns how many were stored.
func (s Memories) StoreEmbeddings(ctx context.Context, model string, half bool, es []Embedded) (int64, error) {
	if len(es) == 0 {
		return 0, nil
	}
	ids := make([]uuid.UUID, len(es))
	texts := make([]string, len(es))
	vecs := make([]string, len(es))
	dims := make([]int32, len(es))
	for i, e := range es {
		ids[i], texts[i], vecs[i], dims[i] = e.ID, e.Text, VectorLiteral(e.Vec), int32(len(e.Vec))
		if !half {
			// real[]'s text form: {1,2,3}.
			vecs[i] = "{" + vecs[i][1:len(vecs[i])-1] + "}"
		}
	}
	// The rows still active and of the text that was embedded. With
	// pgvector each is locked (FOR SHARE) as its vector is written: the
	// vector records the memory's partition (part, by which the exact scan
	// reads it) and whether it is one of its workspace's public ones
	// (public_team, which the split way walks), and a change of those
	// committed meanwhile would otherwise go unseen here, while the
	// trigger that carries such a change to memory_vectors (db/definitions/
	// 55_vector_public.sql) found no vector yet. Locked, the row is read as
	// its latest version, and a change that comes later waits for this
	// vector and then finds it.
	const rows = `
		FROM (SELECT unnest($1::uuid[]) AS id, unnest($2::text[]) AS text, unnest($3::text[]) AS vec, unnest($4::int[]) AS dim) u
		JOIN memories m ON m.id = u.id
		WHERE m.archived_at IS NULL
		  AND CASE WHEN m.cues = '' THEN m.content ELSE m.content || E'\n' || m.cues END = u.text`
	current := `SELECT u.id, u.vec, u.dim` + rows
	if half {
		current = `SELECT u.id, u.vec, u.dim, memory_part_of(m) AS part, memory_public_team(m) AS public_team` + rows + ` FOR SHARE OF m`
	}
	const dequeue = `, d AS (DELETE FROM memory_embed_queue q USING u WHERE q.id = u.id)`
	store := `, w AS (UPDATE memories m SET embedding = u.vec::real[], embedding_model = $5::text, embedding_dim = u.dim
		FROM u WHERE m.id = u.id RETURNING m.id)`
	if half {
		store = `, w AS (INSERT INTO memory_vectors (id, model, dim, embedding, part, public_team)
			SELECT u.id, $5::text, u.dim, u.vec::halfvec, u.part, u.public_team FROM u
			ON CONFLICT (id) DO UPDATE SET model = excluded.model, dim = excluded.dim, embedding = excluded.embedding,
				part = excluded.part, public_team = excluded.public_team
			RETURNING id)`
	}
	var n int64
	err := s.e.QueryRow(ctx, `WITH u AS (`+current+`)`+store+dequeue+` SELECT count(*) FROM w`,
		ids, texts, vecs, dims, model).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store embeddings: %w", mapErr(err))
	}
	return n, nil
}

// VectorLiteral is v in pgvector's text form, [1,2,3].
func VectorLiteral(v []float32) string {
	var b strings.Builder
	b.Grow(len(v) * 10)
	b.WriteByte('[')
	for i, x := range v {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatFloat(float64(x), 'g', 6, 32))
	}
	b.WriteByte(']')
	return b.String()
}

// VectorIndexName is the HNSW index of embeddings of dim dimensions.
func VectorIndexName(dim int) string { return fmt.Sprintf("memories_embedding_hnsw_%d", dim) }

// EnsureVectorIndex makes the HNSW indexes of dim-dimensional embeddings
// (of every memory, and of the workspaces' public ones) where missing
// (CONCURRENTLY: writes go on while they build). Past MaxIndexedDim there
// is none: those embeddings are searched exactly.
// Cosine distance, pgvector's default HNSW settings (m 16, ef_construction
// 64).
func (d *DB) EnsureVectorIndex(ctx context.Context, dim int) error {
	if dim <= 0 || dim > MaxIndexedDim {
		return nil
	}
	for _, ix := range []struct{ name, where string }{
		{VectorIndexName(dim), fmt.Sprintf("dim = %d", dim)},
		// The workspaces' public memories (VectorSplit): a few in a
		// hundred of all, so a small index beside the first.
		{VectorPublicIndexName(dim), fmt.Sprintf("dim = %d AND public_team IS NOT NULL", dim)},
	} {
		var ok bool
		if err := d.pool.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", ix.name).Scan(&ok); err != nil {
			return fmt.Errorf("vector index: %w", mapErr(err))
		}
		if ok {
			continue
		}
		_, err := d.pool.Exec(ctx, fmt.Sprintf(`CREATE INDEX CONCURRENTLY IF NOT EXISTS %s ON memory_vectors
			USING hnsw ((embedding::halfvec(%d)) halfvec_cosine_ops) WHERE %s`,
			ix.name, dim, ix.where))
		if err != nil {
			return fmt.Errorf("vector index: %w", mapErr(err))
		}
	}
	return nil
}

// VectorIndexDims lists the dimensions that have an HNSW index of every
// memory's embeddings.
func (d *DB) VectorIndexDims(ctx context.Context) ([]int, error) {
	rows, err := d.pool.Query(ctx, `SELECT c.relname::text FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
		WHERE i.indrelid = to_regclass('memory_vectors') AND c.relname LIKE 'memories_embedding_hnsw_%'`)
	if err != nil {
		return nil, fmt.Errorf("vector indexes: %w", mapErr(err))
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("vector indexes: %w", mapErr(err))
	}
	var dims []int
	for _, n := range names {
		if d, err := strconv.Atoi(strings.TrimPrefix(n, "memories_embedding_hnsw_")); err == nil {
			dims = append(dims, d)
		}
	}
	return dims, nil
}

// VectorPublicIndexName is the HNSW index of dim-dimensional embeddings of
// the workspaces' public memories.
func VectorPublicIndexName(dim int) string { return fmt.Sprintf("memories_embedding_public_%d", dim) }

// VectorQuery asks for the memories nearest a query's embedding among
// those the asker may see: SearchQuery's viewer, and the model whose
// embeddings are compared (rows of another model are not searched).
type VectorQuery struct {
	Team, Channel, SourceKey, Actor string
	PrivateViewer, Apply            bool
	Only                            string // as in SearchQuery
	Model                           string
	Vec                             []float32
	Limit                           int
	// Way is how the leg reads: see VectorWay.
	Way VectorWay
}

// VectorWay is how the vector leg finds the nearest memories the asker may
// see (memory.VectorWayFor chooses it by VectorSize).
type VectorWay int

const (
	// VectorWalk walks the dimension's HNSW index of every memory,
	// iteratively, filtered by memory_visible.
	VectorWalk VectorWay = iota
	// VectorExact compares every memory of the asker's partitions: where
	// they are few, reading them all is cheaper, and exact.
	VectorExact
	// VectorSplit walks the HNSW index of the workspace's public memories
	// and compares every memory of the asker's other partitions: where the
	// public ones are most of what they see.
	VectorSplit
)

func (w VectorWay) String() string {
	switch w {
	case VectorExact:
		return "exact"
	case VectorSplit:
		return "split"
	}
	return "walk"
}

// Near is a memory the vector leg found, with its cosine distance.
type Near struct {
	Memory
	Distance float64
}

// VectorSettings: iterative index scans, so that rows the visibility
// filter drops do not starve the top k (pgvector 0.8; relaxed order,
// re-sorted by the outer query); ef_search 100 for recall; no JIT; each
// call planned for its arguments, so the team's size is in the estimate.
const VectorSettings = "SET LOCAL jit = off; SET LOCAL plan_cache_mode = force_custom_plan; " +
	"SET LOCAL hnsw.iterative_scan = relaxed_order; SET LOCAL hnsw.ef_search = 100; SET LOCAL enable_seqscan = off"

// VectorSQL is the vector leg's statement for dim dimensions, read way.
// $1 the query vector, $2 the model, $3-$8 the viewer as memory_visible
// takes it, $9 the limit, $10 the one scope read (v_only).
//
// The exact statement reads the vectors of the asker's partitions
// (memory_parts, the lexical leg's: a superset of what the asker may see
// from here) through memory_vectors_part, each once, and compares each
// with the query; then memory_visible, the one definition, decides on the
// nearest in turn, on the memory's row, until $9 pass. It once found the
// memories through their own indexes, decided each one's visibility, and
// read each one's vector by key: four pages a vector, 15,298 pages and
// 18 ms for 3,048 memories, against 3,009 pages and 6.7 ms this way.
// Left to a join of memory_vectors and memories filtered by
// memory_visible, the planner cannot estimate the filter (a CASE over
// the scope) and, past some 50,000 rows, scans both tables whole and
// hashes them (a second where a few thousand lookups take milliseconds).
func VectorSQL(dim int, way VectorWay) string {
	if way == VectorSplit && dim <= MaxIndexedDim {
		return vectorSplitSQL(dim)
	}
	if way == VectorExact || dim > MaxIndexedDim {
		// Not the index's expression, so the HNSW index is not walked.
		return fmt.Sprintf(`WITH near AS MATERIALIZED (
%s
)
%s`, vectorNearOfParts(dim, true), vectorRows)
	}
	return fmt.Sprintf(`WITH near AS MATERIALIZED (
    SELECT v.id, v.embedding::halfvec(%d) <=> $1::halfvec(%d) AS dist
    FROM memory_vectors v
    JOIN memories m ON m.id = v.id
    WHERE v.dim = %d AND v.model = $2::text
      AND memory_visible(m, $3::text, $4::text, $5::text, $6::text, $7::bool, $8::bool, $10::text)
    ORDER BY dist
    LIMIT $9
)
%s`, dim, dim, dim, vectorRows)
}

// vectorSplitSQL is the vector leg's statement for an asker who sees many
// memories, nearly all of them the workspace's public ones: those are
// found by walking the HNSW index of public memories (a small one: where
// the whole index is walked, the visibility filter drops most of what the
// walk reads, and it reads on until it has Limit), the asker's other
// partitions' (theirs, the thread's, the channel's) by the exact scan, and
// the nearest of the two kept. The same arguments as VectorSQL's.
func vectorSplitSQL(dim int) string {
	return fmt.Sprintf(`WITH own AS MATERIALIZED (
%s
), public AS MATERIALIZED (
    SELECT v.id, (v.embedding::halfvec(%d) <=> $1::halfvec(%d))::float8 AS dist
    FROM memory_vectors v
    JOIN memories m ON m.id = v.id
    WHERE v.dim = %d AND v.public_team IS NOT NULL AND v.public_team = $3::text AND v.model = $2::text
      AND memory_visible(m, $3::text, $4::text, $5::text, $6::text, $7::bool, $8::bool, $10::text)
    ORDER BY v.embedding::halfvec(%d) <=> $1::halfvec(%d)
    LIMIT $9
), near AS MATERIALIZED (
    SELECT x.id, min(x.dist) AS dist FROM (SELECT * FROM own UNION ALL SELECT * FROM public) x
    GROUP BY x.id ORDER BY dist LIMIT $9
)
%s`, vectorNearOfParts(dim, false), dim, dim, dim, dim, dim, vectorRows)
}

// vectorNearOfParts is the exact scan: every vector of the asker's
// partitions compared with the query, nearest first, and the nearest $9
// that memory_visible lets the asker see. A partition may hold memories
// the asker may not see from here (their own DM memories, asked in
// public), so visibility is decided on each in turn, nearest first, and
// only as far as needed. Without public, the workspace's public
// partition is left out (the split way walks it), in the index's
// condition, not after reading it.
func vectorNearOfParts(dim int, public bool) string {
	parts := "memory_parts($3::text, $4::text, $5::text, $6::text, $10::text)"
	if !public {
		parts = "array_remove(" + parts + ", $3::text || '/w')"
	}
	return fmt.Sprintf(`    SELECT x.id, x.dist FROM (
        SELECT v.id, ((v.embedding <=> $1::halfvec(%d)) + 0)::float8 AS dist
        FROM memory_vectors v
        WHERE v.part = ANY(%s)
          AND v.dim = %d AND v.model = $2::text
        ORDER BY dist
    ) x
    CROSS JOIN LATERAL (SELECT 1 FROM memories m WHERE m.id = x.id
        AND memory_visible(m, $3::text, $4::text, $5::text, $6::text, $7::bool, $8::bool, $10::text)) ok
    ORDER BY x.dist
    LIMIT $9`, dim, parts, dim)
}

// vectorRows reads the nearest memories' rows, nearest first.
const vectorRows = `SELECT r.id, r.team_id, r.scope, r.subject_type, r.subject_id, r.kind, r.content, r.normalized, r.cues,
       r.source_key, r.channel_id, r.visibility, r.actor_id, r.actor_name, r.written_by, r.message_ts,
       r.observed_at, r.created_at, r.expires_at, r.archived_at, r.archived_reason, r.archived_by,
       r.superseded_by, r.idempotency_key, r.sensitive, near.dist
FROM near JOIN memory_rows r ON r.id = near.id
ORDER BY near.dist, r.created_at DESC`

// Nearest returns up to q.Limit memories the asker may see, nearest
// q.Vec first, among those embedded by q.Model.
func (s Memories) Nearest(ctx context.Context, q VectorQuery) ([]Near, error) {
	var out []Near
	err := s.read(ctx, VectorSettings, func(e executor) error {
		rows, err := e.Query(ctx, VectorSQL(len(q.Vec), q.Way), VectorLiteral(q.Vec), q.Model,
			q.Team, q.Actor, q.Channel, q.SourceKey, q.PrivateViewer, q.Apply, q.Limit, q.Only)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (Near, error) {
			var r dbsqlc.MemoryRow
			var dist float64
			err := row.Scan(&r.ID, &r.TeamID, &r.Scope, &r.SubjectType, &r.SubjectID, &r.Kind, &r.Content, &r.Normalized, &r.Cues,
				&r.SourceKey, &r.ChannelID, &r.Visibility, &r.ActorID, &r.ActorName, &r.WrittenBy, &r.MessageTs,
				&r.ObservedAt, &r.CreatedAt, &r.ExpiresAt, &r.ArchivedAt, &r.ArchivedReason, &r.ArchivedBy,
				&r.SupersededBy, &r.IdempotencyKey, &r.Sensitive, &dist)
			return Near{Memory: memoryFromView(r), Distance: dist}, err
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("nearest memories: %w", mapErr(err))
	}
	return out, nil
}

// VectorSize is what the vector leg chooses its way by: about how many
// active memories the asker's partitions hold (Visible: memory_part_stats,
// kept by the recall index, an upper bound of the rows the visibility
// filter keeps), how many of them are the workspace's public ones
// (Public, in its partition team/w), and, as the planner's statistics
// have it, how many vectors memory_vectors holds (0 before its first
// ANALYZE).
type VectorSize struct {
	Visible, Public, Vectors int64
}

// VectorScanSize reads the asker's VectorSize in one round trip, from at
// most six rows. A guest's (only "channel") partition is the channel's own.
func (s Memories) VectorScanSize(ctx context.Context, team, actor, channel, sourceKey, only string) (VectorSize, error) {
	var z VectorSize
	err := s.e.QueryRow(ctx, `SELECT coalesce(sum(docs), 0)::bigint,
		       coalesce(sum(docs) FILTER (WHERE part = $1::text || '/w'), 0)::bigint,
		       (SELECT greatest(c.reltuples, 0)::bigint FROM pg_class c WHERE c.oid = to_regclass('memory_vectors'))
		FROM memory_part_stats
		WHERE part = ANY(memory_parts($1::text, $2::text, $3::text, $4::text, $5::text))`,
		team, actor, channel, sourceKey, only).Scan(&z.Visible, &z.Public, &z.Vectors)
	if err != nil {
		return VectorSize{}, fmt.Errorf("vector scan size: %w", mapErr(err))
	}
	return z, nil
}

// VectorIndex is an HNSW index of memory_vectors, its size and the rows
// it holds: those of its dimension, or of those the workspaces' public
// memories (Public).
type VectorIndex struct {
	Name   string
	Dim    int
	Public bool
	Rows   int64
	Bytes  int64
}

// VectorIndexes lists the HNSW indexes, two per dimension.
func (d *DB) VectorIndexes(ctx context.Context) ([]VectorIndex, error) {
	rows, err := d.pool.Query(ctx, `SELECT c.relname::text, pg_relation_size(c.oid)
		FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
		WHERE i.indrelid = to_regclass('memory_vectors')
		  AND (c.relname LIKE 'memories_embedding_hnsw_%' OR c.relname LIKE 'memories_embedding_public_%')
		ORDER BY 1`)
	if err != nil {
		return nil, fmt.Errorf("vector indexes: %w", mapErr(err))
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (VectorIndex, error) {
		var i VectorIndex
		err := r.Scan(&i.Name, &i.Bytes)
		n, public := strings.CutPrefix(i.Name, "memories_embedding_public_")
		i.Public = public
		_, _ = fmt.Sscanf(strings.TrimPrefix(n, "memories_embedding_hnsw_"), "%d", &i.Dim)
		return i, err
	})
	if err != nil {
		return nil, fmt.Errorf("vector indexes: %w", mapErr(err))
	}
	for k := range out {
		if err := d.pool.QueryRow(ctx, "SELECT count(*) FROM memory_vectors WHERE dim = $1 AND (public_team IS NOT NULL OR NOT $2)",
			out[k].Dim, out[k].Public).Scan(&out[k].Rows); err != nil {
			return nil, fmt.Errorf("vector indexes: %w", mapErr(err))
		}
	}
	return out, nil
}

// EmbedQueueLength is how many memories the embedding job's queue holds.
func (s Memories) EmbedQueueLength(ctx context.Context) (int64, error) {
	n, err := s.q.MemoryEmbedQueueLength(ctx, s.e)
	if err != nil {
		return 0, fmt.Errorf("embedding queue: %w", mapErr(err))
	}
	return n, nil
}

// ClearEmbedQueue empties the embedding job's queue, for a deployment with
// no embedding model (the job's first run with one queues every memory it
// has to embed). It returns how many it took out.
func (s Memories) ClearEmbedQueue(ctx context.Context) (int64, error) {
	tag, err := s.e.Exec(ctx, "DELETE FROM memory_embed_queue")
	if err != nil {
		return 0, fmt.Errorf("embedding queue: %w", mapErr(err))
	}
	return tag.RowsAffected(), nil
}

-- Recall's term weights: BM25F's weight of each word of a memory's text
-- vector, without the idf. See docs/architecture.md, "How recall ranks".
--
-- A repeatable definition (db/migrate.go): re-applied whenever this file
-- changes. A change here changes every posting's weight, so the recall
-- index (30_recall_index.sql) names this file and is rebuilt with it.

-- k1: how fast a word's repeats saturate (BM25's usual 1.2).
CREATE OR REPLACE FUNCTION recall_k1() RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT 1.2 $$;

-- b: how much a long memory's words are discounted for its length
-- (BM25's usual 0.75).
CREATE OR REPLACE FUNCTION recall_b() RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT 0.75 $$;

-- The length of a typical memory, in distinct words. A constant rather
-- than each partition's mean, so that a posting's weight is fixed when it
-- is written, which lets recall read postings best first and stop early.
CREATE OR REPLACE FUNCTION recall_typical_length() RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT 12 $$;

-- The field weights: a word of the content (weight A in the vector,
-- memory_search_vector) counts 1, a word of the retrieval cues (B) this
-- much, in a word's frequency and in the memory's length alike.
CREATE OR REPLACE FUNCTION recall_cue_weight() RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT 0.5 $$;

-- Every word of a text vector with its weight:
--   tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / typical length))
-- tf counts the word's content positions, plus recall_cue_weight of each
-- cue position; the length counts the distinct words the same way.
CREATE OR REPLACE FUNCTION memory_terms(v tsvector)
RETURNS TABLE (term text, impact real) LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT x.lexeme, (x.tf * (recall_k1() + 1)
                      / (x.tf + recall_k1() * (1 - recall_b() + recall_b() * greatest(x.dl, 1) / recall_typical_length())))::real
    FROM (
        SELECT e.lexeme,
               cardinality(array_positions(e.weights, 'A'))
                 + recall_cue_weight() * (cardinality(e.weights) - cardinality(array_positions(e.weights, 'A'))) AS tf,
               sum(CASE WHEN 'A' = ANY(e.weights) THEN 1 ELSE recall_cue_weight() END) OVER () AS dl
        FROM unnest(v) AS e
    ) x
    WHERE x.tf > 0
$$;

-- memory_terms' weights of the given words only: the same numbers, in a
-- third of the time, for scoring a memory on a query's words. The length
-- is counted from the vector's sizes (ts_filter keeps the content's words)
-- rather than by summing over every word.
CREATE OR REPLACE FUNCTION memory_term_weights(v tsvector, terms text[])
RETURNS TABLE (term text, impact real) LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT e.lexeme, (x.tf * (recall_k1() + 1)
                      / (x.tf + recall_k1() * (1 - recall_b() + recall_b() * greatest(d.dl, 1) / recall_typical_length())))::real
    FROM (SELECT length(ts_filter(v, '{a}')) AS na, length(v) AS n) c
    CROSS JOIN LATERAL (SELECT c.na + recall_cue_weight() * (c.n - c.na) AS dl) d
    CROSS JOIN LATERAL unnest(v) AS e
    CROSS JOIN LATERAL (SELECT cardinality(array_positions(e.weights, 'A'))
                               + recall_cue_weight() * (cardinality(e.weights) - cardinality(array_positions(e.weights, 'A'))) AS tf) x
    WHERE e.lexeme = ANY(terms) AND x.tf > 0
$$;

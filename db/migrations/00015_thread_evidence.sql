-- +goose Up
-- Recall reads a match's thread as evidence for it: memory_bm25 scores
-- each thread of its top k as a whole, around its best match, adds the
-- window's other matches as candidates, and lifts each candidate by a
-- share of its thread's score. See docs/architecture.md, "How recall
-- ranks".
--
-- This changed only functions, which are repeatable definitions now
-- (db/definitions/40_recall_rank.sql): no schema change is left here.
SELECT 1;

-- +goose Down
SELECT 1;

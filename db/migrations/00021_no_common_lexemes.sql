-- +goose Up
-- memory_common_lexemes (00005) has had no caller since recall moved to
-- its own postings (00008). Functions are repeatable definitions now
-- (db/definitions/), and an unused one has no place there.
DROP FUNCTION IF EXISTS memory_common_lexemes(real);

-- +goose Down
SELECT 1;

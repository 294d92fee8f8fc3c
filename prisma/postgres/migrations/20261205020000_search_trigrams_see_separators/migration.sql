-- The trigram indexes see separators. pg_trgm takes only letters and digits into trigrams, so `email address` and
-- `email_address` gave the same trigrams: a SUBSTRING phrase of several words had for candidates every text holding
-- its words, each read and refused (the 10,000 columns named …email_address among the benchmark's 1M entries for
-- `email address`: 20 ms). The indexes now read each marked text with every separator (the marks too) turned into a
-- capital letter by its code, which a folded text holds no other way; a lookup turns its phrase the same way
-- (src/services/discovery/search-phrases.ts trigramText, TRIGRAM_SEPARATORS → TRIGRAM_LETTERS, checked against this
-- function by test/discovery/search-trigram-text.test.ts). One SQL expression of built-in functions: inlined, and found
-- under any search_path.
CREATE FUNCTION "provgraph_search_trigrams"(text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $fn$ SELECT translate($1, E'\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f\x20\x21\x22\x23\x24\x25\x26\x27\x28\x29\x2a\x2b\x2c\x2d\x2e\x2f\x3a\x3b\x3c\x3d\x3e\x3f\x40\x5b\x5c\x5d\x5e\x5f\x60\x7b\x7c\x7d\x7e\x7f', 'BCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJKLMNOPQRSTUVGHIJKLMNOPQRSTUVWX') $fn$;

DROP INDEX "SearchEntry_labelMarked_DATASET_idx";
DROP INDEX "SearchEntry_labelMarked_JOB_idx";
DROP INDEX "SearchEntry_labelMarked_PIPELINE_idx";
DROP INDEX "SearchEntry_labelMarked_POLICY_TAG_idx";
DROP INDEX "SearchEntry_labelMarked_COLUMN_idx";
DROP INDEX "SearchEntry_labelMarked_ARTIFACT_idx";
DROP INDEX "SearchEntry_guardedMarked_idx";
CREATE INDEX "SearchEntry_labelTrigrams_DATASET_idx" ON "SearchEntry" USING GIN ("provgraph_search_trigrams"("labelMarked") gin_trgm_ops) WHERE "kind" = 'DATASET';
CREATE INDEX "SearchEntry_labelTrigrams_JOB_idx" ON "SearchEntry" USING GIN ("provgraph_search_trigrams"("labelMarked") gin_trgm_ops) WHERE "kind" = 'JOB';
CREATE INDEX "SearchEntry_labelTrigrams_PIPELINE_idx" ON "SearchEntry" USING GIN ("provgraph_search_trigrams"("labelMarked") gin_trgm_ops) WHERE "kind" = 'PIPELINE';
CREATE INDEX "SearchEntry_labelTrigrams_POLICY_TAG_idx" ON "SearchEntry" USING GIN ("provgraph_search_trigrams"("labelMarked") gin_trgm_ops) WHERE "kind" = 'POLICY_TAG';
CREATE INDEX "SearchEntry_labelTrigrams_COLUMN_idx" ON "SearchEntry" USING GIN ("provgraph_search_trigrams"("labelMarked") gin_trgm_ops) WHERE "kind" = 'COLUMN';
CREATE INDEX "SearchEntry_labelTrigrams_ARTIFACT_idx" ON "SearchEntry" USING GIN ("provgraph_search_trigrams"("labelMarked") gin_trgm_ops) WHERE "kind" = 'ARTIFACT';
CREATE INDEX "SearchEntry_guardedTrigrams_idx" ON "SearchEntry" USING GIN ("provgraph_search_trigrams"("guardedMarked") gin_trgm_ops);

-- The trigram indexes see separators. pg_trgm takes only letters and digits into trigrams, so `email address` and
-- `email_address` gave the same trigrams: a SUBSTRING phrase of several words had for candidates every text holding
-- its words, each read and refused (the 10,000 columns named …email_address among the benchmark's 1M entries for
-- `email address`: 20 ms). The indexes now read each marked text with the separators names use most (space _ - . / :)
-- turned into capital letters, which a folded text holds no other way, and the marks left out (translate() drops the
-- last three, which have no letter: a word mark follows every separator of a text and of a phrase alike); the other
-- separators stay breaks between words, as before (with all of them in its list, translate() cost each entry a
-- recording writes 10 µs; with these 1.5 µs). A lookup turns its phrase the same way
-- (src/services/discovery/search-phrases.ts trigramText, TRIGRAM_SEPARATORS → TRIGRAM_LETTERS, checked against this
-- function by test/discovery/substring-fragments.pg.test.ts). One SQL expression of a built-in function: inlined, and
-- found under any search_path.
CREATE FUNCTION "provgraph_search_trigrams"(text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $fn$ SELECT translate($1, E' _-./:\x01\x02\x03', 'SUHDPC') $fn$;

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

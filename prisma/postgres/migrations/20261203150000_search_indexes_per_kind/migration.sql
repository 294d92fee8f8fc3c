-- The search index's word and trigram indexes of labels, one per kind (partial indexes). A lane reads one kind at a
-- time (src/services/discovery/search-lanes.ts, pgIndexedLaneSql), and through an index of every kind a word common in
-- one kind cost every other kind its whole posting list: looking for '2024' among 100,000 columns read the 500,000
-- artifacts' entries of it (60 ms) to find none. Guarded texts are only columns' (their index stays as it is).
DROP INDEX "SearchEntry_words_idx";
DROP INDEX "SearchEntry_labelMarked_idx";
CREATE INDEX "SearchEntry_words_DATASET_idx" ON "SearchEntry" USING GIN ("provgraph_search_words"("labelMarked", "guardedMarked")) WHERE "kind" = 'DATASET';
CREATE INDEX "SearchEntry_words_JOB_idx" ON "SearchEntry" USING GIN ("provgraph_search_words"("labelMarked", "guardedMarked")) WHERE "kind" = 'JOB';
CREATE INDEX "SearchEntry_words_PIPELINE_idx" ON "SearchEntry" USING GIN ("provgraph_search_words"("labelMarked", "guardedMarked")) WHERE "kind" = 'PIPELINE';
CREATE INDEX "SearchEntry_words_POLICY_TAG_idx" ON "SearchEntry" USING GIN ("provgraph_search_words"("labelMarked", "guardedMarked")) WHERE "kind" = 'POLICY_TAG';
CREATE INDEX "SearchEntry_words_COLUMN_idx" ON "SearchEntry" USING GIN ("provgraph_search_words"("labelMarked", "guardedMarked")) WHERE "kind" = 'COLUMN';
CREATE INDEX "SearchEntry_words_ARTIFACT_idx" ON "SearchEntry" USING GIN ("provgraph_search_words"("labelMarked", "guardedMarked")) WHERE "kind" = 'ARTIFACT';
CREATE INDEX "SearchEntry_labelMarked_DATASET_idx" ON "SearchEntry" USING GIN ("labelMarked" gin_trgm_ops) WHERE "kind" = 'DATASET';
CREATE INDEX "SearchEntry_labelMarked_JOB_idx" ON "SearchEntry" USING GIN ("labelMarked" gin_trgm_ops) WHERE "kind" = 'JOB';
CREATE INDEX "SearchEntry_labelMarked_PIPELINE_idx" ON "SearchEntry" USING GIN ("labelMarked" gin_trgm_ops) WHERE "kind" = 'PIPELINE';
CREATE INDEX "SearchEntry_labelMarked_POLICY_TAG_idx" ON "SearchEntry" USING GIN ("labelMarked" gin_trgm_ops) WHERE "kind" = 'POLICY_TAG';
CREATE INDEX "SearchEntry_labelMarked_COLUMN_idx" ON "SearchEntry" USING GIN ("labelMarked" gin_trgm_ops) WHERE "kind" = 'COLUMN';
CREATE INDEX "SearchEntry_labelMarked_ARTIFACT_idx" ON "SearchEntry" USING GIN ("labelMarked" gin_trgm_ops) WHERE "kind" = 'ARTIFACT';

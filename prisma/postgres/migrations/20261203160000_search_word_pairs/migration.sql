-- The word index also holds each pair of neighbouring words with what separates them ("ledger_entries" as well as
-- "ledger" and "entries"), and a query of several words looks up its pairs (src/services/discovery/search-phrases.ts,
-- lexemes). A word matches only where the query's separators stand between its words, and the words alone could not
-- say so: "ledger entries" had for candidates the 60,000 names holding ledger_entries, every one read and refused
-- (680 ms on a store of 1M names); its pair is in none of them. A separator run longer than 32 characters makes no pair
-- (a lexeme holds at most 2,047 bytes). Words are cut every 200 characters, as before.
CREATE OR REPLACE FUNCTION "provgraph_search_lexemes"(text) RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $fn$
SELECT array_to_tsvector(w."words" || array_remove(ARRAY(
         SELECT CASE WHEN length(w."seps"[i]) <= 32 THEN w."words"[i] || w."seps"[i] || w."words"[i + 1] END
         FROM generate_series(1, cardinality(w."words") - 1) i), NULL))
FROM (SELECT array_remove(regexp_split_to_array(s."t", E'[\\x01-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7f]+'), '') AS "words",
             ARRAY(SELECT (regexp_matches(s."t", E'[\\x01-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7f]+', 'g'))[1]) AS "seps"
      FROM (SELECT regexp_replace(regexp_replace(coalesce($1, ''), E'([^\\x01-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7f]{200})', E'\\1 ', 'g'),
                                  E'^[\\x01-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7f]+|[\\x01-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7f]+$', '', 'g') AS "t") s) w
$fn$;
ALTER FUNCTION "provgraph_search_lexemes"(text) SET search_path FROM CURRENT;
REINDEX INDEX "SearchEntry_words_DATASET_idx";
REINDEX INDEX "SearchEntry_words_JOB_idx";
REINDEX INDEX "SearchEntry_words_PIPELINE_idx";
REINDEX INDEX "SearchEntry_words_POLICY_TAG_idx";
REINDEX INDEX "SearchEntry_words_COLUMN_idx";
REINDEX INDEX "SearchEntry_words_ARTIFACT_idx";

-- The word index also holds each pair of neighbouring words with what separates them ("ledger_entries" as well as
-- "ledger" and "entries"), and a query of several words looks up its pairs (src/services/discovery/search-phrases.ts,
-- lexemes). A word matches only where the query's separators stand between its words, and the words alone could not
-- say so: "ledger entries" had for candidates the 60,000 names holding ledger_entries, every one read and refused
-- (680 ms on a store of 1M names); its pair is in none of them. A separator run longer than 32 characters makes no pair
-- (a lexeme holds at most 2,047 bytes). Words are cut every 200 characters, as before.
-- PL/pgSQL: 13 µs a text on the benchmark's names, where the same in one SQL statement (set-returning functions, which
-- keep PostgreSQL from inlining it) took 140 µs, on every entry a recording writes.
CREATE OR REPLACE FUNCTION "provgraph_search_lexemes"(text) RETURNS tsvector LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $fn$
DECLARE
  -- The text from its first word to its last, each word cut every 200 characters.
  body text := regexp_replace(regexp_replace(coalesce($1, ''), E'([^\\x01-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7f]{200})', E'\\1 ', 'g'),
                              E'^[\\x01-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7f]+|[\\x01-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7f]+$', '', 'g');
  words text[];
  -- The separator runs: seps[i + 1] lies between words[i] and words[i + 1] (the body starts and ends with a word).
  seps text[];
  lexemes text[];
BEGIN
  IF body = '' THEN
    RETURN ''::tsvector;
  END IF;
  words := regexp_split_to_array(body, E'[\\x01-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7f]+');
  seps := regexp_split_to_array(body, E'[^\\x01-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7f]+');
  lexemes := words;
  FOR i IN 1 .. cardinality(words) - 1 LOOP
    IF length(seps[i + 1]) <= 32 THEN
      lexemes := lexemes || (words[i] || seps[i + 1] || words[i + 1]);
    END IF;
  END LOOP;
  RETURN array_to_tsvector(lexemes);
END
$fn$;
ALTER FUNCTION "provgraph_search_lexemes"(text) SET search_path FROM CURRENT;
REINDEX INDEX "SearchEntry_words_DATASET_idx";
REINDEX INDEX "SearchEntry_words_JOB_idx";
REINDEX INDEX "SearchEntry_words_PIPELINE_idx";
REINDEX INDEX "SearchEntry_words_POLICY_TAG_idx";
REINDEX INDEX "SearchEntry_words_COLUMN_idx";
REINDEX INDEX "SearchEntry_words_ARTIFACT_idx";

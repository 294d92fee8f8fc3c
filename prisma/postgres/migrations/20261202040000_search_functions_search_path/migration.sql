-- The search index's functions name each other without a schema. pg_restore (and anything else that
-- evaluates the index expression with an empty search_path) could not find provgraph_search_lexemes
-- while it rebuilt "SearchEntry_words_idx": each function now carries the search_path it was created
-- under, so a pg_dump of a provgraph database restores.
ALTER FUNCTION "provgraph_search_lexemes"(text) SET search_path FROM CURRENT;
ALTER FUNCTION "provgraph_search_words"(text, text) SET search_path FROM CURRENT;

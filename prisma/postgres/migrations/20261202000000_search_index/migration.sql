-- The search index (docs: "Search"): one SearchEntry row per thing search finds (an artifact, a dataset,
-- a column, a job, a pipeline, a policy tag), its texts folded and marked as src/services/discovery/search-text.ts
-- says; the entries of each kind have ids in a range of their own (src/services/discovery/search-kinds.ts).
-- GIN indexes serve words (tsvector: the words of a text as lexemes, weight A for labels, C for
-- descriptions) and substrings (pg_trgm over the marked texts); btree indexes serve whole texts and prefixes.
-- Ids: the top of the range of a kind minus the one sequence (a newer entry has a lower id).
-- Not expressible in the Prisma schema, so written by hand; prisma.config.ts lists these tables as external.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE FUNCTION "provgraph_search_lexemes"(text) RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $fn$ SELECT array_to_tsvector(array_remove(regexp_split_to_array(regexp_replace(coalesce($1, ''), E'([^\\x01-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7f]{200})', E'\\1 ', 'g'), E'[\\x01-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7f]+'), '')) $fn$;

CREATE FUNCTION "provgraph_search_words"(text, text) RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $fn$ SELECT setweight("provgraph_search_lexemes"($1), 'A') || setweight("provgraph_search_lexemes"($2), 'C') $fn$;

CREATE SEQUENCE "SearchEntry_seq";

CREATE TABLE "SearchEntry" (
    "id" BIGINT NOT NULL PRIMARY KEY,
    "kind" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "label" TEXT NOT NULL,
    "labelFolded" TEXT COLLATE "C" NOT NULL,
    "labelMarked" TEXT NOT NULL,
    "keywords" TEXT,
    "keywordsFolded" TEXT COLLATE "C",
    "guarded" TEXT,
    "guardedMarked" TEXT,
    "guardArtifactId" TEXT,
    "guardField" TEXT,
    "target" TEXT NOT NULL,
    "namespace" TEXT COLLATE "C",
    "detail" TEXT
);
CREATE UNIQUE INDEX "SearchEntry_kind_key_key" ON "SearchEntry"("kind", "key");
CREATE INDEX "SearchEntry_kind_labelFolded_id_idx" ON "SearchEntry"("kind", "labelFolded", "id");
CREATE INDEX "SearchEntry_kind_keywordsFolded_id_idx" ON "SearchEntry"("kind", "keywordsFolded", "id");

-- The namespaces of datasets and OpenLineage jobs, with how many of each (kept with the entries).
CREATE TABLE "SearchNamespace" (
    "name" TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    "datasets" INTEGER NOT NULL DEFAULT 0,
    "jobs" INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX "SearchEntry_words_idx" ON "SearchEntry" USING GIN ("provgraph_search_words"("labelMarked", "guardedMarked"));
CREATE INDEX "SearchEntry_labelMarked_idx" ON "SearchEntry" USING GIN ("labelMarked" gin_trgm_ops);
CREATE INDEX "SearchEntry_guardedMarked_idx" ON "SearchEntry" USING GIN ("guardedMarked" gin_trgm_ops);

-- What the store holds already. Within a kind, ids follow recording order downwards from the top of its range.
INSERT INTO "SearchEntry" ("id", "kind", "key", "label", "labelFolded", "keywords", "keywordsFolded", "target", "detail", "labelMarked")
SELECT 7696581394431 - row_number() OVER (ORDER BY "createdAt", "id") + 1, 'ARTIFACT', "id", "originalName", translate(left("originalName", 512), E'ABCDEFGHIJKLMNOPQRSTUVWXYZ\x01\x02\x03', E'abcdefghijklmnopqrstuvwxyz   '), "artifactType", translate(left("artifactType", 512), E'ABCDEFGHIJKLMNOPQRSTUVWXYZ\x01\x02\x03', E'abcdefghijklmnopqrstuvwxyz   '), "id", "artifactType", E'\x02\x01' || regexp_replace(translate(left("originalName", 2000), E'ABCDEFGHIJKLMNOPQRSTUVWXYZ\x01\x02\x03', E'abcdefghijklmnopqrstuvwxyz   '), E'([\\x01-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7f])', E'\\1\x01', 'g') || E'\x03'
FROM "Artifact" WHERE "datasetNamespace" IS NULL;

INSERT INTO "SearchEntry" ("id", "kind", "key", "label", "labelFolded", "keywords", "keywordsFolded", "target", "namespace", "detail", "labelMarked")
SELECT 2199023255551 - row_number() OVER (ORDER BY d."first", d."namespace", d."name") + 1, 'DATASET', length(d."namespace") || ':' || d."namespace" || length(d."name") || ':' || d."name",
       d."namespace" || '/' || d."name", translate(left(d."namespace" || '/' || d."name", 512), E'ABCDEFGHIJKLMNOPQRSTUVWXYZ\x01\x02\x03', E'abcdefghijklmnopqrstuvwxyz   '), d."name", translate(left(d."name", 512), E'ABCDEFGHIJKLMNOPQRSTUVWXYZ\x01\x02\x03', E'abcdefghijklmnopqrstuvwxyz   '), d."version", d."namespace", 'dataset in ' || d."namespace", E'\x02\x01' || regexp_replace(translate(left(d."namespace" || '/' || d."name", 2000), E'ABCDEFGHIJKLMNOPQRSTUVWXYZ\x01\x02\x03', E'abcdefghijklmnopqrstuvwxyz   '), E'([\\x01-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7f])', E'\\1\x01', 'g') || E'\x03'
FROM (SELECT "datasetNamespace" AS "namespace", "datasetName" AS "name", min("createdAt") AS "first", max("id") AS "version" FROM "Artifact" WHERE "datasetNamespace" IS NOT NULL GROUP BY "datasetNamespace", "datasetName") d;

-- A column: one entry per dataset and field (in the schema of a version, or named by a column edge), with the newest
-- description reported; in the order recording would have indexed them (first seen, then schema position).
INSERT INTO "SearchEntry" ("id", "kind", "key", "label", "labelFolded", "keywords", "keywordsFolded", "guarded", "guardArtifactId", "guardField", "target", "namespace", "detail", "labelMarked", "guardedMarked")
SELECT 6597069766655 - row_number() OVER (ORDER BY c."first", c."namespace", c."name", c."position", c."field") + 1, 'COLUMN',
       length(c."namespace") || ':' || c."namespace" || length(c."name") || ':' || c."name" || c."field",
       c."namespace" || '/' || c."name" || '.' || c."field", translate(left(c."namespace" || '/' || c."name" || '.' || c."field", 512), E'ABCDEFGHIJKLMNOPQRSTUVWXYZ\x01\x02\x03', E'abcdefghijklmnopqrstuvwxyz   '), c."field", translate(left(c."field", 512), E'ABCDEFGHIJKLMNOPQRSTUVWXYZ\x01\x02\x03', E'abcdefghijklmnopqrstuvwxyz   '),
       substr(d."description", 1, 2000), d."artifactId", CASE WHEN d."artifactId" IS NULL THEN NULL ELSE c."field" END,
       c."version", c."namespace", 'column of ' || c."namespace" || '/' || c."name", E'\x02\x01' || regexp_replace(translate(left(c."namespace" || '/' || c."name" || '.' || c."field", 2000), E'ABCDEFGHIJKLMNOPQRSTUVWXYZ\x01\x02\x03', E'abcdefghijklmnopqrstuvwxyz   '), E'([\\x01-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7f])', E'\\1\x01', 'g') || E'\x03', E'\x02\x01' || regexp_replace(translate(left(substr(d."description", 1, 2000), 2000), E'ABCDEFGHIJKLMNOPQRSTUVWXYZ\x01\x02\x03', E'abcdefghijklmnopqrstuvwxyz   '), E'([\\x01-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7f])', E'\\1\x01', 'g') || E'\x03'
FROM (
  SELECT a."datasetNamespace" AS "namespace", a."datasetName" AS "name", f."field", min(a."createdAt") AS "first", max(a."id") AS "version", min(f."position") AS "position"
  FROM (SELECT "artifactId", "field", "position" FROM "DatasetColumn"
        UNION SELECT "sourceId", "sourceField", 2147483647 FROM "ColumnEdge"
        UNION SELECT "targetId", "targetField", 2147483647 FROM "ColumnEdge" WHERE "targetField" IS NOT NULL) f
  JOIN "Artifact" a ON a."id" = f."artifactId" AND a."datasetNamespace" IS NOT NULL
  GROUP BY a."datasetNamespace", a."datasetName", f."field"
) c
LEFT JOIN (
  SELECT a."datasetNamespace" AS "namespace", a."datasetName" AS "name", dc."field", dc."description", dc."artifactId",
         row_number() OVER (PARTITION BY a."datasetNamespace", a."datasetName", dc."field" ORDER BY a."createdAt" DESC, a."id" DESC) AS "n"
  FROM "DatasetColumn" dc JOIN "Artifact" a ON a."id" = dc."artifactId" AND a."datasetNamespace" IS NOT NULL WHERE dc."description" IS NOT NULL
) d ON d."namespace" = c."namespace" AND d."name" = c."name" AND d."field" = c."field" AND d."n" = 1;

INSERT INTO "SearchEntry" ("id", "kind", "key", "label", "labelFolded", "keywords", "keywordsFolded", "target", "namespace", "detail", "labelMarked")
SELECT 3298534883327 - row_number() OVER (ORDER BY "createdAt", "id") + 1, 'JOB', "id", "name", translate(left("name", 512), E'ABCDEFGHIJKLMNOPQRSTUVWXYZ\x01\x02\x03', E'abcdefghijklmnopqrstuvwxyz   '),
       CASE WHEN "version" LIKE 'openlineage:%' THEN substr("version", 13) END,
       CASE WHEN "version" LIKE 'openlineage:%' THEN translate(left(substr("version", 13), 512), E'ABCDEFGHIJKLMNOPQRSTUVWXYZ\x01\x02\x03', E'abcdefghijklmnopqrstuvwxyz   ') END,
       CASE WHEN "version" LIKE 'openlineage:%' THEN 'job:' || substr("version", 13) || '/' || "name" ELSE "id" END,
       CASE WHEN "version" LIKE 'openlineage:%' THEN substr("version", 13) END,
       CASE WHEN "version" LIKE 'openlineage:%' THEN 'OpenLineage job in ' || substr("version", 13) ELSE lower("kind") || ' operation, version ' || "version" END, E'\x02\x01' || regexp_replace(translate(left("name", 2000), E'ABCDEFGHIJKLMNOPQRSTUVWXYZ\x01\x02\x03', E'abcdefghijklmnopqrstuvwxyz   '), E'([\\x01-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7f])', E'\\1\x01', 'g') || E'\x03'
FROM "Operation";

INSERT INTO "SearchEntry" ("id", "kind", "key", "label", "labelFolded", "target", "detail", "labelMarked")
SELECT 4398046511103 - row_number() OVER (ORDER BY min("createdAt"), "pipeline") + 1, 'PIPELINE', "pipeline", "pipeline", translate(left("pipeline", 512), E'ABCDEFGHIJKLMNOPQRSTUVWXYZ\x01\x02\x03', E'abcdefghijklmnopqrstuvwxyz   '), 'pipeline:' || "pipeline", 'pipeline', E'\x02\x01' || regexp_replace(translate(left("pipeline", 2000), E'ABCDEFGHIJKLMNOPQRSTUVWXYZ\x01\x02\x03', E'abcdefghijklmnopqrstuvwxyz   '), E'([\\x01-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7f])', E'\\1\x01', 'g') || E'\x03'
FROM "PipelineStep" GROUP BY "pipeline";

INSERT INTO "SearchEntry" ("id", "kind", "key", "label", "labelFolded", "target", "detail", "labelMarked")
SELECT 5497558138879 - row_number() OVER (ORDER BY min("createdAt"), "tag") + 1, 'POLICY_TAG', "tag", "tag", translate(left("tag", 512), E'ABCDEFGHIJKLMNOPQRSTUVWXYZ\x01\x02\x03', E'abcdefghijklmnopqrstuvwxyz   '), 'tag:' || "tag", 'policy tag', E'\x02\x01' || regexp_replace(translate(left("tag", 2000), E'ABCDEFGHIJKLMNOPQRSTUVWXYZ\x01\x02\x03', E'abcdefghijklmnopqrstuvwxyz   '), E'([\\x01-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7f])', E'\\1\x01', 'g') || E'\x03'
FROM "PolicyTagAssignment" GROUP BY "tag";

INSERT INTO "SearchNamespace" ("name", "datasets", "jobs")
SELECT "namespace", sum(CASE WHEN "kind" = 'DATASET' THEN 1 ELSE 0 END), sum(CASE WHEN "kind" = 'JOB' THEN 1 ELSE 0 END)
FROM "SearchEntry" WHERE "kind" IN ('DATASET', 'JOB') AND "namespace" IS NOT NULL GROUP BY "namespace";

SELECT setval('"SearchEntry_seq"', (SELECT coalesce(max(1099511627775 - "id" % 1099511627776), 0) + 1 FROM "SearchEntry"), false);

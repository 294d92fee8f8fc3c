-- The search index (docs: "Search"): one SearchEntry row per thing search finds (an artifact, a dataset,
-- a column, a job, a pipeline, a policy tag), its texts folded and marked as src/services/discovery/search-text.ts
-- says; the entries of each kind have ids in a range of their own (src/services/discovery/search-kinds.ts).
-- Under the same id, its label (and a column description, in its own table) is in an FTS5 table whose
-- trigrams find the candidates of words and substrings (tokenizer trigram, case-sensitive: the texts come
-- folded, detail none: the trigrams of a query are looked up as a conjunction and each candidate is checked);
-- btree indexes serve whole texts and prefixes.
-- Not expressible in the Prisma schema, so written by hand; prisma.config.ts lists these tables as external.
CREATE TABLE "SearchEntry" (
    "id" INTEGER NOT NULL PRIMARY KEY,
    "kind" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "label" TEXT NOT NULL,
    "labelFolded" TEXT NOT NULL,
    "keywords" TEXT,
    "keywordsFolded" TEXT,
    "guarded" TEXT,
    "guardArtifactId" TEXT,
    "guardField" TEXT,
    "target" TEXT NOT NULL,
    "namespace" TEXT,
    "detail" TEXT
);
CREATE UNIQUE INDEX "SearchEntry_kind_key_key" ON "SearchEntry"("kind", "key");
CREATE INDEX "SearchEntry_kind_labelFolded_id_idx" ON "SearchEntry"("kind", "labelFolded", "id");
CREATE INDEX "SearchEntry_kind_keywordsFolded_id_idx" ON "SearchEntry"("kind", "keywordsFolded", "id");

-- The namespaces of datasets and OpenLineage jobs, with how many of each (kept with the entries).
CREATE TABLE "SearchNamespace" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "datasets" INTEGER NOT NULL DEFAULT 0,
    "jobs" INTEGER NOT NULL DEFAULT 0
);
CREATE VIRTUAL TABLE "SearchLabelText" USING fts5("text", tokenize = 'trigram case_sensitive 1', detail = none, content = '', contentless_delete = 1);
CREATE VIRTUAL TABLE "SearchGuardedText" USING fts5("text", tokenize = 'trigram case_sensitive 1', detail = none, content = '', contentless_delete = 1);

-- What the store holds already. Within a kind, ids follow recording order downwards from the top of its range.
INSERT INTO "SearchEntry" ("id", "kind", "key", "label", "labelFolded", "keywords", "keywordsFolded", "target", "detail")
SELECT 7696581394431 - row_number() OVER (ORDER BY "createdAt", "id") + 1, 'ARTIFACT', "id", "originalName", lower(replace(replace(replace(substr("originalName", 1, 512), char(1), ' '), char(2), ' '), char(3), ' ')), "artifactType", lower(replace(replace(replace(substr("artifactType", 1, 512), char(1), ' '), char(2), ' '), char(3), ' ')), "id", "artifactType"
FROM "Artifact" WHERE "datasetNamespace" IS NULL;

INSERT INTO "SearchEntry" ("id", "kind", "key", "label", "labelFolded", "keywords", "keywordsFolded", "target", "namespace", "detail")
SELECT 2199023255551 - row_number() OVER (ORDER BY d."first", d."namespace", d."name") + 1, 'DATASET', length(d."namespace") || ':' || d."namespace" || length(d."name") || ':' || d."name",
       d."namespace" || '/' || d."name", lower(replace(replace(replace(substr(d."namespace" || '/' || d."name", 1, 512), char(1), ' '), char(2), ' '), char(3), ' ')), d."name", lower(replace(replace(replace(substr(d."name", 1, 512), char(1), ' '), char(2), ' '), char(3), ' ')), d."version", d."namespace", 'dataset in ' || d."namespace"
FROM (SELECT "datasetNamespace" AS "namespace", "datasetName" AS "name", min("createdAt") AS "first", max("id") AS "version" FROM "Artifact" WHERE "datasetNamespace" IS NOT NULL GROUP BY "datasetNamespace", "datasetName") d;

-- A column: one entry per dataset and field (in the schema of a version, or named by a column edge), with the newest
-- description reported; in the order recording would have indexed them (first seen, then schema position).
INSERT INTO "SearchEntry" ("id", "kind", "key", "label", "labelFolded", "keywords", "keywordsFolded", "guarded", "guardArtifactId", "guardField", "target", "namespace", "detail")
SELECT 6597069766655 - row_number() OVER (ORDER BY c."first", c."namespace", c."name", c."position", c."field") + 1, 'COLUMN',
       length(c."namespace") || ':' || c."namespace" || length(c."name") || ':' || c."name" || c."field",
       c."namespace" || '/' || c."name" || '.' || c."field", lower(replace(replace(replace(substr(c."namespace" || '/' || c."name" || '.' || c."field", 1, 512), char(1), ' '), char(2), ' '), char(3), ' ')), c."field", lower(replace(replace(replace(substr(c."field", 1, 512), char(1), ' '), char(2), ' '), char(3), ' ')),
       substr(d."description", 1, 2000), d."artifactId", CASE WHEN d."artifactId" IS NULL THEN NULL ELSE c."field" END,
       c."version", c."namespace", 'column of ' || c."namespace" || '/' || c."name"
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

INSERT INTO "SearchEntry" ("id", "kind", "key", "label", "labelFolded", "keywords", "keywordsFolded", "target", "namespace", "detail")
SELECT 3298534883327 - row_number() OVER (ORDER BY "createdAt", "id") + 1, 'JOB', "id", "name", lower(replace(replace(replace(substr("name", 1, 512), char(1), ' '), char(2), ' '), char(3), ' ')),
       CASE WHEN "version" LIKE 'openlineage:%' THEN substr("version", 13) END,
       CASE WHEN "version" LIKE 'openlineage:%' THEN lower(replace(replace(replace(substr(substr("version", 13), 1, 512), char(1), ' '), char(2), ' '), char(3), ' ')) END,
       CASE WHEN "version" LIKE 'openlineage:%' THEN 'job:' || substr("version", 13) || '/' || "name" ELSE "id" END,
       CASE WHEN "version" LIKE 'openlineage:%' THEN substr("version", 13) END,
       CASE WHEN "version" LIKE 'openlineage:%' THEN 'OpenLineage job in ' || substr("version", 13) ELSE lower("kind") || ' operation, version ' || "version" END
FROM "Operation";

INSERT INTO "SearchEntry" ("id", "kind", "key", "label", "labelFolded", "target", "detail")
SELECT 4398046511103 - row_number() OVER (ORDER BY min("createdAt"), "pipeline") + 1, 'PIPELINE', "pipeline", "pipeline", lower(replace(replace(replace(substr("pipeline", 1, 512), char(1), ' '), char(2), ' '), char(3), ' ')), 'pipeline:' || "pipeline", 'pipeline'
FROM "PipelineStep" GROUP BY "pipeline";

INSERT INTO "SearchEntry" ("id", "kind", "key", "label", "labelFolded", "target", "detail")
SELECT 5497558138879 - row_number() OVER (ORDER BY min("createdAt"), "tag") + 1, 'POLICY_TAG', "tag", "tag", lower(replace(replace(replace(substr("tag", 1, 512), char(1), ' '), char(2), ' '), char(3), ' ')), 'tag:' || "tag", 'policy tag'
FROM "PolicyTagAssignment" GROUP BY "tag";

INSERT INTO "SearchNamespace" ("name", "datasets", "jobs")
SELECT "namespace", sum(CASE WHEN "kind" = 'DATASET' THEN 1 ELSE 0 END), sum(CASE WHEN "kind" = 'JOB' THEN 1 ELSE 0 END)
FROM "SearchEntry" WHERE "kind" IN ('DATASET', 'JOB') AND "namespace" IS NOT NULL GROUP BY "namespace";

INSERT INTO "SearchLabelText" (rowid, "text") SELECT "id", char(2, 1) || replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(lower(replace(replace(replace(substr("label", 1, 2000), char(1), ' '), char(2), ' '), char(3), ' ')), char(4), char(4, 1)), char(5), char(5, 1)), char(6), char(6, 1)), char(7), char(7, 1)), char(8), char(8, 1)), char(9), char(9, 1)), char(10), char(10, 1)), char(11), char(11, 1)), char(12), char(12, 1)), char(13), char(13, 1)), char(14), char(14, 1)), char(15), char(15, 1)), char(16), char(16, 1)), char(17), char(17, 1)), char(18), char(18, 1)), char(19), char(19, 1)), char(20), char(20, 1)), char(21), char(21, 1)), char(22), char(22, 1)), char(23), char(23, 1)), char(24), char(24, 1)), char(25), char(25, 1)), char(26), char(26, 1)), char(27), char(27, 1)), char(28), char(28, 1)), char(29), char(29, 1)), char(30), char(30, 1)), char(31), char(31, 1)), char(32), char(32, 1)), char(33), char(33, 1)), char(34), char(34, 1)), char(35), char(35, 1)), char(36), char(36, 1)), char(37), char(37, 1)), char(38), char(38, 1)), char(39), char(39, 1)), char(40), char(40, 1)), char(41), char(41, 1)), char(42), char(42, 1)), char(43), char(43, 1)), char(44), char(44, 1)), char(45), char(45, 1)), char(46), char(46, 1)), char(47), char(47, 1)), char(58), char(58, 1)), char(59), char(59, 1)), char(60), char(60, 1)), char(61), char(61, 1)), char(62), char(62, 1)), char(63), char(63, 1)), char(64), char(64, 1)), char(91), char(91, 1)), char(92), char(92, 1)), char(93), char(93, 1)), char(94), char(94, 1)), char(95), char(95, 1)), char(96), char(96, 1)), char(123), char(123, 1)), char(124), char(124, 1)), char(125), char(125, 1)), char(126), char(126, 1)), char(127), char(127, 1)) || char(3) FROM "SearchEntry";
INSERT INTO "SearchGuardedText" (rowid, "text") SELECT "id", char(2, 1) || replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(lower(replace(replace(replace(substr("guarded", 1, 2000), char(1), ' '), char(2), ' '), char(3), ' ')), char(4), char(4, 1)), char(5), char(5, 1)), char(6), char(6, 1)), char(7), char(7, 1)), char(8), char(8, 1)), char(9), char(9, 1)), char(10), char(10, 1)), char(11), char(11, 1)), char(12), char(12, 1)), char(13), char(13, 1)), char(14), char(14, 1)), char(15), char(15, 1)), char(16), char(16, 1)), char(17), char(17, 1)), char(18), char(18, 1)), char(19), char(19, 1)), char(20), char(20, 1)), char(21), char(21, 1)), char(22), char(22, 1)), char(23), char(23, 1)), char(24), char(24, 1)), char(25), char(25, 1)), char(26), char(26, 1)), char(27), char(27, 1)), char(28), char(28, 1)), char(29), char(29, 1)), char(30), char(30, 1)), char(31), char(31, 1)), char(32), char(32, 1)), char(33), char(33, 1)), char(34), char(34, 1)), char(35), char(35, 1)), char(36), char(36, 1)), char(37), char(37, 1)), char(38), char(38, 1)), char(39), char(39, 1)), char(40), char(40, 1)), char(41), char(41, 1)), char(42), char(42, 1)), char(43), char(43, 1)), char(44), char(44, 1)), char(45), char(45, 1)), char(46), char(46, 1)), char(47), char(47, 1)), char(58), char(58, 1)), char(59), char(59, 1)), char(60), char(60, 1)), char(61), char(61, 1)), char(62), char(62, 1)), char(63), char(63, 1)), char(64), char(64, 1)), char(91), char(91, 1)), char(92), char(92, 1)), char(93), char(93, 1)), char(94), char(94, 1)), char(95), char(95, 1)), char(96), char(96, 1)), char(123), char(123, 1)), char(124), char(124, 1)), char(125), char(125, 1)), char(126), char(126, 1)), char(127), char(127, 1)) || char(3) FROM "SearchEntry" WHERE "guarded" IS NOT NULL;

-- Each hop of a lineage walk (the artifact and column closures, the graph's walk, impact) looks up the edges at one node
-- in the edge table's index, in a LATERAL subquery per node (src/services/lineage/closure-sql.ts). PostgreSQL plans that
-- lookup from the column's statistics, for any node: where a few ids hold most of the edges (a column feeding 20,000
-- columns of one dataset version, so that every ColumnEdge row has one sourceId), ANALYZE finds one distinct value, the
-- planner expects each lookup to return the whole table and scans the table instead, once per node walked: 20,000 scans
-- of 20,000 rows, a walk of half a second stopped by its 8 s budget. Ids of artifacts and dataset versions are many by
-- nature; these columns say so (a tenth of the rows distinct), so a lookup is planned as the index probe it is whatever
-- the store's shape. The setting is read by ANALYZE: run now, for stores analyzed already.
ALTER TABLE "ColumnEdge" ALTER COLUMN "sourceId" SET (n_distinct = -0.1);
ALTER TABLE "ColumnEdge" ALTER COLUMN "targetId" SET (n_distinct = -0.1);
ALTER TABLE "ProvenanceEdge" ALTER COLUMN "sourceId" SET (n_distinct = -0.1);
ALTER TABLE "ProvenanceEdge" ALTER COLUMN "targetId" SET (n_distinct = -0.1);
ANALYZE "ColumnEdge";
ANALYZE "ProvenanceEdge";

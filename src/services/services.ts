import { defaultPlugins } from "../../plugins/registry";
import type { ProvgraphPlugin } from "../../plugins/types";
import type { Database } from "../db/client";
import { ArtifactReader } from "./artifact-reader";
import { CompositeReader, CompositeRecorder, CompositeRegistry } from "./composites";
import { ExecutionReader } from "./execution-reader";
import { GraphViews } from "./graph-views/graph-views";
import { type ColumnServices, createColumnServices } from "./columns";
import { createLineageServices, type LineageServices } from "./lineage";
import { OperationReader } from "./operation-reader";
import { type CommitPath, ExecutionRecorder, OperationRegistry, TransactionPerUnit } from "./recording";

/** The core, as the GraphQL layer sees it: one object per concern, all over one database. */
export interface Services {
  database: Database;
  artifacts: ArtifactReader;
  executions: ExecutionReader;
  operations: OperationReader;
  registry: OperationRegistry;
  /** The one write path every recording takes (recordExecution, batches, composites, OpenLineage). */
  commits: CommitPath;
  recorder: ExecutionRecorder;
  /** Composites: registration (with the soundness check), recording a run as one unit, reads. */
  composites: { registry: CompositeRegistry; recorder: CompositeRecorder; reader: CompositeReader };
  /** The recording pipeline's plugins, in order (every recording unit runs them). */
  plugins: readonly ProvgraphPlugin[];
  lineage: LineageServices;
  columns: ColumnServices;
  graphViews: GraphViews;
}

/** `plugins`: the recording pipeline's plugins, in order (plugins/registry.ts has the default list). */
export function createServices(database: Database, plugins: readonly ProvgraphPlugin[] = defaultPlugins): Services {
  const db = database.prisma;
  const registry = new OperationRegistry(db);
  const commits = new TransactionPerUnit(db);
  const composites = new CompositeRegistry(db, commits, registry);
  return {
    database,
    artifacts: new ArtifactReader(db),
    executions: new ExecutionReader(db),
    operations: new OperationReader(db),
    registry,
    commits,
    recorder: new ExecutionRecorder(commits, registry, plugins),
    composites: { registry: composites, recorder: new CompositeRecorder(commits, composites, registry, plugins), reader: new CompositeReader(db) },
    plugins,
    lineage: createLineageServices(database),
    columns: createColumnServices(database),
    graphViews: new GraphViews(db),
  };
}

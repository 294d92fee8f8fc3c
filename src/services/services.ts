import { defaultPlugins } from "../../plugins/registry";
import type { ProvgraphPlugin } from "../../plugins/types";
import type { Database } from "../db/client";
import { ArtifactReader } from "./artifact-reader";
import { CompositeReader, CompositeRecorder, CompositeRegistry } from "./composites";
import { ExecutionReader } from "./execution-reader";
import { GraphViews } from "./graph-views/graph-views";
import { createLineageServices, type LineageServices } from "./lineage";
import { OperationReader } from "./operation-reader";
import { type CommitPath, type EventJournal, ExecutionRecorder, GroupCommit, OperationRegistry } from "./recording";

/**
 * The core, as the GraphQL layer sees it: one object per concern, all over one database. Reads go
 * to the read client (database.reader: another connection, or a replica); writes go through the one
 * commit path on the writer; registries read what must be fresh from the primary (primaryReader).
 */
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
  lineage: LineageServices;
  graphViews: GraphViews;
}

export interface ServiceOptions {
  /** The recording pipeline's plugins, in order (plugins/registry.ts has the default list). */
  plugins?: readonly ProvgraphPlugin[];
  /** The feed log the commit path writes in each transaction (see EventJournal). */
  journal?: EventJournal;
}

export function createServices(database: Database, { plugins = defaultPlugins, journal }: ServiceOptions = {}): Services {
  const read = database.reader;
  const commits = new GroupCommit(database, { journal });
  const registry = new OperationRegistry(database.primaryReader, commits);
  const composites = new CompositeRegistry(database.primaryReader, commits, registry);
  return {
    database,
    artifacts: new ArtifactReader(read),
    executions: new ExecutionReader(read),
    operations: new OperationReader(read),
    registry,
    commits,
    recorder: new ExecutionRecorder(commits, registry, plugins),
    composites: { registry: composites, recorder: new CompositeRecorder(commits, composites, registry, plugins), reader: new CompositeReader(read) },
    lineage: createLineageServices(database),
    graphViews: new GraphViews(read),
  };
}

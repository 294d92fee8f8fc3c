import { defaultPlugins } from "../../plugins/registry";
import type { ProvgraphPlugin } from "../../plugins/types";
import type { Database } from "../db/client";
import { ArtifactReader } from "./artifact-reader";
import { CompositeReader, CompositeRecorder, CompositeRegistry } from "./composites";
import { ExecutionReader } from "./execution-reader";
import { DEFAULT_FEED_OPTIONS, FeedLog, type FeedOptions, Feeds } from "./feeds";
import { GraphViews } from "./graph-views/graph-views";
import { type ColumnServices, createColumnServices } from "./columns";
import { type ComplianceServices, createComplianceEngines, createComplianceServices, settleUnitSubjects } from "./compliance";
import { createLineageServices, type LineageServices } from "./lineage";
import { OperationReader } from "./operation-reader";
import { type CommitPath, ExecutionRecorder, OperationRegistry, runPropagatePlugins, TransactionPerUnit, type UnitFinisher } from "./recording";

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
  /** Live feeds of what the commit path commits (subscriptions). Start it before serving (Feeds.start). */
  feeds: Feeds;
  /** Policy tags, evidence packages, erasure plans. */
  compliance: ComplianceServices;
}

/** What the core needs from configuration beyond the database. */
export interface ServiceOptions {
  /** PROVGRAPH_ERASURE_SECRET (null: data subjects cannot be recorded). */
  erasureSecret: string | null;
}

/**
 * `plugins`: the recording pipeline's plugins, in order (plugins/registry.ts has the default list).
 * `feeds`: the feeds' bounds and the broadcast that shares them across instances.
 */
export function createServices(
  database: Database,
  plugins: readonly ProvgraphPlugin[] = defaultPlugins,
  feeds: FeedOptions = DEFAULT_FEED_OPTIONS,
  options: ServiceOptions = { erasureSecret: null },
): Services {
  const db = database.prisma;
  const registry = new OperationRegistry(db);
  // Every committed event is appended to the feed log inside its transaction (the journal).
  const feedLog = new FeedLog(db, database.provider);
  // The end of every unit, before its commit: declared data subjects are checked against the
  // suppression list and recorded, then the propagate plugins derive from what the unit wrote.
  const engines = createComplianceEngines(database, options);
  const finishUnit: UnitFinisher = async (tx, writes) => {
    await settleUnitSubjects(engines, tx, writes);
    await runPropagatePlugins(tx, plugins, writes, { tagFlow: engines.tagFlow });
  };
  const commits = new TransactionPerUnit(db, undefined, feedLog, finishUnit);
  const columns = createColumnServices(database);
  const composites = new CompositeRegistry(db, commits, registry);
  const lineage = createLineageServices(database);
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
    lineage,
    columns,
    graphViews: new GraphViews(db),
    feeds: new Feeds(feedLog, commits, db, lineage.closures, feeds),
    compliance: createComplianceServices(engines, database, commits, columns),
  };
}

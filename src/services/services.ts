import { defaultPlugins } from "../../plugins/registry";
import type { ProvgraphPlugin } from "../../plugins/types";
import type { Database } from "../db/client";
import { ArtifactReader } from "./artifact-reader";
import { CompositeReader, CompositeRecorder, CompositeRegistry } from "./composites";
import { ExecutionReader } from "./execution-reader";
import { DEFAULT_FEED_OPTIONS, FeedLog, type FeedOptions, Feeds } from "./feeds";
import { GraphViews } from "./graph-views/graph-views";
import { CORE_INVARIANTS, IntegrityChecker } from "./integrity";
import { type ColumnServices, createColumnServices } from "./columns";
import { type ComplianceServices, createComplianceEngines, createComplianceServices, inheritedPolicyTags, settleUnitSubjects } from "./compliance";
import { createLineageServices, type LineageServices } from "./lineage";
import { OperationReader } from "./operation-reader";
import { type CommitPath, ExecutionRecorder, GroupCommit, OperationRegistry, runPropagatePlugins, type UnitFinisher } from "./recording";

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
  /** The recording pipeline's plugins, in order (every recording unit runs them). */
  plugins: readonly ProvgraphPlugin[];
  lineage: LineageServices;
  columns: ColumnServices;
  graphViews: GraphViews;
  /** Live feeds of what the commit path commits (subscriptions). Start it before serving (Feeds.start). */
  feeds: Feeds;
  /** The store's invariants (integrityReport); rooms outside the core register theirs at start-up. */
  integrity: IntegrityChecker;
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
  const read = database.reader;
  // Every committed event is appended to the feed log inside its transaction (the journal).
  const feedLog = new FeedLog(database.primaryReader, database.provider);
  // The end of every unit, before its commit: declared data subjects are checked against the
  // suppression list and recorded, then the propagate plugins derive from what the unit wrote.
  const engines = createComplianceEngines(database, options);
  const finishUnit: UnitFinisher = async (tx, writes) => {
    await settleUnitSubjects(engines, tx, writes);
    await runPropagatePlugins(tx, plugins, writes, { tagFlow: engines.tagFlow });
  };
  const commits = new GroupCommit(database, { journal: feedLog, finishUnit });
  const registry = new OperationRegistry(database.primaryReader, commits);
  const composites = new CompositeRegistry(database.primaryReader, commits, registry);
  const columns = createColumnServices(database);
  const lineage = createLineageServices(database);
  return {
    database,
    artifacts: new ArtifactReader(read),
    executions: new ExecutionReader(read),
    operations: new OperationReader(read),
    registry,
    commits,
    recorder: new ExecutionRecorder(commits, registry, plugins),
    composites: { registry: composites, recorder: new CompositeRecorder(commits, composites, registry, plugins), reader: new CompositeReader(read) },
    plugins,
    lineage,
    columns,
    graphViews: new GraphViews(read),
    // Replays must see every committed event (a replica may lag): they read the primary.
    feeds: new Feeds(feedLog, commits, database.primaryReader, lineage.closures, feeds),
    compliance: createComplianceServices(engines, database, commits, columns),
    // Checks the truth, not a replica that may lag (an admin asks after a crash, before writes resume).
    integrity: new IntegrityChecker(database.primaryReader, [...CORE_INVARIANTS, inheritedPolicyTags(commits, engines.tagFlow)]),
  };
}

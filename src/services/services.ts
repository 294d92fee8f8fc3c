import { defaultPlugins } from "../../plugins/registry";
import type { ProvgraphPlugin } from "../../plugins/types";
import type { Database } from "../db/client";
import { ArtifactReader } from "./artifact-reader";
import { RowsById } from "../db/rows-by-id";
import { CompositeReader, CompositeRecorder, CompositeRegistry } from "./composites";
import { ExecutionReader } from "./execution-reader";
import { DEFAULT_FEED_OPTIONS, FeedLog, type FeedOptions, Feeds } from "./feeds";
import { GraphViews } from "./graph-views";
import { HeavyReads, type HeavyReadsOptions, RequestBudget } from "./heavy-reads";
import { CORE_INVARIANTS, IntegrityChecker } from "./integrity";
import { type ColumnServices, createColumnServices } from "./columns";
import { type ComplianceServices, createComplianceEngines, createComplianceServices, inheritedPolicyTags, type SigningKeys, settleUnitRunPurposes, settleUnitSubjects, type SubjectKeyRules } from "./compliance";
import { createDiscovery, type Discovery, indexSearchableWrites } from "./discovery";
import { createLineageServices, type LineageServices } from "./lineage";
import { OperationReader } from "./operation-reader";
import { createPrivacyEngines, createPrivacyServices, type PrivacyServices, privacyLedger, settleUnitReleases } from "./privacy";
import { type CommitPath, ExecutionRecorder, GroupCommit, OperationRegistry, type RecordingObserver, runPropagatePlugins, type UnitFinisher } from "./recording";

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
  /** Lineage drawn for user interfaces: neighbourhood graphs, expansion, paths, impact. */
  /** Live feeds of what the commit path commits (subscriptions). Start it before serving (Feeds.start). */
  feeds: Feeds;
  /** The store's invariants (integrityReport); rooms outside the core register theirs at start-up. */
  integrity: IntegrityChecker;
  /** Policy tags, evidence packages, erasure plans. */
  compliance: ComplianceServices;
  /** Heavy reads (graph views, evidence, PROV-JSON, closures; on SQLite, a search lane's rest), run off the event loop in worker threads under a time budget. */
  heavyReads: HeavyReads;
  /** Search and the listings a user interface pages through. */
  discovery: Discovery;
  /** Differential-privacy budgets and their ledgers. */
  privacy: PrivacyServices;
}

/** What the core needs from configuration beyond the database. */
export interface ServiceOptions {
  /** PROVGRAPH_ERASURE_SECRET (null: data subjects cannot be recorded). */
  erasureSecret: string | null;
  /** The heavy-read pool's threads and budgets (default: run heavy reads in process, 30 s, 10,000 nodes). */
  heavyReads?: Pick<HeavyReadsOptions, "threads" | "budgetMs" | "maxResultNodes">;
  /** Told every recording's outcome (the server's metrics). */
  recordings?: RecordingObserver;
  /** How subject keys are normalised before hashing (PROVGRAPH_SUBJECT_KEYS_CASE_INSENSITIVE). */
  subjectKeyRules?: SubjectKeyRules;
  /** What filed documents are signed with (PROVGRAPH_SIGNING_KEY, PROVGRAPH_SIGNING_PREVIOUS_KEYS); none: unsigned. */
  signingKeys?: SigningKeys;
}

/** Heavy reads when no options say otherwise: in process (no threads), QUERY_BUDGET_MS and RESULT_MAX_NODES at their defaults. */
export const IN_PROCESS_HEAVY_READS = { threads: 0, budgetMs: 30_000, maxResultNodes: 10_000 } as const;

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
  // suppression list and recorded, releases debit their budgets, then the propagate plugins derive
  // from what the unit wrote, and runs that declared a purpose are checked against the tags they read.
  const engines = createComplianceEngines(database, options);
  const privacyEngines = createPrivacyEngines(database);
  const finishUnit: UnitFinisher = async (tx, writes) => {
    await settleUnitSubjects(engines, tx, writes);
    await settleUnitReleases(privacyEngines, tx, writes);
    await runPropagatePlugins(tx, plugins, writes, { tagFlow: engines.tagFlow });
    // After the flow: a run's purpose is checked against every tag its inputs hold, those this unit gave included.
    await settleUnitRunPurposes(tx, writes);
    // What the unit wrote is findable from its commit on (src/services/discovery).
    await indexSearchableWrites(tx, database.provider, writes.searchable);
  };
  const commits = new GroupCommit(database, { journal: feedLog, finishUnit });
  const registry = new OperationRegistry(database.primaryReader, commits);
  const composites = new CompositeRegistry(database.primaryReader, commits, registry);
  const columns = createColumnServices(database);
  const lineage = createLineageServices(database);
  const rowsById = new RowsById(database);
  const heavyReads = new HeavyReads({ databaseUrl: database.url, readUrl: database.readUrl, ...(options.heavyReads ?? IN_PROCESS_HEAVY_READS) }, database);
  return {
    database,
    artifacts: new ArtifactReader(read, rowsById),
    executions: new ExecutionReader(read, rowsById),
    operations: new OperationReader(read, rowsById),
    registry,
    commits,
    recorder: new ExecutionRecorder(commits, registry, plugins, options.recordings),
    composites: { registry: composites, recorder: new CompositeRecorder(commits, composites, registry, plugins, options.recordings), reader: new CompositeReader(read) },
    plugins,
    lineage,
    columns,
    graphViews: new GraphViews(read),
    // Replays must see every committed event (a replica may lag): they read the primary.
    feeds: new Feeds(feedLog, commits, database.primaryReader, lineage.closures, feeds),
    compliance: createComplianceServices(engines, database, commits, columns, options.signingKeys),
    privacy: createPrivacyServices(privacyEngines, database, commits),
    // Checks the truth, not a replica that may lag (an admin asks after a crash, before writes resume).
    integrity: new IntegrityChecker(database.primaryReader, [...CORE_INVARIANTS, inheritedPolicyTags(commits, engines.tagFlow), privacyLedger]),
    // Over the read connection(s): a search never waits for a write. A SQLite search lane over many candidates reads on in a heavy-read thread.
    discovery: createDiscovery(database, (rest, signal) => heavyReads.run("searchLaneRest", rest, new RequestBudget(heavyReads.options.budgetMs, signal))),
    heavyReads,
  };
}

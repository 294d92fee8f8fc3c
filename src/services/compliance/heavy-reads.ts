import type { ReadDatabase } from "../../db/client";
import { createColumnServices } from "../columns";
import { ResultTooLargeError } from "../errors";
import { documentOf, type DocumentOrText } from "../raw-json-text";
import type { HeavyReadContext, HeavyReadJobs } from "../heavy-reads";
import { DocumentSigner } from "./document-signer";
import { type EvidenceCheck, type EvidenceContent, type EvidencePackage, evidencePackageOf, type EvidenceQuery, EvidenceReader } from "./evidence";
import type { RunHistory } from "./run-history";

/**
 * An evidence package as a heavy-read thread hands it back. A package of up to RESULT_MAX_NODES
 * entries (nodes, edges, runs and their inputs, violations) comes whole; a larger one without its
 * lists (null) — its text, digest, gate and run ids only: carrying tens of thousands of objects
 * across the thread boundary would cost the event loop what the thread saved it.
 */
export interface ServedEvidenceContent extends Omit<EvidenceContent, "violations" | "nodes" | "edges" | "runs"> {
  violations: EvidenceContent["violations"] | null;
  nodes: EvidenceContent["nodes"] | null;
  edges: EvidenceContent["edges"] | null;
  runs: EvidenceContent["runs"] | null;
  /** Every run of the package (whose params a viewer may be denied). */
  runIds: string[];
  /** Its entries: nodes, edges, runs and their inputs, violations and what they name. */
  entries: number;
  /** The limit it was served under. */
  maxEntries: number;
}

/** A served package as the server answers it: signed (when asked for) on the main thread, which holds the key. */
export type ServedEvidencePackage = ServedEvidenceContent & Pick<EvidencePackage, "signature"> & { readonly document: Record<string, unknown> | null };

// A thread signs nothing: the server signs what it serves, on its own thread.
const UNSIGNED = new DocumentSigner({ current: null, previous: [] });

/**
 * The evidence package's heavy reads (run off the event loop, src/services/heavy-reads): one
 * recursive walk, the document's canonical text and its digest; verifying a filed document against
 * the store. `histories`: the rooms' run histories (as-of), as the app registers them in process.
 */
export function evidenceReads(histories: readonly RunHistory[]) {
  const evidenceOver = (database: ReadDatabase) => {
    const reader = new EvidenceReader(database, createColumnServices(database), UNSIGNED);
    for (const history of histories) reader.registerRunHistory(history);
    return reader;
  };
  return {
    evidencePackage: async (args: { query: EvidenceQuery; withheld: string[] }, ctx: HeavyReadContext): Promise<ServedEvidenceContent> =>
      served(await ctx.use(evidenceOver).content(args.query, args.withheld), ctx.maxResultNodes),
    verifyEvidence: (args: DocumentOrText & { withheld: string[]; signedPayload: string | null }, ctx: HeavyReadContext): Promise<EvidenceCheck> =>
      ctx.use(evidenceOver).check(documentOf(args), args.withheld, args.signedPayload),
  } satisfies HeavyReadJobs;
}

function served(content: EvidenceContent, maxEntries: number): ServedEvidenceContent {
  const violationEntries = content.violations.reduce((sum, v) => sum + 1 + v.artifactIds.length + v.inputs.length, 0);
  const entries = content.nodes.length + content.edges.length + content.runs.reduce((sum, run) => sum + 1 + run.inputs.length, 0) + violationEntries;
  const whole = entries <= maxEntries;
  return {
    ...content,
    violations: violationEntries <= maxEntries ? content.violations : null,
    nodes: whole ? content.nodes : null,
    edges: whole ? content.edges : null,
    runs: whole ? content.runs : null,
    runIds: content.runs.map((run) => run.runId),
    entries,
    maxEntries,
  };
}

/** A served package with its document (parsed from its text when whole) and its signature, each made when asked for. */
export function servedEvidencePackage(content: ServedEvidenceContent, signer: DocumentSigner): ServedEvidencePackage {
  const signed = evidencePackageOf(content as unknown as EvidenceContent, signer);
  const whole = content.nodes !== null;
  return Object.defineProperties({ ...content } as ServedEvidencePackage, {
    document: { get: () => (whole ? signed.document : null), enumerable: true },
    signature: { get: () => signed.signature, enumerable: true },
  });
}

/** The refusal of a list (or the document) of a package served without them. */
export function evidenceTooLarge(pkg: ServedEvidenceContent, field: string): ResultTooLargeError {
  return new ResultTooLargeError(`the evidence package of ${pkg.root.artifactId}${pkg.root.field === null ? "" : ` (${pkg.root.field})`}`, pkg.entries, pkg.maxEntries, "entries (nodes, edges, runs and their inputs)", {
    field,
    alternative: `download it whole from GET /api/v1/evidence/${pkg.root.artifactId}, or select only sha256, provable, truncated and violations`,
  });
}

import crypto from "node:crypto";
import type { ReadDatabase } from "../../db/client";
import { canonicalJson } from "../canonical-json";
import type { ColumnServices } from "../columns";
import { InvalidArgumentError, NotFoundError } from "../errors";
import { dateOf } from "../recording";
import { documentOf, documentOrText, type DocumentOrText } from "../raw-json-text";
import { type ArtifactId, isIdOfKind } from "../ids";
import type { DocumentSignature, DocumentSigner, SignatureCheck } from "./document-signer";
import { evidenceStatement } from "./evidence-sql";
import type { RunHistory, RunStateAsOf } from "./run-history";

/** The most walk rows an evidence closure may take; beyond, it is cut and the figure is not provable. */
export const EVIDENCE_WALK_BUDGET = 500_000;
/** The document format: bump it when the document's shape changes (a filed document names the one it was made in). */
export const EVIDENCE_FORMAT = "provgraph-evidence/2";

/**
 * Why a figure is not provable (docs: "Evidence packages", the acceptance gate). Per run of the
 * closure: an input without a version, no image digest or an image named by anything but a content
 * digest, flagged non-deterministic, or not saying (unknown counts as not provable); and for the
 * package, a closure cut at its budget.
 */
export const EVIDENCE_RULES = ["MISSING_INPUT_VERSION", "MISSING_IMAGE_DIGEST", "IMAGE_NOT_DIGEST", "NON_DETERMINISTIC", "DETERMINISM_UNKNOWN", "UNRECORDED_RUN", "CLOSURE_TRUNCATED"] as const;
export type EvidenceRule = (typeof EVIDENCE_RULES)[number];

/**
 * Only a content digest pins an image: `sha256:` and 64 lower-case hex digits, optionally after the
 * image's name and `@` (registry.example/risk@sha256:…). A tag (`:latest`), an elided digest
 * (`sha256:4d7e…9c1`) or anything else names something that can change.
 */
export const IMAGE_DIGEST = /^(?:[^@\s]+@)?sha256:[0-9a-f]{64}$/;

/**
 * What an evidence package is asked for: an artifact, or one column of a dataset — its newest
 * version recorded by `asOf`, or with `businessDate`, the newest whose run's business date is that date.
 */
export type EvidenceQuery =
  | { artifactId: string; field?: string | null; asOf?: Date | null }
  | { namespace: string; name: string; field?: string | null; asOf?: Date | null; businessDate?: string | null };

export interface EvidenceNode {
  artifactId: string;
  /** A column of the artifact (a dataset version); null = the artifact itself. */
  field: string | null;
  depth: number;
  artifactType: string | null;
  contentHash: string | null;
  dataset: { namespace: string; name: string; version: string | null } | null;
  /** A column no column edge reaches though a run produced its version (an opaque step): the closure goes on from its whole version. */
  opaque: boolean;
  /** A raw source: nothing recorded (by asOf) produced it — a root of the closure, pinned by its own version (dataset.version, or its content hash). */
  rawSource: boolean;
}

export interface EvidenceEdge {
  /** ARTIFACT: wasDerivedFrom (kind = its kind); COLUMN: a column edge (kind = DIRECT / INDIRECT, targetField null = dataset-wide). */
  layer: "ARTIFACT" | "COLUMN";
  sourceId: string;
  sourceField: string | null;
  targetId: string;
  targetField: string | null;
  runId: string;
  kind: string;
  subtype: string | null;
}

export interface EvidenceInput {
  artifactId: string;
  role: string;
  dataset: { namespace: string; name: string; version: string | null } | null;
  /** Its version was pinned: a content-addressed artifact, a dataset version named by the event — not the newest known, not unversioned. */
  pinned: boolean;
  /** OpenLineage: how the input resolved (VERSION_FACET, LATEST_KNOWN, UNVERSIONED). */
  resolvedBy: string | null;
}

export interface EvidenceRun {
  runId: string;
  operation: { name: string; version: string } | null;
  status: string | null;
  params: unknown;
  /** ["params"] when the viewer may not see the run's params (withholdRunParams); absent otherwise. */
  redacted?: string[];
  pins: { inputVersions: unknown; codeVersion: string | null; imageDigest: string | null; deterministic: boolean | null };
  inputs: EvidenceInput[];
  /** What this run produced inside the closure (the targets of its edges). */
  produced: string[];
  violations: EvidenceRule[];
}

export interface EvidenceViolation {
  rule: EvidenceRule;
  /** The run at fault (null for CLOSURE_TRUNCATED). */
  runId: string | null;
  /** What the run produced inside the closure. */
  artifactIds: string[];
  /** MISSING_INPUT_VERSION: the inputs without a version (empty: a run with no inputs that names no input versions). */
  inputs: string[];
}

export interface EvidencePackage {
  root: { artifactId: ArtifactId; field: string | null; dataset: EvidenceNode["dataset"] };
  asOf: Date | null;
  /** The business date the root version was selected by (null: by recording time alone). */
  businessDate: string | null;
  provable: boolean;
  truncated: boolean;
  violations: EvidenceViolation[];
  nodes: EvidenceNode[];
  edges: EvidenceEdge[];
  runs: EvidenceRun[];
  /** The package as one canonical JSON document (keys sorted), what `sha256` is the digest of. */
  document: Record<string, unknown>;
  text: string;
  sha256: string;
  /** The server's signature of `text` (null when no signing key is configured). */
  signature: DocumentSignature | null;
  /** What signs it (and signs it again when a viewer's copy withholds part of it). */
  signer: DocumentSigner;
}

/**
 * A package without its signer: its parts, its canonical text and that text's sha256 — plain data,
 * what a heavy-read thread makes and hands back (the main thread signs: it holds the key).
 */
export type EvidenceContent = Omit<EvidencePackage, "document" | "signature" | "signer">;

/**
 * A filed document checked against the store, as one viewer may see the store (the params of the
 * runs in `withheld` left out): what a heavy-read thread answers; the main thread adds the signature
 * check and decides which runs the viewer may not see (runIds).
 */
export interface EvidenceCheck {
  valid: boolean;
  documentSha256: string;
  currentSha256: string | null;
  differences: string[];
  /** The runs of the package recomputed now (whose params the viewer may be denied). */
  runIds: string[];
  /** Whether the signed payload given is exactly the document's canonical text (null: none given). */
  signsDocument: boolean | null;
}

export interface EvidenceVerification {
  /** The store still gives exactly this document. */
  valid: boolean;
  /** The signature given, checked offline against the server's keys, and that it signs this very document (null when none was given). */
  signature: SignatureCheck | null;
  /** sha256 of the document as given (canonical JSON). */
  documentSha256: string;
  /** sha256 of the package recomputed from the store now (null when the document names nothing stored). */
  currentSha256: string | null;
  /** Where the recomputed package differs (JSON paths, at most 50). */
  differences: string[];
}

interface Row {
  row: "node" | "edge" | "run" | "input" | "meta";
  kind: string | null;
  id: string | null;
  field: string | null;
  otherId: string | null;
  otherField: string | null;
  runId: string | null;
  edgeKind: string | null;
  subtype: string | null;
  artifactType: string | null;
  contentHash: string | null;
  datasetNamespace: string | null;
  datasetName: string | null;
  datasetVersion: string | null;
  operation: string | null;
  operationVersion: string | null;
  status: string | null;
  params: string | null;
  inputVersions: string | null;
  codeVersion: string | null;
  imageDigest: string | null;
  deterministic: boolean | number | null;
  pinned: boolean | number | null;
  resolvedBy: string | null;
  n: number | bigint | null;
}

/**
 * Evidence packages (seed "The evidence package: replaying a figure deterministically"): the
 * backward closure of a figure down to its raw sources, every run in it with its four pins, and the
 * acceptance gate — provable only when no run lacks an input version or an image digest, or is (or
 * may be) non-deterministic — computed by one recursive statement (./evidence-sql.ts); as one
 * canonical JSON document with its sha256, to file and verify later against the store.
 */
export class EvidenceReader {
  private readonly histories: RunHistory[] = [];

  constructor(
    private readonly database: ReadDatabase,
    private readonly columns: ColumnServices,
    private readonly signer: DocumentSigner,
  ) {}

  /** A room whose runs change after they are recorded (OpenLineage: later events) tells how they stood as of an instant. */
  registerRunHistory(history: RunHistory): void {
    this.histories.push(history);
  }

  /** The package of `query`, the params of the runs in `withheld` left out (withholdRunParams). */
  async package(query: EvidenceQuery, withheld: readonly string[] = []): Promise<EvidencePackage> {
    return evidencePackageOf(await this.content(query, withheld), this.signer);
  }

  /** The same, unsigned: plain data (what a heavy-read thread answers). */
  async content(query: EvidenceQuery, withheld: readonly string[] = []): Promise<EvidenceContent> {
    const asOf = query.asOf ?? null;
    const businessDate = "namespace" in query ? checkBusinessDate(query.businessDate) : null;
    return this.build(await this.rootOf(query, asOf, businessDate), asOf, businessDate, new Set(withheld));
  }

  /**
   * Recomputes a filed document's package from the store and compares the two; with `jws` (the
   * document's signature as the server gave it) also checks the signature offline — against the
   * server's current and previous public keys, no store involved — and that it signs this document.
   * The document may be left out when the JWS is given: its payload is the document. `hiddenRuns`:
   * which of the package's runs the verifier may not see the params of, so a document made for a
   * viewer verifies for that viewer (the comparison is redone without them when there are any).
   * `check`: where the comparison runs (a heavy-read thread; by default here).
   */
  async verify(
    document: unknown,
    jws?: string | null,
    options: {
      hiddenRuns?: (runIds: string[]) => Promise<string[]>;
      check?: (args: DocumentOrText & { withheld: string[]; signedPayload: string | null }) => Promise<EvidenceCheck>;
    } = {},
  ): Promise<EvidenceVerification> {
    const { hiddenRuns = async () => [], check = (args) => this.check(documentOf(args), args.withheld, args.signedPayload) } = options;
    const signature = jws == null ? null : this.signer.verify(jws);
    if (document === undefined || document === null) {
      if (signature === null) throw new InvalidArgumentError("document", "give the evidence document, its signature (jws), or both");
      if (signature.payload === null) return { valid: false, signature, documentSha256: "", currentSha256: null, differences: [] };
      try {
        document = JSON.parse(signature.payload);
      } catch {
        throw new InvalidArgumentError("jws", "its payload is not an evidence document (JSON)");
      }
    }
    const signedPayload = signature?.valid ? signature.payload : null;
    // A document given as its text (RawJsonText) is parsed where it is checked.
    const given = documentOrText(document);
    let checked = await check({ ...given, withheld: [], signedPayload });
    const hidden = checked.runIds.length > 0 ? await hiddenRuns(checked.runIds) : [];
    if (hidden.length > 0) checked = await check({ ...given, withheld: hidden, signedPayload });
    if (signature?.valid && checked.signsDocument === false) Object.assign(signature, { valid: false, reason: "the signature is valid, but for another document than the one given" });
    return { valid: checked.valid, signature, documentSha256: checked.documentSha256, currentSha256: checked.currentSha256, differences: checked.differences };
  }

  /** A document compared with the package recomputed now, the params of `withheld` runs left out (the heavy part of verify). */
  async check(document: unknown, withheld: readonly string[], signedPayload: string | null = null): Promise<EvidenceCheck> {
    const given = document as { format?: unknown; root?: { artifactId?: unknown; field?: unknown }; asOf?: unknown; businessDate?: unknown } | null;
    if (typeof given !== "object" || given === null || Array.isArray(given)) throw new InvalidArgumentError("document", "must be an evidence document (a JSON object, as evidencePackage returned it)");
    if (given.format !== EVIDENCE_FORMAT) throw new InvalidArgumentError("document", `names format ${JSON.stringify(given.format)}; this server makes and verifies ${EVIDENCE_FORMAT}`);
    const artifactId = given.root?.artifactId;
    const field = given.root?.field ?? null;
    if (typeof artifactId !== "string" || !isIdOfKind(artifactId, "artifact") || (field !== null && typeof field !== "string")) throw new InvalidArgumentError("document", "its root must name an artifact id (art_…) and a field (or null)");
    const asOf = given.asOf === null || given.asOf === undefined ? null : new Date(String(given.asOf));
    if (asOf !== null && Number.isNaN(asOf.getTime())) throw new InvalidArgumentError("document", "its asOf is not an instant");
    const businessDate = typeof given.businessDate === "string" ? given.businessDate : null;
    const documentText = canonicalJson(given);
    const documentSha256 = sha256(documentText);
    const signsDocument = signedPayload === null ? null : signedPayload === documentText;
    const stored = await this.database.reader.artifact.findUnique({ where: { id: artifactId }, select: { id: true } });
    if (!stored) return { valid: false, documentSha256, currentSha256: null, differences: ["/root/artifactId"], runIds: [], signsDocument };
    const current = await this.build({ artifactId: artifactId as ArtifactId, field: field as string | null }, asOf, businessDate, new Set(withheld));
    const valid = current.sha256 === documentSha256;
    const differences = valid ? [] : diff(JSON.parse(documentText), JSON.parse(current.text), "", []);
    return { valid, documentSha256, currentSha256: current.sha256, differences, runIds: current.runs.map((run) => run.runId), signsDocument };
  }

  private async rootOf(query: EvidenceQuery, asOf: Date | null, businessDate: string | null): Promise<{ artifactId: ArtifactId; field: string | null }> {
    const db = this.database.reader;
    if ("artifactId" in query) {
      if (!(await db.artifact.findUnique({ where: { id: query.artifactId }, select: { id: true } }))) throw new NotFoundError("artifact", query.artifactId, "artifactId");
      const field = query.field ?? null;
      if (field !== null) {
        const [columns] = await this.columns.columns.columnsOf([query.artifactId as ArtifactId]);
        if (!columns.some((c) => c.field === field)) throw new NotFoundError("column", `${field} of ${query.artifactId}`, "field");
      }
      return { artifactId: query.artifactId as ArtifactId, field };
    }
    // As of an instant: the newest version recorded by then; of a business date: the newest (recorded by
    // asOf) that a run whose business date is that date produced.
    const version = await db.artifact.findFirst({
      where: {
        datasetNamespace: query.namespace,
        datasetName: query.name,
        ...(asOf ? { createdAt: { lte: asOf } } : {}),
        ...(businessDate ? { links: { some: { direction: "PRODUCED", execution: { businessDate } } } } : {}),
      },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      select: { id: true, datasetVersion: true },
    });
    if (!version) {
      if (businessDate && (await this.columns.datasets.version(query.namespace, query.name))) throw new NotFoundError("dataset version", `${query.namespace}/${query.name} of business date ${businessDate}${asOf ? ` recorded by ${asOf.toISOString()}` : ""}`, "businessDate");
      if (asOf && (await this.columns.datasets.version(query.namespace, query.name))) throw new NotFoundError("dataset version", `${query.namespace}/${query.name} as of ${asOf.toISOString()}`, "asOf");
      throw new NotFoundError("dataset", `${query.namespace}/${query.name}`, "name");
    }
    const field = query.field ?? null;
    if (field === null) return { artifactId: version.id as ArtifactId, field: null };
    const [columns] = await this.columns.columns.columnsOf([version.id as ArtifactId]);
    if (!columns.some((c) => c.field === field)) throw new NotFoundError("column", `${field} of ${query.namespace}/${query.name}@${version.datasetVersion}`, "field");
    return { artifactId: version.id as ArtifactId, field };
  }

  private async build(root: { artifactId: ArtifactId; field: string | null }, asOf: Date | null, businessDate: string | null, withheld: ReadonlySet<string>): Promise<EvidenceContent> {
    const { sql, params } = evidenceStatement(this.database.provider, { root, asOf, budget: EVIDENCE_WALK_BUDGET });
    const rows = await this.database.reader.$queryRawUnsafe<Row[]>(sql, ...params);
    // As of an instant, a run is as it was recorded by then: what it reported later is left out.
    const then = asOf ? await this.runsAsOf([...new Set(rows.filter((r) => r.row === "run").map((r) => r.runId!))], asOf) : new Map<string, RunStateAsOf>();
    for (const row of rows) {
      const state = row.row === "run" ? then.get(row.runId!) : undefined;
      if (!state) continue;
      row.status = state.status;
      row.params = state.params === null ? null : canonicalJson(state.params);
      row.inputVersions = state.pins.inputVersions === null ? null : canonicalJson(state.pins.inputVersions);
      row.codeVersion = state.pins.codeVersion;
      row.imageDigest = state.pins.imageDigest;
      row.deterministic = state.pins.deterministic;
    }
    const key = (kind: string, id: string, field: string | null) => `${kind}\u0000${id}\u0000${field ?? ""}`;
    const members = new Map<string, Row>();
    const edges: EvidenceEdge[] = [];
    const runRows = new Map<string, Row>();
    const inputs = new Map<string, EvidenceInput[]>();
    let steps = 0;
    for (const row of rows) {
      if (row.row === "node") members.set(key(row.kind!, row.id!, row.kind === "C" ? row.field : null), row);
      else if (row.row === "edge") {
        edges.push({ layer: row.kind === "C" ? "COLUMN" : "ARTIFACT", sourceId: row.id!, sourceField: row.field, targetId: row.otherId!, targetField: row.otherField, runId: row.runId!, kind: row.edgeKind!, subtype: row.subtype });
      } else if (row.row === "run") runRows.set(row.runId!, row);
      else if (row.row === "input") {
        const list = inputs.get(row.runId!) ?? [];
        list.push({ artifactId: row.id!, role: row.field!, dataset: datasetOf(row), pinned: bool(row.pinned) === true, resolvedBy: row.resolvedBy });
        inputs.set(row.runId!, list);
      } else steps = Number(row.n);
    }
    const truncated = steps >= EVIDENCE_WALK_BUDGET;
    // Keep the edges whose both ends were walked (a cut walk may leave far ends out).
    const sourceKey = (e: EvidenceEdge) => (e.layer === "COLUMN" ? key("C", e.sourceId, e.sourceField) : key("A", e.sourceId, null));
    const kept = edges.filter((e) => members.has(sourceKey(e)));

    // Depths: breadth first from the root over the edges, upstream (edges indexed by their target end).
    const artifactEdgesInto = new Map<string, EvidenceEdge[]>();
    const columnEdgesInto = new Map<string, EvidenceEdge[]>();
    for (const e of kept) {
      const index = e.layer === "ARTIFACT" ? artifactEdgesInto : columnEdgesInto;
      const at = e.layer === "ARTIFACT" ? e.targetId : key("C", e.targetId, e.targetField);
      const into = index.get(at);
      if (into) into.push(e);
      else index.set(at, [e]);
    }
    const rootKey = key(root.field === null ? "A" : "C", root.artifactId, root.field);
    const depth = new Map<string, number>([[rootKey, 0]]);
    const none: EvidenceEdge[] = [];
    let frontier = [rootKey];
    for (let d = 1; frontier.length > 0; d++) {
      const next: string[] = [];
      const visit = (edges: readonly EvidenceEdge[]) => {
        for (const e of edges) {
          const far = sourceKey(e);
          if (depth.has(far) || !members.has(far)) continue;
          depth.set(far, d);
          next.push(far);
        }
      };
      for (const nodeKey of frontier) {
        const row = members.get(nodeKey);
        if (row === undefined) continue;
        if (row.kind !== "C") {
          visit(artifactEdgesInto.get(row.id!) ?? none);
          continue;
        }
        visit(columnEdgesInto.get(nodeKey) ?? none);
        visit(columnEdgesInto.get(key("C", row.id!, null)) ?? none);
        if (Number(row.n ?? 0) === 1) visit(artifactEdgesInto.get(row.id!) ?? none);
      }
      frontier = next;
    }

    const nodes: EvidenceNode[] = [...members.entries()]
      .map(([nodeKey, row]) => ({
        artifactId: row.id!,
        field: row.kind === "C" ? row.field : null,
        depth: depth.get(nodeKey) ?? Number.MAX_SAFE_INTEGER,
        artifactType: row.artifactType,
        contentHash: row.contentHash,
        dataset: datasetOf(row),
        opaque: Number(row.n) === 1,
        rawSource: Number(row.n) === 2,
      }))
      .sort((a, b) => a.depth - b.depth || compare(a.artifactId, b.artifactId) || compare(a.field ?? "", b.field ?? "") || (a.field === null ? -1 : b.field === null ? 1 : 0));
    const rootNode = nodes.find((n) => n.artifactId === root.artifactId && n.field === root.field);
    kept.sort((a, b) => compare(a.layer, b.layer) || compare(a.targetId, b.targetId) || compare(a.targetField ?? "", b.targetField ?? "") || compare(a.sourceId, b.sourceId) || compare(a.sourceField ?? "", b.sourceField ?? "") || compare(a.runId, b.runId) || compare(a.kind, b.kind));
    const edgeKey = (e: EvidenceEdge) => [e.layer, e.sourceId, e.sourceField ?? "\u0001", e.targetId, e.targetField ?? "\u0001", e.runId, e.kind, e.subtype ?? "\u0001"].join("\u0000");
    const dedupedEdges = kept.filter((e, i) => i === 0 || edgeKey(e) !== edgeKey(kept[i - 1]));

    const producedBy = new Map<string, Set<string>>();
    for (const e of dedupedEdges) producedBy.set(e.runId, (producedBy.get(e.runId) ?? new Set()).add(e.targetId));
    const violations: EvidenceViolation[] = [];
    const runs: EvidenceRun[] = [...producedBy.keys()].sort(compare).map((runId) => {
      const row = runRows.get(runId);
      const produced = [...producedBy.get(runId)!].sort(compare);
      const runInputs = (inputs.get(runId) ?? []).sort((a, b) => compare(a.role, b.role) || compare(a.artifactId, b.artifactId));
      const rules: EvidenceRule[] = [];
      const add = (rule: EvidenceRule, unpinned: string[] = []) => {
        rules.push(rule);
        violations.push({ rule, runId, artifactIds: produced, inputs: unpinned });
      };
      if (!row) add("UNRECORDED_RUN");
      else {
        const unpinned = runInputs.filter((i) => !i.pinned).map((i) => i.artifactId);
        // A run that read nothing provgraph holds (a raw extract) must name what it read, and its versions.
        if (unpinned.length > 0 || (Number(row.n) === 0 && row.inputVersions === null)) add("MISSING_INPUT_VERSION", unpinned);
        if (row.imageDigest === null || row.imageDigest.trim() === "") add("MISSING_IMAGE_DIGEST");
        else if (!IMAGE_DIGEST.test(row.imageDigest)) add("IMAGE_NOT_DIGEST");
        const deterministic = bool(row.deterministic);
        if (deterministic === false) add("NON_DETERMINISTIC");
        if (deterministic === null) add("DETERMINISM_UNKNOWN");
      }
      return {
        runId,
        operation: row ? { name: row.operation!, version: row.operationVersion! } : null,
        status: row?.status ?? null,
        params: row?.params == null || withheld.has(runId) ? null : JSON.parse(row.params),
        ...(withheld.has(runId) ? { redacted: ["params"] } : {}),
        pins: {
          inputVersions: row?.inputVersions == null ? null : JSON.parse(row.inputVersions),
          codeVersion: row?.codeVersion ?? null,
          imageDigest: row?.imageDigest ?? null,
          deterministic: row ? bool(row.deterministic) : null,
        },
        inputs: runInputs,
        produced,
        violations: rules,
      };
    });
    if (truncated) violations.push({ rule: "CLOSURE_TRUNCATED", runId: null, artifactIds: [], inputs: [] });

    const pkgRoot = { artifactId: root.artifactId, field: root.field, dataset: rootNode?.dataset ?? null };
    return contentOf({ root: pkgRoot, asOf, businessDate, provable: violations.length === 0, truncated, violations, nodes, edges: dedupedEdges, runs });
  }

  private async runsAsOf(runIds: readonly string[], asOf: Date): Promise<Map<string, RunStateAsOf>> {
    const states = new Map<string, RunStateAsOf>();
    for (const history of this.histories) for (const [runId, state] of await history.statesAsOf(this.database.reader, runIds, asOf)) states.set(runId, state);
    return states;
  }
}

/** A business date as asked for: a calendar date, YYYY-MM-DD. */
function checkBusinessDate(value: string | null | undefined): string | null {
  if (value == null) return null;
  const date = dateOf(value);
  if (date === null || date !== value) throw new InvalidArgumentError("businessDate", `must be a calendar date, YYYY-MM-DD (e.g. 2026-02-28), got ${JSON.stringify(value.slice(0, 40))}`);
  return date;
}

type PackageParts = Omit<EvidencePackage, "document" | "text" | "sha256" | "signature" | "signer">;

/** The parts with their canonical document's text and its sha256. */
function contentOf(parts: PackageParts): EvidenceContent {
  const document = {
    format: EVIDENCE_FORMAT,
    root: parts.root,
    asOf: parts.asOf ? parts.asOf.toISOString() : null,
    businessDate: parts.businessDate,
    provable: parts.provable,
    truncated: parts.truncated,
    violations: parts.violations,
    nodes: parts.nodes,
    edges: parts.edges,
    runs: parts.runs,
  };
  const text = canonicalJson(document);
  return { ...parts, text, sha256: sha256(text) };
}

/** A package's content as a package: its document (parsed from its text) and its signature, each made when asked for. */
export function evidencePackageOf(content: EvidenceContent, signer: DocumentSigner): EvidencePackage {
  const { text } = content;
  // The document as parsed from its text (what a client gets), made only when asked for: the route serves the text.
  let parsed: Record<string, unknown> | undefined;
  let signature: DocumentSignature | null | undefined;
  return {
    ...content,
    get document() {
      return (parsed ??= JSON.parse(text) as Record<string, unknown>);
    },
    // Signed when asked for (Ed25519 is deterministic: the same document always gets the same signature).
    get signature() {
      if (signature === undefined) signature = signer.sign(text, EVIDENCE_FORMAT);
      return signature;
    },
    signer,
  };
}

/**
 * The package as a viewer who may not see the params of `runIds` sees it: those runs' params are
 * null and marked (`redacted: ["params"]`), and the document, its text and sha256 are those of what
 * the viewer gets. The package itself when there is nothing to withhold.
 */
export function withholdRunParams(pkg: EvidencePackage, runIds: ReadonlySet<string>): EvidencePackage {
  if (!pkg.runs.some((run) => runIds.has(run.runId))) return pkg;
  const runs = pkg.runs.map((run) => (runIds.has(run.runId) ? { ...run, params: null, redacted: ["params"] } : run));
  return evidencePackageOf(contentOf({ root: pkg.root, asOf: pkg.asOf, businessDate: pkg.businessDate, provable: pkg.provable, truncated: pkg.truncated, violations: pkg.violations, nodes: pkg.nodes, edges: pkg.edges, runs }), pkg.signer);
}

export function sha256(text: string): string {
  return crypto.createHash("sha256").update(text, "utf8").digest("hex");
}

function datasetOf(row: Pick<Row, "datasetNamespace" | "datasetName" | "datasetVersion">): EvidenceNode["dataset"] {
  return row.datasetNamespace !== null && row.datasetName !== null ? { namespace: row.datasetNamespace, name: row.datasetName, version: row.datasetVersion } : null;
}

const bool = (value: boolean | number | bigint | null): boolean | null => (value === null ? null : value === true || Number(value) === 1);
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The JSON paths where two documents differ (RFC 6901 pointers), at most 50. */
function diff(a: unknown, b: unknown, path: string, out: string[]): string[] {
  if (out.length >= 50) return out;
  if (a === b) return out;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) {
    out.push(path || "/");
    return out;
  }
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) diff((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}/${k.replace(/~/g, "~0").replace(/\//g, "~1")}`, out);
  return out;
}

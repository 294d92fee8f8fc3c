import { inChunks } from "../../db/chunked-lists";
import { OperationDeclarationError } from "../../../plugins/errors";
import { CONFIG_INPUT_ROLE, type OperationDeclaration, type RoleDeclaration } from "../../../plugins/types";
import type { Db, DbTx } from "../../db/client";
import type { CommitPath } from "./commit-path";
import { canonicalJson } from "../canonical-json";
import { operationIdFor } from "../ids";
import { type OperationRecord, toOperationRecord } from "../records";
import { brokenNameRule, unsafeTextReason } from "../safe-text";
import { openLineageJobNamespace } from "../job-names";
import { insertRows } from "./bulk-insert";
import { noteUnitWrites, type SearchableWrite } from "./unit-writes";

/** A registered operation, for the search index. */
export const operationWrite = (operation: { id: string; name: string; version: string; kind: string }): SearchableWrite => ({
  kind: "OPERATION",
  id: operation.id,
  name: operation.name,
  version: operation.version,
  operationKind: operation.kind,
});

/** An operation as a client declares it; `inferLineageFrom` as given: at most one of inputs/outputs. */
export interface OperationDeclarationInput {
  name: string;
  version: string;
  /** COMPOSITE is refused here (COMPOSITE_KIND): composites are registered with their wiring. */
  kind: OperationDeclaration["kind"] | "COMPOSITE";
  groupBy: OperationDeclaration["groupBy"];
  /** The parameter whose value is a run's business date (a date, or a date-time), if the operation has one. */
  businessDateParam?: string | null;
  inputs: { role: string; artifactType: string; required?: boolean | null }[];
  outputs: { role: string; artifactType: string; required?: boolean | null; inferLineageFrom?: { inputs?: string[] | null; outputs?: string[] | null } | null }[];
}

/**
 * Registers operations, validated as the seed's "class definition time" checks, and serves them
 * back as declarations. A name+version is immutable: the same declaration again is a no-op, a
 * different one an error. Registered operations never change, so they are cached in memory.
 * `db` reads (it must see every commit: the primary); with `commits`, a registration is written as a
 * unit on the commit path like every other write, else straight through `db`.
 */
export class OperationRegistry {
  private readonly cache = new Map<string, OperationRecord>();

  constructor(
    private readonly db: Db,
    private readonly commits?: CommitPath,
  ) {}

  async register(input: OperationDeclarationInput): Promise<OperationRecord> {
    const declaration = normaliseDeclaration(input);
    const canonical = canonicalJson(declaration);
    const id = operationIdFor(declaration.name, declaration.version);
    const existing = await this.db.operation.findUnique({ where: { id }, include: { roles: true } });
    if (existing) return sameDeclarationOrRefuse(existing, declaration, canonical);
    const roles = roleRowsOf(declaration);
    try {
      const data = { id, name: declaration.name, version: declaration.version, kind: declaration.kind, groupBy: declaration.groupBy, declaration: canonical, roles: { create: roles } };
      const row = this.commits
        ? await this.commits.run(async (tx) => {
            const created = await tx.operation.create({ data, include: { roles: true } });
            noteUnitWrites(tx, { searchable: [operationWrite(created)] });
            return created;
          })
        : await this.db.operation.create({ data, include: { roles: true } });
      return toOperationRecord(row);
    } catch (error) {
      // Two registrations raced: the loser reads the winner's row and compares as above.
      if ((error as { code?: string }).code === "P2002") return this.register(input);
      throw error;
    }
  }

  /**
   * register() inside a recording unit, in two halves so a unit can check everything before it
   * writes anything (an OpenLineage job seen for the first time is registered in the unit of the
   * event that names it, so a refused event leaves no operation behind). Not cached: the unit may
   * still roll back. planIn: what registering these declarations gives, read in one statement and
   * nothing written yet: each one's operation (the stored one, or the one createIn will write), or the
   * declaration error it breaks (a different declaration under a registered name and version).
   */
  async planIn(tx: DbTx, inputs: readonly OperationDeclarationInput[]): Promise<OperationPlan> {
    const normalised = inputs.map((input) => {
      try {
        const declaration = normaliseDeclaration(input);
        return { declaration, canonical: canonicalJson(declaration), id: operationIdFor(declaration.name, declaration.version) };
      } catch (error) {
        if (error instanceof OperationDeclarationError) return error;
        throw error;
      }
    });
    const ids = [...new Set(normalised.flatMap((n) => (n instanceof OperationDeclarationError ? [] : [n.id])))];
    const rows = ids.length === 0 ? [] : await inChunks(ids, (chunk) => tx.operation.findMany({ where: { id: { in: chunk } }, include: { roles: true } }));
    const stored = new Map(rows.map((row) => [row.id, row]));
    const toCreate = new Map<string, PlannedOperation>();
    const operations = normalised.map((n) => {
      if (n instanceof OperationDeclarationError) return n;
      const row = stored.get(n.id);
      if (row) {
        try {
          return sameDeclarationOrRefuse(row, n.declaration, n.canonical);
        } catch (error) {
          return error as OperationDeclarationError;
        }
      }
      const planned = toCreate.get(n.id) ?? { record: recordOf(n.id, n.declaration, new Date()), canonical: n.canonical };
      if (planned.canonical !== n.canonical) return declarationConflict(n.declaration);
      toCreate.set(n.id, planned);
      return planned.record;
    });
    return { operations, toCreate: [...toCreate.values()] };
  }

  /**
   * Writes the operations planIn found new, race-safe without retries: inserted with ON CONFLICT DO
   * NOTHING, and one another unit registered meanwhile must carry the same declaration.
   */
  async createIn(tx: DbTx, planned: readonly PlannedOperation[]): Promise<void> {
    if (planned.length === 0) return;
    const created = new Set(
      await insertRows(
        tx,
        "Operation",
        ["id", "name", "version", "kind", "groupBy", "declaration", "createdAt"],
        planned.map(({ record, canonical }) => [record.id, record.name, record.version, record.kind, record.groupBy, canonical, record.createdAt]),
        { ignoreConflicts: true, returning: "id" },
      ),
    );
    await insertRows(
      tx,
      "OperationRole",
      ["operationId", "direction", "role", "position", "artifactType", "required", "lineageFrom", "lineageRoles"],
      planned
        .filter(({ record }) => created.has(record.id))
        .flatMap(({ record }) => roleRowsOf(declarationOf(record)).map((r) => [record.id, r.direction, r.role, r.position, r.artifactType, r.required, r.lineageFrom ?? null, r.lineageRoles ?? null])),
    );
    noteUnitWrites(tx, { searchable: planned.filter(({ record }) => created.has(record.id)).map(({ record }) => operationWrite(record)) });
    const raced = planned.filter(({ record }) => !created.has(record.id));
    if (raced.length === 0) return;
    const rows = await inChunks(raced.map((p) => p.record.id), (chunk) => tx.operation.findMany({ where: { id: { in: chunk } }, include: { roles: true } }));
    for (const { record, canonical } of raced) sameDeclarationOrRefuse(rows.find((row) => row.id === record.id)!, declarationOf(record), canonical);
  }

  /** The registered operation, or undefined. */
  async find(name: string, version: string): Promise<OperationRecord | undefined> {
    // Registration refuses such names, so none is stored (and PostgreSQL refuses NUL in a query).
    if (unsafeTextReason(name) || unsafeTextReason(version)) return undefined;
    const key = `${name}\u0000${version}`;
    const cached = this.cache.get(key);
    if (cached) return cached;
    const row = await this.db.operation.findUnique({ where: { name_version: { name, version } }, include: { roles: true } });
    if (!row) return undefined;
    const record = toOperationRecord(row);
    this.cache.set(key, record);
    return record;
  }
}

/** An operation planIn found new: its record (as the read side will return it) and its canonical declaration. */
export interface PlannedOperation {
  record: OperationRecord;
  canonical: string;
}

export interface OperationPlan {
  operations: (OperationRecord | OperationDeclarationError)[];
  toCreate: PlannedOperation[];
}

/** A name+version is immutable: the stored row must carry the same declaration. */
function sameDeclarationOrRefuse(row: Parameters<typeof toOperationRecord>[0], declaration: OperationDeclaration, canonical: string): OperationRecord {
  if (row.declaration !== canonical) throw declarationConflict(declaration);
  return toOperationRecord(row);
}

function declarationConflict(declaration: OperationDeclaration): OperationDeclarationError {
  return new OperationDeclarationError(
    `operation ${declaration.name}@${declaration.version} is already registered with a different declaration; register a new version instead`,
    { rule: "IMMUTABLE_VERSION", candidates: [`${declaration.name}@${declaration.version}`] },
  );
}

/** The record of an operation about to be created, as toOperationRecord would read it back. */
function recordOf(id: string, declaration: OperationDeclaration, createdAt: Date): OperationRecord {
  const role = (r: RoleDeclaration, position: number) => ({ role: r.role, artifactType: r.artifactType, required: r.required, position, inferLineageFrom: r.inferLineageFrom });
  return {
    id: id as OperationRecord["id"],
    name: declaration.name,
    version: declaration.version,
    kind: declaration.kind,
    groupBy: declaration.groupBy,
    businessDateParam: declaration.businessDateParam ?? null,
    createdAt,
    inputs: declaration.inputs.map(role),
    outputs: declaration.outputs.map(role),
  };
}

function roleRowsOf(declaration: OperationDeclaration) {
  return [
    ...declaration.inputs.map((role, position) => ({ direction: "INPUT", role: role.role, position, artifactType: role.artifactType, required: role.required, lineageFrom: null, lineageRoles: null })),
    ...declaration.outputs.map((role, position) => ({
      direction: "OUTPUT",
      role: role.role,
      position,
      artifactType: role.artifactType,
      required: role.required,
      lineageFrom: role.inferLineageFrom?.from ?? null,
      lineageRoles: role.inferLineageFrom ? JSON.stringify(role.inferLineageFrom.roles) : null,
    })),
  ];
}

export function declarationOf(operation: OperationRecord): OperationDeclaration {
  // Composites never reach the plugins: their steps do (the recorder refuses them as plain executions).
  if (operation.kind === "COMPOSITE") throw new Error(`${operation.name}@${operation.version} is a composite, not an operation plugins can see`);
  const role = (r: OperationRecord["inputs"][number]): RoleDeclaration => ({
    role: r.role,
    artifactType: r.artifactType,
    required: r.required,
    inferLineageFrom: r.inferLineageFrom,
  });
  return {
    name: operation.name,
    version: operation.version,
    kind: operation.kind,
    groupBy: operation.groupBy,
    inputs: operation.inputs.map(role),
    outputs: operation.outputs.map(role),
    ...(operation.businessDateParam !== null ? { businessDateParam: operation.businessDateParam } : {}),
  };
}

// Seed "Lineage declaration": validated at class definition time.
export function normaliseDeclaration(input: OperationDeclarationInput): OperationDeclaration {
  const where = `${input.name}@${input.version}`;
  const fail = (message: string, details: { rule: string; role?: string; candidates?: string[] }) => {
    throw new OperationDeclarationError(`${where}: ${message}`, details);
  };
  if (input.kind === "COMPOSITE") {
    fail("a composite is registered with registerComposite, which checks its wiring", { rule: "COMPOSITE_KIND" });
  }
  if (!input.name.trim()) fail("the operation name is empty", { rule: "EMPTY_NAME" });
  if (!input.version.trim()) fail("the version is empty", { rule: "EMPTY_VERSION" });
  const checkText = (what: string, text: string, role?: string) => {
    const broken = brokenNameRule(text);
    if (broken) fail(`${what} ${broken.reason}`, { rule: broken.rule, role });
  };
  checkText("the operation name", input.name);
  // An OpenLineage job's version is its namespace behind a prefix: the namespace is the name bounded.
  checkText("the version", openLineageJobNamespace(input.version) ?? input.version);
  for (const role of [...input.inputs, ...input.outputs]) {
    checkText("a role name", role.role);
    checkText(`the artifact type of role '${role.role}'`, role.artifactType, role.role);
  }
  const inputRoles = input.inputs.map((r) => r.role);
  const outputRoles = input.outputs.map((r) => r.role);
  for (const [list, side] of [
    [inputRoles, "input"],
    [outputRoles, "output"],
  ] as const) {
    const empty = list.find((role) => !role.trim());
    if (empty !== undefined) fail(`an ${side} role has an empty name`, { rule: "EMPTY_ROLE", role: empty });
    const repeated = list.find((role, i) => list.indexOf(role) !== i);
    if (repeated) fail(`${side} role '${repeated}' is declared twice`, { rule: "DUPLICATE_ROLE", role: repeated });
    // `$config` (CONFIG_INPUT_ROLE) and any future role of provgraph's own start with `$`.
    const reserved = list.find((role) => role.startsWith("$"));
    if (reserved !== undefined) fail(`${side} role '${reserved}' starts with '$', which is reserved for provgraph's own roles (e.g. ${CONFIG_INPUT_ROLE})`, { rule: "RESERVED_ROLE", role: reserved });
  }
  for (const role of [...input.inputs, ...input.outputs]) {
    if (!role.artifactType.trim()) fail(`role '${role.role}' has an empty artifact type`, { rule: "EMPTY_ARTIFACT_TYPE", role: role.role });
  }
  const outputs = input.outputs.map((role): RoleDeclaration => {
    const source = role.inferLineageFrom;
    if (!source || (source.inputs == null && source.outputs == null)) {
      if (input.kind === "CREATOR") {
        fail(`output role '${role.role}' declares no inferLineageFrom; a CREATOR must declare lineage on every output ({inputs: [...]}, {outputs: [...]} or {inputs: []} for generative)`, {
          rule: "LINEAGE_DECLARATION_REQUIRED",
          role: role.role,
          candidates: inputRoles,
        });
      }
      return { role: role.role, artifactType: role.artifactType, required: role.required ?? true, inferLineageFrom: null };
    }
    if (source.inputs != null && source.outputs != null) {
      fail(`output role '${role.role}' declares both inputs and outputs in inferLineageFrom; use separate output roles`, {
        rule: "COMBINED_LINEAGE_SOURCES",
        role: role.role,
      });
    }
    const fromInputs = source.inputs != null;
    const roles = (fromInputs ? source.inputs : source.outputs) ?? [];
    const known = fromInputs ? inputRoles : outputRoles;
    const unknown = roles.find((r) => !known.includes(r));
    if (unknown !== undefined) {
      fail(`output role '${role.role}' infers lineage from ${fromInputs ? "input" : "output"} role '${unknown}', which is not declared`, {
        rule: "UNKNOWN_ROLE",
        role: role.role,
        candidates: known,
      });
    }
    if (!fromInputs && roles.includes(role.role)) {
      fail(`output role '${role.role}' cannot derive from itself`, { rule: "SELF_DERIVATION", role: role.role, candidates: outputRoles.filter((r) => r !== role.role) });
    }
    if (!fromInputs && roles.length === 0) {
      fail(`output role '${role.role}' declares {outputs: []}; a generative output is {inputs: []}`, { rule: "EMPTY_OUTPUT_SOURCES", role: role.role });
    }
    return {
      role: role.role,
      artifactType: role.artifactType,
      required: role.required ?? true,
      inferLineageFrom: { from: fromInputs ? "INPUTS" : "OUTPUTS", roles: [...new Set(roles)] },
    };
  });
  assertNoOutputCycle(outputs, fail);
  if ((input.groupBy === "ZIP" || input.groupBy === "CROSS_PRODUCT") && input.inputs.length < 2) {
    fail(`groupBy ${input.groupBy} pairs artifacts across input roles and needs at least two`, { rule: "GROUP_BY_NEEDS_ROLES", candidates: inputRoles });
  }
  if (input.businessDateParam != null) {
    if (!input.businessDateParam.trim()) fail("the business-date parameter's name is empty", { rule: "EMPTY_BUSINESS_DATE_PARAM" });
    checkText("the business-date parameter's name", input.businessDateParam);
  }
  if (input.groupBy === "LINEAGE" && input.inputs.length !== 2) {
    fail(`groupBy LINEAGE pairs the artifacts of exactly two input roles by a shared ancestor; ${input.inputs.length} are declared`, { rule: "GROUP_BY_NEEDS_ROLES", candidates: inputRoles });
  }
  return {
    name: input.name,
    version: input.version,
    kind: input.kind as OperationDeclaration["kind"],
    groupBy: input.groupBy ?? null,
    inputs: input.inputs.map((role) => ({ role: role.role, artifactType: role.artifactType, required: role.required ?? true, inferLineageFrom: null })),
    outputs,
    // Only when declared: the canonical declaration of an operation without one stays what it always was.
    ...(input.businessDateParam != null ? { businessDateParam: input.businessDateParam } : {}),
  };
}

/** Output-to-output declarations must not loop (a derives from b derives from a). */
function assertNoOutputCycle(outputs: RoleDeclaration[], fail: (message: string, details: { rule: string; role?: string; candidates?: string[] }) => never): void {
  const from = new Map(outputs.map((o) => [o.role, o.inferLineageFrom?.from === "OUTPUTS" ? o.inferLineageFrom.roles : []]));
  const state = new Map<string, "visiting" | "done">();
  const visit = (role: string, path: string[]): void => {
    if (state.get(role) === "done") return;
    if (state.get(role) === "visiting") fail(`output roles derive from each other in a cycle: ${[...path, role].join(" → ")}`, { rule: "OUTPUT_CYCLE", role, candidates: path });
    state.set(role, "visiting");
    for (const next of from.get(role) ?? []) visit(next, [...path, role]);
    state.set(role, "done");
  };
  for (const role of from.keys()) visit(role, []);
}

import { OperationDeclarationError } from "../../../plugins/errors";
import { CONFIG_INPUT_ROLE, type OperationDeclaration, type RoleDeclaration } from "../../../plugins/types";
import type { Db } from "../../db/client";
import type { CommitPath } from "./commit-path";
import { canonicalJson } from "../canonical-json";
import { operationIdFor } from "../ids";
import { type OperationRecord, toOperationRecord } from "../records";
import { unsafeTextReason } from "../safe-text";

/** An operation as a client declares it; `inferLineageFrom` as given: at most one of inputs/outputs. */
export interface OperationDeclarationInput {
  name: string;
  version: string;
  /** COMPOSITE is refused here (COMPOSITE_KIND): composites are registered with their wiring. */
  kind: OperationDeclaration["kind"] | "COMPOSITE";
  groupBy: OperationDeclaration["groupBy"];
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
    if (existing) {
      if (existing.declaration !== canonical) {
        throw new OperationDeclarationError(
          `operation ${declaration.name}@${declaration.version} is already registered with a different declaration; register a new version instead`,
          { rule: "IMMUTABLE_VERSION", candidates: [`${declaration.name}@${declaration.version}`] },
        );
      }
      return toOperationRecord(existing);
    }
    const roles = [
      ...declaration.inputs.map((role, position) => ({ direction: "INPUT", role: role.role, position, artifactType: role.artifactType, required: role.required })),
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
    try {
      const data = { id, name: declaration.name, version: declaration.version, kind: declaration.kind, groupBy: declaration.groupBy, declaration: canonical, roles: { create: roles } };
      const row = this.commits
        ? await this.commits.run((tx) => tx.operation.create({ data, include: { roles: true } }))
        : await this.db.operation.create({ data, include: { roles: true } });
      return toOperationRecord(row);
    } catch (error) {
      // Two registrations raced: the loser reads the winner's row and compares as above.
      if ((error as { code?: string }).code === "P2002") return this.register(input);
      throw error;
    }
  }

  /** The registered operation, or undefined. */
  async find(name: string, version: string): Promise<OperationRecord | undefined> {
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

export function declarationOf(operation: OperationRecord): OperationDeclaration {
  // Composites never reach the plugins: their steps do (the recorder refuses them as plain executions).
  if (operation.kind === "COMPOSITE") throw new Error(`${operation.name}@${operation.version} is a composite, not an operation plugins can see`);
  const role = (r: OperationRecord["inputs"][number]): RoleDeclaration => ({
    role: r.role,
    artifactType: r.artifactType,
    required: r.required,
    inferLineageFrom: r.inferLineageFrom,
  });
  return { name: operation.name, version: operation.version, kind: operation.kind, groupBy: operation.groupBy, inputs: operation.inputs.map(role), outputs: operation.outputs.map(role) };
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
    const reason = unsafeTextReason(text);
    if (reason) fail(`${what} ${reason}`, { rule: "INVALID_CHARACTERS", role });
  };
  checkText("the operation name", input.name);
  checkText("the version", input.version);
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

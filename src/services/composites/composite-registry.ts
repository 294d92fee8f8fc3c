import type { Db } from "../../db/client";
import type { CompositeDefinition as CompositeDefinitionRow } from "../../generated/sqlite/client";
import { canonicalJson } from "../canonical-json";
import { unsafeTextReason } from "../safe-text";
import { type OperationId, operationIdFor } from "../ids";
import { type CommitPath, noteUnitWrites, type OperationRegistry, operationWrite } from "../recording";
import type { OperationRecord } from "../records";
import { type CompositeDefinition, type CompositeDefinitionInput, exposedRoleOf } from "./definition";
import { CompositeDeclarationError } from "./errors";
import { checkSoundness, describeUnsoundness, type WorkflowSoundness } from "./soundness";
import { type NormalisedDefinition, storedDefinitionOf, validateDefinition } from "./validate-definition";

/**
 * Registers composites and serves them back. A composite is also an Operation (kind COMPOSITE, same
 * id), so its runs are executions like any other; its wiring is in CompositeDefinition. A name+version
 * is immutable: the same definition again is a no-op, a different one an error. An unsound definition
 * is refused (rule UNSOUND, the soundness report as witness) unless allowUnsound. Registered
 * composites never change, so they are cached in memory.
 */
export class CompositeRegistry {
  private readonly cache = new Map<string, CompositeDefinition>();

  constructor(
    private readonly db: Db,
    private readonly commits: CommitPath,
    private readonly operations: OperationRegistry,
  ) {}

  async register(input: CompositeDefinitionInput): Promise<CompositeDefinition> {
    const operations = new Map<string, OperationRecord>();
    for (const step of input.steps) {
      const found = await this.operations.find(step.operation, step.operationVersion);
      if (found) operations.set(`${step.operation}\u0000${step.operationVersion}`, found);
    }
    const definition = validateDefinition(input, operations);
    const soundness = checkSoundness(definition);
    const identity = canonicalJson(storedDefinitionOf(definition));
    const where = `${definition.name}@${definition.version}`;

    const existing = await this.db.operation.findUnique({ where: { id: definition.id }, select: { kind: true, declaration: true } });
    if (existing) {
      if (existing.kind !== "COMPOSITE") {
        throw new CompositeDeclarationError(`composite ${where}: an operation is registered under this name and version`, { rule: "NAME_TAKEN", candidates: [where] });
      }
      if (existing.declaration !== identity) {
        throw new CompositeDeclarationError(`composite ${where} is already registered with a different definition; register a new version instead`, { rule: "IMMUTABLE_VERSION", candidates: [where] });
      }
    }
    if (!soundness.sound && !definition.allowUnsound) {
      throw new CompositeDeclarationError(`composite ${where} is ${describeUnsoundness(soundness)} (register it with allowUnsound: true to keep it anyway)`, { rule: "UNSOUND" }, soundness);
    }
    if (existing) return (await this.findById(definition.id))!;
    try {
      await this.commits.run(async (tx) => {
        await tx.operation.create({
          data: { id: definition.id, name: definition.name, version: definition.version, kind: "COMPOSITE", groupBy: null, declaration: identity, roles: { create: rolesOf(definition) } },
        });
        noteUnitWrites(tx, { searchable: [operationWrite({ id: definition.id, name: definition.name, version: definition.version, kind: "COMPOSITE" })] });
        await tx.compositeDefinition.create({
          data: {
            operationId: definition.id,
            name: definition.name,
            version: definition.version,
            intermediates: definition.intermediates,
            definition: JSON.stringify(definition),
            allowUnsound: definition.allowUnsound,
            sound: soundness.sound,
          },
        });
      });
    } catch (error) {
      // Two registrations raced: the loser compares against the winner's row as above.
      if ((error as { code?: string }).code === "P2002" && (await this.db.operation.findUnique({ where: { id: definition.id }, select: { id: true } }))) return this.register(input);
      throw error;
    }
    return (await this.findById(definition.id))!;
  }

  async find(name: string, version: string): Promise<CompositeDefinition | undefined> {
    // Registration refuses such names, so none is stored (and PostgreSQL refuses NUL in a query).
    if (unsafeTextReason(name) || unsafeTextReason(version)) return undefined;
    const cached = this.cache.get(operationIdFor(name, version));
    if (cached) return cached;
    const row = await this.db.compositeDefinition.findUnique({ where: { name_version: { name, version } } });
    return row ? this.remember(row) : undefined;
  }

  async findById(id: OperationId): Promise<CompositeDefinition | undefined> {
    const cached = this.cache.get(id);
    if (cached) return cached;
    const row = await this.db.compositeDefinition.findUnique({ where: { operationId: id } });
    return row ? this.remember(row) : undefined;
  }

  /** The soundness report of a registered composite (computed again: it is cheap and the bound may change). */
  soundnessOf(definition: CompositeDefinition): WorkflowSoundness {
    return checkSoundness(definition);
  }

  private remember(row: CompositeDefinitionRow): CompositeDefinition {
    const cached = this.cache.get(row.operationId);
    if (cached) return cached;
    const definition = definitionOf(row);
    this.cache.set(row.operationId, definition);
    return definition;
  }
}

export function definitionOf(row: CompositeDefinitionRow): CompositeDefinition {
  const stored = JSON.parse(row.definition) as NormalisedDefinition;
  return { ...stored, id: row.operationId as OperationId, allowUnsound: row.allowUnsound, sound: row.sound, createdAt: row.createdAt };
}

/**
 * The composite's roles as an operation's: its inputs as declared, its outputs (required), and with
 * EXPOSE every step output role as `<step>.<role>` (not required: an intermediate role may stay empty).
 * Output roles declare no inferLineageFrom: their lineage is composed from the steps' (shortcut edges).
 */
function rolesOf(definition: NormalisedDefinition) {
  const outputs = [
    ...definition.outputs.map((o) => ({ role: o.role, artifactType: o.artifactType, required: true })),
    ...(definition.intermediates === "EXPOSE"
      ? definition.steps.flatMap((s) => s.outputs.map((o) => ({ role: exposedRoleOf(s.name, o.role), artifactType: o.artifactType, required: false })))
      : []),
  ];
  return [
    ...definition.inputs.map((r, position) => ({ direction: "INPUT", role: r.role, position, artifactType: r.artifactType, required: r.required })),
    ...outputs.map((r, position) => ({ direction: "OUTPUT", role: r.role, position, artifactType: r.artifactType, required: r.required, lineageFrom: null, lineageRoles: null })),
  ];
}

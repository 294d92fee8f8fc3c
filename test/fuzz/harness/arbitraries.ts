import fc from "fast-check";
import { drafts, OPERATIONS, pipelineComposite, stepsOf } from "../../support/composite-fixtures";
import { sha256Of } from "../../support/content-hash";

/**
 * fast-check arbitraries for what clients send: mostly well-shaped inputs with hostile content
 * (names and roles from a small vocabulary, so many cases reach the lineage rules and some succeed),
 * some ill-shaped ones (wrong types, out-of-range numbers, unknown fields).
 */

const weirdText = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 12 }) },
  { weight: 1, arbitrary: fc.constantFrom("", " ", "\u0000", "a\u0000b", "\ud800", "💥", "../../etc/passwd", "'; DROP TABLE \"Artifact\"; --", "%s%n", "null", "__proto__", "constructor") },
  { weight: 1, arbitrary: fc.string({ minLength: 200, maxLength: 2000 }) },
);

/** A value from `known` most of the time, else hostile text. */
const mostly = <T>(known: readonly T[], other: fc.Arbitrary<T | string> = weirdText) => fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...known) }, { weight: 1, arbitrary: other });

const OPERATION_NAMES = [...OPERATIONS.map((o) => o.name), "approve", "fuzz_op"];
const ROLES = ["raw", "data", "cleaned", "left", "right", "joined", "figure", "metric", "a", "b", "$config"];
const TYPES = ["csv", "png", "json", "dataset"];
const FILE_NAMES = ["A0.csv", "A1.csv", "B0.csv", "A0_clean.csv", "A1_clean.csv", "A0_clean_joined.csv", "A0_clean_joined_fig.png", "A0_clean_joined_fig_metric.json", "x.csv"];
const STATUSES = ["COMPLETED", "FAILED", "STARTED", "RUNNING", "ABORTED"];

const contentHash = fc.oneof(
  { weight: 6, arbitrary: fc.string({ maxLength: 6 }).map((s) => sha256Of(s)) },
  { weight: 1, arbitrary: weirdText },
  { weight: 1, arbitrary: fc.constantFrom("sha256:", "sha256:abc", "md5:d41d8cd98f00b204e9800998ecf8427e", `SHA256:${"A".repeat(64)}`, `sha256:${"g".repeat(64)}`) },
);

const dateText = fc.oneof(
  fc.date({ min: new Date("1970-01-01T00:00:00Z"), max: new Date("2100-01-01T00:00:00Z"), noInvalidDate: true }).map((d) => d.toISOString()),
  fc.constantFrom("2026-02-30T00:00:00Z", "yesterday", "0000-01-01T00:00:00Z", "275760-09-13T00:00:00.000Z", "2026-03-11T02:14:07+25:00", ""),
  weirdText,
);

/** GraphQL Int is 32-bit: beyond it is the coercion's BAD_USER_INPUT. */
const step = fc.oneof(fc.integer({ min: -3, max: 5 }), fc.constantFrom(0, 2 ** 31 - 1, 2 ** 31, -(2 ** 31) - 1, 1.5, Number.MAX_SAFE_INTEGER));

const artifactId = (known: () => readonly string[]) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.nat().map((n) => known()[n % Math.max(1, known().length)] ?? `art_${"0".repeat(40)}`) },
    { weight: 1, arbitrary: fc.stringMatching(/^[0-9a-f]{40}$/).map((h) => `art_${h}`) },
    { weight: 1, arbitrary: fc.oneof(weirdText, fc.constantFrom("run_00000000-0000-7000-8000-000000000000", "op_x", "art_", "spec_1")) },
  );

const jsonParams = (known: () => readonly string[]) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    // Any code unit in strings: lone surrogates, NUL, escapes, inside JSON values.
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2, stringUnit: "binary" }) },
    { weight: 1, arbitrary: artifactId(known).map((id) => ({ config: { $artifact: id } })) },
    { weight: 1, arbitrary: fc.constantFrom({ $artifact: 7 }, { a: { $artifact: null } }, [{ $artifact: "art_x" }]) },
  );

const draft = fc.record({ originalName: mostly(FILE_NAMES), contentHash, metadata: fc.option(fc.jsonValue({ maxDepth: 2, stringUnit: "binary" }), { nil: undefined }) }, { requiredKeys: ["originalName", "contentHash"] });

const pins = fc.record({ codeVersion: fc.option(weirdText, { nil: undefined }), imageDigest: fc.option(weirdText, { nil: undefined }), deterministic: fc.option(fc.boolean(), { nil: undefined }), inputVersions: fc.option(fc.jsonValue({ maxDepth: 2 }), { nil: undefined }) }, { requiredKeys: [] });

const explicitLineage = (known: () => readonly string[]) =>
  fc.record({ output: mostly(FILE_NAMES), sources: fc.array(fc.oneof(artifactId(known), mostly(FILE_NAMES)), { maxLength: 3 }), kind: fc.option(fc.constantFrom("JOINT", "INDEPENDENT", "BOGUS"), { nil: undefined }) }, { requiredKeys: ["output", "sources"] });

/** Sometimes a field of the wrong type, or one the input does not have. */
const illShaped = <T extends Record<string, unknown>>(arb: fc.Arbitrary<T>) =>
  fc.oneof(
    { weight: 9, arbitrary: arb as fc.Arbitrary<Record<string, unknown>> },
    { weight: 1, arbitrary: fc.tuple(arb, fc.constantFrom("operation", "inputs", "outputs", "status", "unknownField", "name", "kind", "steps"), fc.jsonValue({ maxDepth: 2 })).map(([value, key, junk]) => ({ ...value, [key]: junk })) },
  );

export function recordExecutionInput(known: () => readonly string[]) {
  return illShaped(
    fc.record(
      {
        operation: mostly(OPERATION_NAMES),
        operationVersion: mostly(["1"]),
        inputs: fc.array(fc.record({ role: mostly(ROLES), artifactIds: fc.array(artifactId(known), { maxLength: 3 }) }), { maxLength: 3 }),
        outputs: fc.array(fc.record({ role: mostly(ROLES), artifacts: fc.array(draft, { maxLength: 3 }) }), { maxLength: 3 }),
        params: jsonParams(known),
        status: mostly(STATUSES),
        pipeline: fc.oneof(fc.constantFrom("fuzz", "fuzz2"), weirdText),
        step,
        startedAt: dateText,
        endedAt: dateText,
        agent: weirdText,
        parentRunId: fc.oneof(weirdText, fc.constantFrom("run_00000000-0000-7000-8000-000000000000")),
        pins,
        lineage: fc.array(explicitLineage(known), { maxLength: 2 }),
      },
      { requiredKeys: ["operation", "operationVersion", "inputs", "outputs"] },
    ),
  );
}

const roleDeclaration = (output: boolean) =>
  fc.record(
    {
      role: mostly(ROLES),
      artifactType: mostly(TYPES),
      required: fc.option(fc.boolean(), { nil: undefined }),
      ...(output
        ? {
            inferLineageFrom: fc.option(
              fc.oneof(
                fc.record({ inputs: fc.array(mostly(ROLES), { maxLength: 2 }) }),
                fc.record({ outputs: fc.array(mostly(ROLES), { maxLength: 2 }) }),
                fc.record({ inputs: fc.array(mostly(ROLES), { maxLength: 1 }), outputs: fc.array(mostly(ROLES), { maxLength: 1 }) }),
                fc.constant({}),
              ),
              { nil: undefined },
            ),
          }
        : {}),
    },
    { requiredKeys: ["role", "artifactType"] },
  );

export const registerOperationInput = illShaped(
  fc.record(
    {
      name: mostly([...OPERATION_NAMES, "fuzz_a", "fuzz_b"]),
      version: mostly(["1", "2"]),
      kind: mostly(["CREATOR", "CURATOR"]),
      groupBy: fc.option(mostly(["ZIP", "CROSS_PRODUCT", "LINEAGE"]), { nil: undefined }),
      inputs: fc.array(roleDeclaration(false), { maxLength: 3 }),
      outputs: fc.array(roleDeclaration(true), { maxLength: 3 }),
    },
    { requiredKeys: ["name", "version", "kind", "inputs", "outputs"] },
  ),
);

const COMPOSITE_NAMES = ["fuzz_persist", "fuzz_discard", "fuzz_new"];

/** The acceptance composite, mutated: wires dropped or rewired, steps renamed or dropped, flags and conditions added. */
export const registerCompositeInput = illShaped(
  fc
    .record({
      name: mostly(COMPOSITE_NAMES),
      intermediates: mostly(["PERSIST", "DISCARD", "EXPOSE"]),
      dropWire: fc.option(fc.nat(5), { nil: undefined }),
      rewire: fc.option(fc.tuple(fc.nat(5), mostly(["in.a", "in.b", "clean.cleaned", "join.joined", "report.figure", "out.metric", "clean.data", "nowhere.x"])), { nil: undefined }),
      dropStep: fc.option(fc.nat(2), { nil: undefined }),
      renameStep: fc.option(fc.tuple(fc.nat(2), weirdText), { nil: undefined }),
      flags: fc.option(fc.array(mostly(["dryRun", "skipReport"]), { maxLength: 2 }), { nil: undefined }),
      when: fc.option(fc.tuple(fc.nat(2), mostly(["dryRun", "skipReport"]), fc.boolean()), { nil: undefined }),
      allowUnsound: fc.option(fc.boolean(), { nil: undefined }),
    })
    .map((m) => {
      const c: any = pipelineComposite(m.name as string, m.intermediates as string);
      c.wires = c.wires.map((w: any) => ({ ...w }));
      c.steps = c.steps.map((s: any) => ({ ...s }));
      if (m.rewire) c.wires[m.rewire[0]].from = m.rewire[1];
      if (m.dropWire !== undefined) c.wires.splice(m.dropWire, 1);
      if (m.renameStep) c.steps[m.renameStep[0]].name = m.renameStep[1];
      if (m.dropStep !== undefined) c.steps.splice(m.dropStep, 1);
      if (m.flags) c.flags = m.flags;
      if (m.when && c.steps[m.when[0]]) c.steps[m.when[0]].when = { flag: m.when[1], equals: m.when[2] };
      if (m.allowUnsound !== undefined) c.allowUnsound = m.allowUnsound;
      return c as Record<string, unknown>;
    }),
);

export function recordCompositeInput(known: () => readonly string[]) {
  return illShaped(
    fc
      .record({
        composite: mostly(["fuzz_persist", "fuzz_discard", "fuzz_new", "source"]),
        label: fc.string({ maxLength: 4 }),
        inputs: fc.array(fc.record({ role: mostly(["a", "b", "c"]), artifactIds: fc.array(artifactId(known), { minLength: 0, maxLength: 3 }) }), { maxLength: 3 }),
        dropStep: fc.option(fc.nat(2), { nil: undefined }),
        extraOutput: fc.option(fc.tuple(fc.nat(2), mostly(ROLES), draft), { nil: undefined }),
        status: fc.option(fc.tuple(fc.nat(2), mostly(STATUSES)), { nil: undefined }),
        flags: fc.option(fc.oneof(fc.constant({ dryRun: true }), fc.jsonValue({ maxDepth: 2 })), { nil: undefined }),
        pipeline: fc.option(weirdText, { nil: undefined }),
        step: fc.option(step, { nil: undefined }),
        params: fc.option(jsonParams(known), { nil: undefined }),
      })
      .map((m) => {
        const steps: any[] = stepsOf(`fuzz-${m.label}`).map((s) => ({ ...s, outputs: [...s.outputs] }));
        if (m.extraOutput && steps[m.extraOutput[0]]) steps[m.extraOutput[0]].outputs.push({ role: m.extraOutput[1], artifacts: [m.extraOutput[2]] });
        if (m.status && steps[m.status[0]]) steps[m.status[0]].status = m.status[1];
        if (m.dropStep !== undefined) steps.splice(m.dropStep, 1);
        const input: Record<string, unknown> = { composite: m.composite, compositeVersion: "1", inputs: m.inputs, steps };
        if (m.flags !== undefined) input.flags = m.flags;
        if (m.pipeline !== undefined) input.pipeline = m.pipeline;
        if (m.step !== undefined) input.step = m.step;
        if (m.params !== undefined) input.params = m.params;
        return input;
      }),
  );
}

/** The four inputs and two cleaned files a composite run needs, for setting up cases that can succeed. */
export const compositeSeed = (label: string) => drafts(label, ["A0.csv", "A1.csv", "B0.csv", "B1.csv"]);

// ---------------------------------------------------------------- OpenLineage events

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Every path (keys and indexes) inside a JSON value, the root included. */
function paths(value: Json, prefix: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(prefix);
  if (Array.isArray(value)) value.forEach((v, i) => paths(v, [...prefix, i], out));
  else if (value && typeof value === "object") for (const [k, v] of Object.entries(value)) paths(v, [...prefix, k], out);
  return out;
}

interface Mutation {
  at: number;
  op: "delete" | "replace" | "string" | "number" | "duplicate" | "empty" | "control";
  value: Json;
}

function mutate(event: Json, mutations: readonly Mutation[]): Json {
  let root = structuredClone(event);
  for (const m of mutations) {
    const all = paths(root);
    const path = all[m.at % all.length];
    if (path.length === 0) {
      if (m.op === "replace") root = m.value;
      continue;
    }
    const parent = path.slice(0, -1).reduce<any>((node, key) => node[key], root);
    const key = path[path.length - 1];
    const current = parent[key];
    switch (m.op) {
      case "delete":
        if (Array.isArray(parent)) parent.splice(key as number, 1);
        else delete parent[key];
        break;
      case "replace":
        parent[key] = m.value;
        break;
      case "string":
        parent[key] = typeof current === "string" ? `${current}${JSON.stringify(m.value).slice(0, 20)}` : String(JSON.stringify(current)).slice(0, 50);
        break;
      case "number":
        parent[key] = typeof m.value === "number" ? m.value : -1;
        break;
      case "duplicate":
        if (Array.isArray(current)) parent[key] = [...current, ...current];
        else if (Array.isArray(parent)) parent.push(structuredClone(current));
        else parent[`${String(key)}_copy`] = structuredClone(current);
        break;
      case "control":
        // NUL, a lone surrogate, an escape: text PostgreSQL refuses or that corrupts logs.
        parent[key] = `${typeof current === "string" ? current : "x"}${["\u0000", "\ud800", "\u001b[31m"][Math.abs(Number(m.at)) % 3]}`;
        break;
      case "empty":
        parent[key] = Array.isArray(current) ? [] : current && typeof current === "object" ? {} : "";
        break;
    }
  }
  return root;
}

const mutation: fc.Arbitrary<Mutation> = fc.record({ at: fc.nat(), op: fc.constantFrom("delete", "replace", "string", "number", "duplicate", "empty", "control"), value: fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json> });

/**
 * An event drawn from the shared fixtures with a fresh runId (so it is stored, not a duplicate), then
 * mutated 0–4 times (a key deleted, a value replaced by other JSON, retyped, duplicated, emptied, or a
 * control character or lone surrogate appended).
 */
export function mutatedEvent(fixtures: readonly Json[]) {
  return fc.tuple(fc.nat(fixtures.length - 1), fc.uuid(), fc.array(mutation, { maxLength: 4 })).map(([index, uuid, mutations]) => {
    const event = structuredClone(fixtures[index]) as any;
    if (event && typeof event === "object" && event.run && typeof event.run === "object") event.run.runId = uuid;
    return mutate(event, mutations);
  });
}

/** A request body for a lineage route: JSON of events, or bytes that are not quite JSON. */
export function lineageBody(fixtures: readonly Json[]) {
  return fc.oneof(
    { weight: 6, arbitrary: mutatedEvent(fixtures).map((e) => ({ route: "/api/v1/lineage", body: JSON.stringify(e), contentType: "application/json" })) },
    { weight: 3, arbitrary: fc.array(mutatedEvent(fixtures), { minLength: 1, maxLength: 4 }).map((events) => ({ route: "/api/v1/lineage/batch", body: JSON.stringify(events), contentType: "application/json" })) },
    {
      weight: 1,
      arbitrary: fc.array(mutatedEvent(fixtures), { minLength: 1, maxLength: 3 }).map((events) => ({ route: "/api/v1/lineage/batch", body: events.map((e) => JSON.stringify(e)).join("\n"), contentType: "application/x-ndjson" })),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(mutatedEvent(fixtures), fc.nat(), fc.constantFrom("/api/v1/lineage", "/api/v1/lineage/batch"), fc.constantFrom("application/json", "text/plain", "application/x-ndjson", "")).map(([e, cut, route, contentType]) => {
        const text = JSON.stringify(e);
        return { route, body: text.slice(0, cut % (text.length + 1)), contentType };
      }),
    },
    { weight: 1, arbitrary: fc.tuple(fc.uint8Array({ maxLength: 64 }), fc.constantFrom("/api/v1/lineage", "/api/v1/lineage/batch")).map(([bytes, route]) => ({ route, body: Buffer.from(bytes).toString("latin1"), contentType: "application/json" })) },
  );
}

// ---------------------------------------------------------------- plausible inputs (many succeed)

const pick = <T>(known: () => readonly T[]) => fc.nat().map((n) => known()[n % Math.max(1, known().length)]);

/**
 * What a pipeline would send to one of the fixture operations: its declared roles, stored input ids,
 * output names that stem-match or not, real content hashes, the optional fields sometimes set. Enough
 * of them pass every rule that the success path (and its table writes) is fuzzed too.
 */
export function plausibleExecution(known: () => readonly string[]) {
  const operations = OPERATIONS as readonly { name: string; inputs: { role: string }[]; outputs: { role: string }[] }[];
  return fc
    .record({
      op: fc.nat(operations.length - 1),
      inputs: fc.array(pick(known), { minLength: 1, maxLength: 3 }),
      names: fc.array(fc.constantFrom(...FILE_NAMES, "A0_clean.csv", "A1_clean.csv"), { minLength: 1, maxLength: 3 }),
      salt: fc.string({ maxLength: 8 }),
      status: fc.option(fc.constantFrom(...STATUSES), { nil: undefined }),
      pipeline: fc.option(fc.constantFrom("fuzz", "fuzz2"), { nil: undefined }),
      step: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
      params: fc.option(jsonParams(known), { nil: undefined }),
      agent: fc.option(weirdText, { nil: undefined }),
      startedAt: fc.option(fc.date({ min: new Date("2020-01-01T00:00:00Z"), max: new Date("2030-01-01T00:00:00Z"), noInvalidDate: true }).map((d) => d.toISOString()), { nil: undefined }),
      pins: fc.option(pins, { nil: undefined }),
    })
    .map((m) => {
      const op = operations[m.op];
      const input: Record<string, unknown> = {
        operation: op.name,
        operationVersion: "1",
        inputs: op.inputs.map((r, i) => ({ role: r.role, artifactIds: i === 0 ? [...new Set(m.inputs)] : [...new Set(m.inputs)].slice(0, 1) })),
        outputs: op.outputs.map((r) => ({ role: r.role, artifacts: [...new Set(m.names)].map((n) => ({ originalName: n, contentHash: sha256Of(`${m.salt}/${r.role}/${n}`) })) })),
      };
      for (const key of ["status", "pipeline", "step", "params", "agent", "startedAt", "pins"] as const) if (m[key] !== undefined) input[key] = m[key];
      return input;
    });
}

/** A run of a registered composite over stored csv inputs, its steps as the fixtures report them (sometimes one changed). */
export function plausibleComposite(sources: () => readonly string[]) {
  return fc
    .record({
      composite: fc.constantFrom("fuzz_persist", "fuzz_discard"),
      a: fc.tuple(pick(sources), pick(sources)),
      b: fc.tuple(pick(sources), pick(sources)),
      label: fc.string({ maxLength: 6 }),
      status: fc.option(fc.tuple(fc.nat(2), fc.constantFrom(...STATUSES)), { nil: undefined }),
      pipeline: fc.option(fc.tuple(fc.constantFrom("fuzzc", "fuzz"), fc.integer({ min: 1, max: 4 })), { nil: undefined }),
    })
    .map((m) => {
      const steps: any[] = stepsOf(`plausible-${m.label}`).map((s) => ({ ...s }));
      if (m.status) steps[m.status[0]].status = m.status[1];
      const input: Record<string, unknown> = {
        composite: m.composite,
        compositeVersion: "1",
        inputs: [
          { role: "a", artifactIds: [...new Set(m.a)] },
          { role: "b", artifactIds: [...new Set(m.b)] },
        ],
        steps,
      };
      if (m.pipeline) Object.assign(input, { pipeline: m.pipeline[0], step: m.pipeline[1] });
      return input;
    });
}

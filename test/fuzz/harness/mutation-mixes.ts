import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { sha256Of } from "../../support/content-hash";

/**
 * Multi-field mutations as a client may write them: 1–5 root fields, some a write token may run
 * and some only admin, each aliased or not, placed directly, in an inline fragment or behind a
 * named fragment spread, each place with or without @skip / @include (a literal or a variable).
 * Every field's arguments are valid, so whatever the token may run would write.
 */

export type NeededScope = "write" | "admin";

/** A root mutation field with valid arguments: `args(n)` is unique per use (so an allowed field writes). */
interface FieldTemplate {
  name: string;
  scope: NeededScope;
  /** The argument list and selection, given a fresh number; `variables` it needs declared. */
  text(n: number, context: MixContext): { args: string; selection: string; variables?: { name: string; type: string; value: unknown }[] };
}

/** What the store holds for the templates to point at (set up by the suite). */
export interface MixContext {
  columnArtifactId: string;
  artifactId: string;
}

const TEMPLATES: FieldTemplate[] = [
  {
    name: "recordExecution",
    scope: "write",
    text: (n) => ({
      args: `(input: { operation: "mix_gen", operationVersion: "1", inputs: [], outputs: [{ role: "raw", artifacts: [{ originalName: "mix-${n}.csv", contentHash: "${sha256Of(`mix-${n}-${randomUUID()}`)}" }] }] })`,
      selection: "{ __typename }",
    }),
  },
  {
    name: "ingestOpenLineageEvents",
    scope: "write",
    text: (n) => ({
      args: `(events: $events${n})`,
      selection: "{ stored }",
      variables: [
        {
          name: `events${n}`,
          type: "[JSON!]!",
          value: [
            {
              eventType: "COMPLETE",
              eventTime: "2026-03-11T02:14:07.318Z",
              producer: "https://github.com/OpenLineage/OpenLineage/tree/1.30.0/client/python",
              schemaURL: "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
              run: { runId: randomUUID(), facets: {} },
              job: { namespace: "mix", name: `job-${n}` },
              inputs: [],
              outputs: [{ namespace: "mix", name: `out-${n}`, facets: {} }],
            },
          ],
        },
      ],
    }),
  },
  {
    name: "registerOperation",
    scope: "admin",
    text: (n) => ({ args: `(input: { name: "mix_op_${n}", version: "1", kind: CREATOR, inputs: [], outputs: [{ role: "raw", artifactType: "csv", inferLineageFrom: { inputs: [] } }] })`, selection: "{ __typename }" }),
  },
  { name: "createApiToken", scope: "admin", text: (n) => ({ args: `(input: { name: "mix-${n}", scopes: ["read"] })`, selection: "{ token }" }) },
  { name: "tagColumn", scope: "admin", text: (n, c) => ({ args: `(input: { column: { artifactId: "${c.columnArtifactId}", field: "email" }, tag: "MIX${n}", reason: "fuzz" })`, selection: "{ created }" }) },
  { name: "tagArtifact", scope: "admin", text: (n, c) => ({ args: `(input: { artifactId: "${c.artifactId}", tag: "ART${n}", reason: "fuzz" })`, selection: "{ created }" }) },
  { name: "recordCatalogueFacts", scope: "admin", text: (n, c) => ({ args: `(input: { target: { artifactId: "${c.artifactId}" }, note: "mix ${n}" })`, selection: "{ id }" }) },
  { name: "erasurePlan", scope: "admin", text: (n) => ({ args: `(subjectKey: "subject-${n}")`, selection: "{ id }" }) },
];

type Directive = { kind: "none" } | { kind: "skip" | "include"; literal: boolean } | { kind: "skip" | "include"; variable: boolean };
type Placement = "direct" | "inline" | "spread";

export interface MixField {
  name: string;
  scope: NeededScope;
  responseKey: string;
  /** Whether the executor skips it (its own directive, or its fragment's). */
  skipped: boolean;
}

export interface MutationMix {
  query: string;
  variables: Record<string, unknown>;
  fields: MixField[];
  /** Sent as SSE (Accept: text/event-stream) rather than plain JSON. */
  sse: boolean;
}

const directive: fc.Arbitrary<Directive> = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ kind: "none" } as Directive) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constantFrom("skip" as const, "include" as const), literal: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constantFrom("skip" as const, "include" as const), variable: fc.boolean() }) },
);

const fieldChoice = fc.record({
  template: fc.nat({ max: TEMPLATES.length - 1 }),
  aliased: fc.boolean(),
  placement: fc.constantFrom<Placement>("direct", "direct", "inline", "spread"),
  own: directive,
  enclosing: directive,
});

/** A multi-field mutation (1–5 fields), as text with its variables and what each field is. */
export const mutationMix = (context: () => MixContext): fc.Arbitrary<MutationMix> =>
  fc.record({ choices: fc.array(fieldChoice, { minLength: 1, maxLength: 5 }), sse: fc.boolean() }).map(({ choices, sse }) => {
    const variables: Record<string, unknown> = {};
    const declarations: string[] = [];
    const fragments: string[] = [];
    const selections: string[] = [];
    const fields: MixField[] = [];
    const used = new Set<string>();
    let flags = 0;
    const applied = (d: Directive): { text: string; skips: boolean } => {
      if (d.kind === "none") return { text: "", skips: false };
      let value: boolean;
      let argument: string;
      if ("literal" in d) {
        value = d.literal;
        argument = String(value);
      } else {
        const name = `flag${++flags}`;
        declarations.push(`$${name}: Boolean!`);
        variables[name] = value = d.variable;
        argument = `$${name}`;
      }
      return { text: `@${d.kind}(if: ${argument})`, skips: d.kind === "skip" ? value : !value };
    };
    choices.forEach((choice, i) => {
      const template = TEMPLATES[choice.template];
      const n = nextNumber();
      const { args, selection, variables: needed = [] } = template.text(n, context());
      for (const v of needed) {
        declarations.push(`$${v.name}: ${v.type}`);
        variables[v.name] = v.value;
      }
      // Unaliased only when no other field answers under the same name.
      const responseKey = choice.aliased || used.has(template.name) ? `f${i}` : template.name;
      used.add(responseKey);
      const own = applied(choice.own);
      const field = `${responseKey === template.name ? "" : `${responseKey}: `}${template.name}${args} ${own.text} ${selection}`;
      let skipped = own.skips;
      if (choice.placement === "direct") selections.push(field);
      else {
        const enclosing = applied(choice.enclosing);
        skipped ||= enclosing.skips;
        if (choice.placement === "inline") selections.push(`... ${i % 2 === 0 ? "on Mutation " : ""}${enclosing.text} { ${field} }`);
        else {
          fragments.push(`fragment Part${i} on Mutation { ${field} }`);
          selections.push(`...Part${i} ${enclosing.text}`);
        }
      }
      fields.push({ name: template.name, scope: template.scope, responseKey, skipped });
    });
    const query = `mutation${declarations.length ? `(${declarations.join(", ")})` : ""} { ${selections.join(" ")} } ${fragments.join(" ")}`;
    return { query, variables, fields, sse };
  });

let counter = 0;
/** Numbers unique across the run (a shrunk case reuses its arbitrary values, never its numbers). */
function nextNumber(): number {
  return ++counter;
}

/** The tokens the suite tries, by the scopes they hold. */
export const TOKEN_SCOPES: readonly (readonly string[])[] = [["read"], ["write"], ["admin"], ["clearance:PII"], ["read", "clearance:PII"], ["write", "clearance:PII"]];

/** Whether a token with `held` may run a field needing `needed` (admin grants write; clearances grant neither). */
export function mayRun(held: readonly string[], needed: NeededScope): boolean {
  return needed === "write" ? held.includes("write") || held.includes("admin") : held.includes("admin");
}

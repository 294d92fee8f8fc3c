import fc from "fast-check";
import { createTokenTestApp, everyTableCount, sseEvents, type TokenTestApp } from "../support/auth";
import { ERASURE_SECRET, hopEvent, ingest, latestVersionId } from "../support/compliance";
import { registerOperation } from "../support/recording";
import { type MixContext, mayRun, mutationMix, type MutationMix, TOKEN_SCOPES } from "./harness/mutation-mixes";

// Multi-field mutations under each scope: generated mixes of root fields a token may and may not
// run (aliases, fragments, @skip/@include). The rule checked on every case: when any field the
// executor would run needs a scope the token lacks, the answer is 403 with one FORBIDDEN per such
// field and data null, and nothing is written — every table's count is unchanged but the audit
// trail's, which gains exactly one FORBIDDEN entry per refused field; otherwise nothing is refused
// for scope, and every error is typed.

const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);
const SCALE = Number(process.env.FUZZ_SCALE ?? 1);
const RUNS = 600;

interface Failure {
  rule: string;
  scopes: readonly string[];
  request: string;
  answer: string;
}

describe("fuzzing multi-field mutations under each scope", () => {
  let t: TokenTestApp;
  const tokens = new Map<readonly string[], string>();
  const context: MixContext = { columnArtifactId: "", artifactId: "" };
  const failures: Failure[] = [];
  const outcomes: Record<string, number> = {};
  const started = Date.now();

  beforeAll(async () => {
    t = await createTokenTestApp({ env: { PROVGRAPH_ERASURE_SECRET: ERASURE_SECRET } });
    await registerOperation(t, { name: "mix_gen", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "raw", artifactType: "csv", inferLineageFrom: { inputs: [] } }] });
    await ingest(t, hopEvent("mix", "load", [{ name: "raw", fields: ["email"] }], { name: "customers", fields: ["email"] }, [["email", "raw", "email", "DIRECT"]]));
    context.columnArtifactId = await latestVersionId(t, "mix", "customers");
    context.artifactId = await latestVersionId(t, "mix", "raw");
    for (const scopes of TOKEN_SCOPES) tokens.set(scopes, await t.issue([...scopes], { name: scopes.join("+") }));
  });
  afterAll(async () => {
    const tried = Object.values(outcomes).reduce((a, b) => a + b, 0);
    process.stdout.write(
      `\nscope fuzz (${t.app.database.provider}, seed ${SEED}): ${tried} cases (${Object.entries(outcomes)
        .map(([k, n]) => `${k} ${n}`)
        .join(", ")}), ${failures.length} failures, ${((Date.now() - started) / 1000).toFixed(1)} s\n${failures
        .slice(0, 5)
        .map((f) => `  ${f.rule} [${f.scopes.join(" ")}]\n    sent ${f.request.slice(0, 800)}\n    got ${f.answer.slice(0, 800)}`)
        .join("\n")}\n`,
    );
    await t.close();
  });

  async function check(scopes: readonly string[], mix: MutationMix): Promise<void> {
    const fail = (rule: string, answer: string) => void failures.push({ rule, scopes, request: JSON.stringify({ query: mix.query, variables: mix.variables }), answer });
    const refused = mix.fields.filter((field) => !field.skipped && !mayRun(scopes, field.scope));
    const before = await everyTableCount(t);
    const lastAudit = (await t.app.database.prisma.auditEvent.findFirst({ orderBy: { id: "desc" }, select: { id: true } }))?.id ?? 0;
    const answer = await t.send({ token: tokens.get(scopes), headers: mix.sse ? { accept: "text/event-stream" } : {}, graphql: { query: mix.query, variables: mix.variables } });
    const body = mix.sse ? sseEvents(answer.text)[0]?.data : answer.json;
    const after = await everyTableCount(t);
    const entries = await t.app.database.prisma.auditEvent.findMany({ where: { id: { gt: lastAudit } }, orderBy: { id: "asc" } });
    if (answer.status >= 500 || !body) return fail(`HTTP ${answer.status}`, answer.text);
    const codes: unknown[] = (body.errors ?? []).map((e: { extensions?: { code?: unknown } }) => e.extensions?.code);
    if (codes.some((code) => typeof code !== "string" || code === "INTERNAL_SERVER_ERROR")) return fail("an error without a typed code", answer.text);
    if (refused.length === 0) {
      outcomes[`ran (${mix.fields.filter((f) => !f.skipped).length} fields)`] = (outcomes[`ran (${mix.fields.filter((f) => !f.skipped).length} fields)`] ?? 0) + 1;
      if (codes.includes("FORBIDDEN")) return fail("refused though every field it runs is allowed", answer.text);
      if (entries.some((e) => e.outcome === "FORBIDDEN")) return fail("a FORBIDDEN audit entry for an allowed operation", JSON.stringify(entries));
      return;
    }
    outcomes.refused = (outcomes.refused ?? 0) + 1;
    if (answer.status !== 403) return fail(`HTTP ${answer.status}, not 403`, answer.text);
    if (body.data !== null) return fail("data is not null", answer.text);
    const got = (body.errors as { path?: string[]; extensions: { code: string; field: string } }[]).map((e) => `${e.path?.[0]} ${e.extensions.field} ${e.extensions.code}`).sort();
    const expected = refused.map((f) => `${f.responseKey} ${f.name} FORBIDDEN`).sort();
    if (JSON.stringify(got) !== JSON.stringify(expected)) return fail(`errors ${JSON.stringify(got)}, expected ${JSON.stringify(expected)}`, answer.text);
    const moved = Object.keys(after).filter((table) => table !== "AuditEvent" && after[table] !== before[table]);
    if (moved.length > 0) return fail(`a refused operation wrote: ${moved.map((table) => `${table} ${before[table]} → ${after[table]}`).join(", ")}`, answer.text);
    const audited = entries.map((e) => `${e.action} ${e.outcome}`).sort();
    const refusals = refused.map((f) => `${f.name} FORBIDDEN`).sort();
    if (JSON.stringify(audited) !== JSON.stringify(refusals)) return fail(`audit entries ${JSON.stringify(audited)}, expected ${JSON.stringify(refusals)}`, JSON.stringify(entries));
  }

  test("a mix with any refused field writes nothing; one without is never refused for scope", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...TOKEN_SCOPES), mutationMix(() => context), async (scopes, mix) => {
        await check(scopes, mix);
        return true;
      }),
      { numRuns: Math.max(1, Math.round(RUNS * SCALE)), seed: SEED, endOnFailure: true },
    );
    expect(failures).toEqual([]);
    // Both kinds of case were tried, under every scope.
    expect(outcomes.refused).toBeGreaterThan(0);
    expect(Object.keys(outcomes).some((k) => k.startsWith("ran"))).toBe(true);
  });
});

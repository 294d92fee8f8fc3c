import fs from "node:fs";
import path from "node:path";
import { buildApp } from "../src/app";
import { loadConfig } from "../src/config";
import { HeavyReads } from "../src/services/heavy-reads";
import { draft } from "../test/support/recording";
import { interleave, round } from "./interleave";

/**
 * What moving heavy reads off the event loop costs a small one: a micro graph of a three-step
 * pipeline (13 nodes), the evidence package of its last output and that output's lineage closure
 * (upstream, 3 artifacts: the closures `lineage` answers most often are this small), run by the same code on the
 * event loop (HEAVY_READ_THREADS=0) and through the pool (one thread; the answer crosses the thread
 * boundary by structured clone), interleaved in blocks. A ratio is pool time ÷ in-process time.
 */
export interface HeavyReadsResult {
  blocks: number;
  perBlock: number;
  microInProcessMs: number;
  microPoolMs: number;
  microRatio: number;
  evidenceInProcessMs: number;
  evidencePoolMs: number;
  evidenceRatio: number;
  closureInProcessMs: number;
  closurePoolMs: number;
  closureRatio: number;
}

export async function runHeavyReadsBench(options: { quick: boolean; log: (line: string) => void; dataDir: string }): Promise<HeavyReadsResult> {
  const dir = path.join(options.dataDir, "heavy-reads");
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const app = await buildApp(loadConfig({ DATABASE_URL: `file:${path.join(dir, "store.db")}`, PORT: "0", LOG_LEVEL: "silent", HEAVY_READ_THREADS: "0" }));
  const gql = async (query: string, variables: unknown) => {
    const response = await app.yoga.fetch("http://bench/graphql", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query, variables }) });
    return (await response.json()) as any;
  };
  const register = (input: unknown) => gql(`mutation($input: RegisterOperationInput!) { registerOperation(input: $input) { __typename } }`, { input });
  await register({ name: "extract", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "part", artifactType: "csv", inferLineageFrom: { inputs: [] } }] });
  await register({ name: "clean", version: "1", kind: "CREATOR", inputs: [{ role: "data", artifactType: "csv" }], outputs: [{ role: "result", artifactType: "csv", inferLineageFrom: { inputs: ["data"] } }] });
  const record = `mutation($input: RecordExecutionInput!) { recordExecution(input: $input) { ... on RecordExecutionPayload { execution { outputs { artifact { id } } } } } }`;
  const pins = { imageDigest: "sha256:b", deterministic: true, inputVersions: { source: "v1" } };
  let ids: string[] = (await gql(record, { input: { operation: "extract", operationVersion: "1", pipeline: "small", step: 1, pins, inputs: [], outputs: [{ role: "part", artifacts: ["a.csv", "b.csv", "c.csv"].map(draft) }] } })).data.recordExecution.execution.outputs.map((o: any) => o.artifact.id);
  for (const [step, suffix] of [[2, "_1"], [3, "_1_2"]] as const) {
    const names = ["a", "b", "c"].map((n) => `${n}${suffix}.csv`);
    ids = (await gql(record, { input: { operation: "clean", operationVersion: "1", pipeline: "small", step, pins, inputs: [{ role: "data", artifactIds: ids }], outputs: [{ role: "result", artifacts: names.map(draft) }] } })).data.recordExecution.execution.outputs.map(
      (o: any) => o.artifact.id,
    );
  }
  const inProcess = app.services.heavyReads;
  const pool = new HeavyReads({ ...inProcess.options, threads: 1 }, app.database);
  await pool.warm();
  const micro = (reads: HeavyReads) => () => reads.run("microGraph", { pipeline: "small", upToStep: null, options: {} });
  const evidence = (reads: HeavyReads) => () => reads.run("evidencePackage", { query: { artifactId: ids[0] }, withheld: [] });
  const closure = (reads: HeavyReads) => () => reads.run("lineageClosure", { rootId: ids[0] as never, direction: "UPSTREAM", withArtifacts: false, edgeDetails: false });
  const blocks = options.quick ? 6 : 20;
  const perBlock = options.quick ? 20 : 50;
  try {
    const microRun = await interleave(
      [
        { name: "inProcess", run: micro(inProcess) },
        { name: "pool", run: micro(pool) },
      ],
      { blocks, perBlock, warmup: perBlock },
    );
    const evidenceRun = await interleave(
      [
        { name: "inProcess", run: evidence(inProcess) },
        { name: "pool", run: evidence(pool) },
      ],
      { blocks, perBlock, warmup: perBlock },
    );
    const closureRun = await interleave(
      [
        { name: "inProcess", run: closure(inProcess) },
        { name: "pool", run: closure(pool) },
      ],
      { blocks, perBlock, warmup: perBlock },
    );
    const result: HeavyReadsResult = {
      blocks,
      perBlock,
      microInProcessMs: round(microRun.sides.inProcess.msPerOp, 2),
      microPoolMs: round(microRun.sides.pool.msPerOp, 2),
      microRatio: round(microRun.ratio("inProcess", "pool"), 3),
      evidenceInProcessMs: round(evidenceRun.sides.inProcess.msPerOp, 2),
      evidencePoolMs: round(evidenceRun.sides.pool.msPerOp, 2),
      evidenceRatio: round(evidenceRun.ratio("inProcess", "pool"), 3),
      closureInProcessMs: round(closureRun.sides.inProcess.msPerOp, 2),
      closurePoolMs: round(closureRun.sides.pool.msPerOp, 2),
      closureRatio: round(closureRun.ratio("inProcess", "pool"), 3),
    };
    options.log(
      `heavy reads, small: microGraph ${result.microInProcessMs} ms in process, ${result.microPoolMs} ms through the pool (×${result.microRatio}); evidencePackage ${result.evidenceInProcessMs} ms / ${result.evidencePoolMs} ms (×${result.evidenceRatio}); lineage closure ${result.closureInProcessMs} ms / ${result.closurePoolMs} ms (×${result.closureRatio})`,
    );
    return result;
  } finally {
    await pool.close();
    await app.stop();
  }
}

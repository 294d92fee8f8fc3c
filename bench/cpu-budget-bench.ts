import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { CPU_PHASES, type CpuPhase, type CpuPhaseTotals } from "../src/cpu-phases";
import { graphqlClient } from "./http-client";
import { checkRecorded, prepareProvgraph, requestBodies, workload } from "./ingest-workload";
import { eventsOf } from "./openlineage-bench";
import { startServerProcess } from "./server-process";

/**
 * The CPU budget: where the server's CPU goes per request, phase by phase (src/cpu-phases.ts lists
 * them), for a 10 → 10 and a 50 → 50 recordExecution and one OpenLineage event per POST, measured in
 * the server process (PROVGRAPH_CPU_PHASES=1, marks around each phase) with one client sending one
 * request after another. `serverCpuMs` is the process's whole CPU per request from /proc, the marks'
 * own cost (a getrusage call each) included; the phases add up to it.
 *
 * `baseline` keeps the table measured before the CPU work (the first run that wrote one), so every
 * later run prints beside it; `--cpu-baseline` measures it again.
 */
export interface CpuBudgetRow {
  workload: string;
  requests: number;
  serverCpuMs: number;
  /** CPU ms per request in each phase. */
  phases: Record<CpuPhase, number>;
  /** How many times per request each phase was entered. */
  entries: Record<CpuPhase, number>;
}

export interface CpuBudgetResult {
  at: string;
  loadAverage: number[];
  rows: CpuBudgetRow[];
  baseline?: { at: string; loadAverage: number[]; commit?: string; rows: CpuBudgetRow[] };
}

const POOL = 20;

function perRequest(totals: CpuPhaseTotals, requests: number, serverCpuMs: number, name: string): CpuBudgetRow {
  const round = (value: number) => Math.round(value * 1000) / 1000;
  return {
    workload: name,
    requests,
    serverCpuMs: round(serverCpuMs / requests),
    phases: Object.fromEntries(CPU_PHASES.map((phase) => [phase, round(totals.micros[phase] / 1000 / requests)])) as Record<CpuPhase, number>,
    entries: Object.fromEntries(CPU_PHASES.map((phase) => [phase, round(totals.entries[phase] / requests)])) as Record<CpuPhase, number>,
  };
}

/** One POST of a JSON body to `url` on a kept-alive connection; rejects unless 2xx. */
function poster(url: string) {
  const target = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const post = (body: string) =>
    new Promise<void>((resolve, reject) => {
      const request = http.request({ host: target.hostname, port: target.port, path: target.pathname, method: "POST", agent, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) } }, (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => ((response.statusCode ?? 500) < 300 ? resolve() : reject(new Error(`${response.statusCode} ${Buffer.concat(chunks).toString("utf8").slice(0, 300)}`))));
        response.on("error", reject);
      });
      request.on("error", reject);
      request.end(body);
    });
  return { post, close: () => agent.destroy() };
}

export async function runCpuBudgetBench(options: { quick: boolean; log: (line: string) => void; dataDir: string; previous?: CpuBudgetResult; rebaseline?: boolean }): Promise<CpuBudgetResult> {
  const requests = options.quick ? 100 : 400;
  const warmup = options.quick ? 30 : 100;
  fs.mkdirSync(options.dataDir, { recursive: true });
  const file = path.join(options.dataDir, "cpu-budget.db");
  for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(file + suffix, { force: true });
  const server = await startServerProcess({ DATABASE_URL: `file:${file}`, PROVGRAPH_CPU_PHASES: "1" });
  const rows: CpuBudgetRow[] = [];
  try {
    const client = graphqlClient(server.url);
    const measure = async (name: string, send: (i: number) => Promise<void>) => {
      for (let i = 0; i < warmup; i++) await send(i);
      await server.cpuPhases();
      const cpuBefore = await server.cpuMs();
      for (let i = warmup; i < warmup + requests; i++) await send(i);
      const cpuAfter = await server.cpuMs();
      const row = perRequest(await server.cpuPhases(), requests, cpuAfter - cpuBefore, name);
      rows.push(row);
      options.log(`cpu budget ${name}: server CPU ${row.serverCpuMs} ms/request; ${CPU_PHASES.filter((p) => row.phases[p] > 0.0005).map((p) => `${p} ${row.phases[p]}`).join(", ")}`);
    };
    for (const fan of [10, 50]) {
      const work = workload(fan, POOL);
      const sets = await prepareProvgraph(client, work);
      const bodies = requestBodies(work, `f${fan}`, sets, warmup + requests);
      await measure(`recordExecution ${fan} → ${fan}`, async (i) => checkRecorded(await client.post(bodies[i])));
    }
    client.close();
    const lineage = poster(`${new URL(server.url).origin}/api/v1/lineage`);
    const events = Array.from({ length: Math.ceil((warmup + requests) / 2) }, (_, run) => eventsOf(run)).flat().map((event) => JSON.stringify(event));
    await measure("OpenLineage, one event per POST", (i) => lineage.post(events[i]));
    lineage.close();
  } finally {
    await server.stop();
  }
  const measured = { at: new Date().toISOString(), loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100), rows };
  const baseline = options.rebaseline || !options.previous ? { ...measured, commit: process.env.CPU_BUDGET_COMMIT } : options.previous.baseline;
  return { ...measured, baseline };
}

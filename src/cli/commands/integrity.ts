import { ApiClient, type RemoteOptions } from "../api-client";
import { ExitCode } from "../exit-codes";
import { formatIntegrity, type IntegrityAnswer } from "../integrity-format";
import { openLocalApp } from "../local-app";
import { localConfig } from "../local-config";
import type { Output } from "../output";

export interface IntegrityOptions extends RemoteOptions {
  sample?: number;
  /** Check DATABASE_URL directly (no server: e.g. a backup file, or a stopped server's database). */
  local: boolean;
  json: boolean;
}

const REPORT = `query Integrity($sample: Int) {
  integrityReport(sample: $sample) { ok invariants { name checked violations sample { subject detail } } }
}`;

/** `provgraph integrity`: the store checked against every invariant (admin); exit 1 when any is violated. */
export async function integrity(options: IntegrityOptions, out: Output): Promise<number> {
  let report: IntegrityAnswer;
  if (options.local) {
    const app = await openLocalApp(localConfig());
    try {
      report = await app.services.integrity.check({ sample: options.sample });
    } finally {
      await app.stop();
    }
  } else {
    report = (await new ApiClient(options).graphql<{ integrityReport: IntegrityAnswer }>(REPORT, { sample: options.sample ?? null })).integrityReport;
  }
  out.stdout(options.json ? JSON.stringify(report, null, 2) : formatIntegrity(report));
  return report.ok ? ExitCode.OK : ExitCode.FINDINGS;
}

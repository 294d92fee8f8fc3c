import fs from "node:fs";
import { ApiClient, type RemoteOptions } from "../api-client";
import { CliError, ExitCode } from "../exit-codes";
import type { Output } from "../output";

export interface EvidenceOptions extends RemoteOptions {
  field?: string;
  asOf?: string;
  /** Write the package here rather than to stdout. */
  out?: string;
  /** A filed package to check against the store instead. */
  verify?: string;
}

const VERIFY = `query Verify($document: JSON!) {
  verifyEvidence(document: $document) { valid documentSha256 currentSha256 differences }
}`;

/**
 * `provgraph evidence <artifactId>`: the evidence package as the server serves it (canonical JSON; its
 * sha256 is what `sha256sum` of the file prints), exit 1 when it is not provable. With `--verify <file>`:
 * recomputes a filed package from the store, exit 0 when the store gives exactly the same document, 1
 * with the places where it differs.
 */
export async function evidence(artifactId: string | undefined, options: EvidenceOptions, out: Output): Promise<number> {
  const client = new ApiClient(options);
  if (options.verify !== undefined) {
    const document = readDocument(options.verify);
    const { verifyEvidence } = await client.graphql<{ verifyEvidence: { valid: boolean; documentSha256: string; currentSha256: string | null; differences: string[] } }>(VERIFY, { document });
    if (artifactId !== undefined && (document as { root?: { artifactId?: string } }).root?.artifactId !== artifactId) {
      out.stderr(`provgraph: note: ${options.verify} is the package of ${(document as { root?: { artifactId?: string } }).root?.artifactId ?? "another root"}, not of ${artifactId}`);
    }
    if (verifyEvidence.valid) {
      out.stdout(`valid: the store gives the same document (sha256 ${verifyEvidence.documentSha256})`);
      return ExitCode.OK;
    }
    out.stdout(`not valid: the store gives ${verifyEvidence.currentSha256 ? `sha256 ${verifyEvidence.currentSha256}` : "no document"}, the file has sha256 ${verifyEvidence.documentSha256}`);
    for (const difference of verifyEvidence.differences) out.stdout(`  differs at ${difference}`);
    return ExitCode.FINDINGS;
  }
  if (artifactId === undefined) throw new CliError("evidence needs an artifact id (or --verify <file>)", ExitCode.USAGE);
  const pkg = await client.evidence(artifactId, { field: options.field, asOf: options.asOf });
  if (options.out) {
    try {
      fs.writeFileSync(options.out, pkg.text);
    } catch (error) {
      throw new CliError(`cannot write ${options.out}: ${(error as Error).message}`, ExitCode.LOCAL);
    }
  } else {
    out.stdout(pkg.text);
  }
  const violations = (JSON.parse(pkg.text) as { violations?: { rule: string; runId?: string | null }[] }).violations ?? [];
  out.stderr(`${pkg.provable ? "provable" : "not provable"}: sha256 ${pkg.sha256}${violations.length ? `, ${violations.length} violation${violations.length === 1 ? "" : "s"}` : ""}${options.out ? `, written to ${options.out}` : ""}`);
  for (const violation of violations.slice(0, 20)) out.stderr(`  ${violation.rule}${violation.runId ? ` (${violation.runId})` : ""}`);
  return pkg.provable ? ExitCode.OK : ExitCode.FINDINGS;
}

function readDocument(file: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file === "-" ? 0 : file, "utf8");
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (error as Error).message}`, ExitCode.BAD_FILE);
  }
  try {
    const document = JSON.parse(text);
    if (document === null || typeof document !== "object" || Array.isArray(document)) throw new Error("expected a JSON object");
    return document;
  } catch (error) {
    throw new CliError(`${file} is not an evidence package: ${(error as Error).message}`, ExitCode.BAD_FILE);
  }
}

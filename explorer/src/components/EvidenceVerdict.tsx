import { useState } from "react";
import { EvidenceDocument, request } from "../api/client";
import { useQuery } from "../state/use-query";
import { ErrorNotice } from "./ErrorNotice";
import { Loading } from "./Loading";

const RULES: Record<string, string> = {
  CLOSURE_TRUNCATED: "the closure was cut at its budget",
  DETERMINISM_UNKNOWN: "does not say whether it is deterministic",
  MISSING_IMAGE_DIGEST: "names no image digest",
  MISSING_INPUT_VERSION: "used an input without a version",
  NON_DETERMINISTIC: "is flagged non-deterministic",
  UNRECORDED_RUN: "is not recorded here",
};

/** Can this figure be reproduced? Provable, or which run lacks which pin (the evidence package's gate). */
export function EvidenceVerdict({ artifactId, field, asOf }: { artifactId: string; field?: string; asOf?: string }) {
  const [asked, setAsked] = useState(false);
  const key = asked ? `${artifactId}|${field ?? ""}|${asOf ?? ""}` : undefined;
  const result = useQuery(key, (signal) => request(EvidenceDocument, { artifactId, field: field ?? null, asOf: asOf ?? null }, signal));
  if (!asked)
    return (
      <button className="button small" onClick={() => setAsked(true)} data-testid="check-evidence">
        Check evidence
      </button>
    );
  if (result.error) return <ErrorNotice error={result.error} onRetry={result.reload} compact />;
  if (!result.data) return <Loading what="the evidence package" />;
  const evidence = result.data.evidencePackage;
  return (
    <div className={`verdict ${evidence.provable ? "provable" : "unprovable"}`} data-testid="evidence-verdict">
      <div className="verdict-title">{evidence.provable ? "✓ Provable" : "✗ Not provable"}</div>
      <div className="muted">
        {evidence.runs.length} run{evidence.runs.length === 1 ? "" : "s"} behind it · sha256 <code>{evidence.sha256.slice(0, 12)}…</code>
      </div>
      {evidence.violations.length > 0 && (
        <ul className="violations">
          {evidence.violations.map((v, i) => (
            <li key={i}>
              {v.runId ? <code>{v.runId.slice(0, 20)}…</code> : "The package"} {RULES[v.rule] ?? v.rule}
              {v.inputs.length > 0 && <span className="muted"> ({v.inputs.length} input{v.inputs.length === 1 ? "" : "s"})</span>}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

import type { Principal } from "../auth";
import type { PolicySubject, PurposeAccessEntry, PurposeAccessLog } from "../services/compliance";

/**
 * The purpose audit's side of the redaction rule: a request that states a purpose and is let
 * through to a tagged value notes it — who, the purpose, what (a column, an artifact, what a run
 * reported), its tags — once per request and thing; the columns of one artifact a request reads are
 * one entry, each column added as it is read. An event's or an edge's subject (ANY) is noted part by
 * part, each with its own tags. A request stating no purpose reads only what no purpose restricts,
 * and is not in this audit.
 */
export function taggedReadNoter(
  viewer: { principal: Principal; purpose: string | null; requestId: string | null; policyTagsOf: (subject: object) => Promise<readonly string[]> },
  audit: PurposeAccessLog,
): ((subject: object, tags: readonly string[]) => void) | undefined {
  const { principal, purpose, requestId } = viewer;
  if (purpose === null) return undefined;
  const noted = new Set<string>();
  /** This request's COLUMNS entry per artifact, to which the artifact's next columns are added. */
  const columnsRead = new Map<string, PurposeAccessEntry>();
  const access = (what: Pick<PurposeAccessEntry, "kind" | "artifactId" | "field" | "tags" | "columns">): PurposeAccessEntry => ({ principal: principal.name, tokenId: principal.tokenId, purpose, ...what, via: "READ", runId: null, requestId, at: new Date() });
  const note = (subject: PolicySubject, tags: readonly string[]) => {
    if (tags.length === 0) return;
    const what = thingOf(subject);
    if (!what) return;
    const key = `${what.kind}\u0000${what.artifactId}\u0000${what.field}`;
    if (noted.has(key)) return;
    noted.add(key);
    if (what.kind !== "COLUMN") return audit.note([access({ kind: what.kind, artifactId: what.artifactId, field: what.field, tags, columns: null })]);
    const entry = columnsRead.get(what.artifactId);
    // Once the entry is being written, the artifact's next columns go to a new one.
    if (entry && audit.addColumn(entry, what.field, tags)) return;
    const fresh = access({ kind: "COLUMNS", artifactId: what.artifactId, field: "", tags: [], columns: new Map([[what.field, tags]]) });
    columnsRead.set(what.artifactId, fresh);
    audit.note([fresh]);
  };
  return (subject, tags) => {
    const s = subject as PolicySubject;
    if (s.kind !== "ANY") return note(s, tags);
    // Each part with its own tags (cached by the request's lookup); the audit is never the reader's failure.
    for (const part of s.of) void viewer.policyTagsOf(part).then((own) => note(part, own), () => undefined);
  };
}

/** What a subject is in the audit: a column (noted with the request's other columns of its artifact), an artifact, a run's report, a dataset. */
function thingOf(subject: PolicySubject): { kind: "COLUMN" | "ARTIFACT" | "RUN" | "DATASET"; artifactId: string; field: string } | null {
  switch (subject.kind) {
    case "COLUMN":
      return { kind: "COLUMN", artifactId: subject.artifactId, field: subject.field };
    case "ARTIFACT":
      return { kind: "ARTIFACT", artifactId: subject.artifactId, field: "" };
    case "RUN":
      return { kind: "RUN", artifactId: "", field: subject.runId };
    case "DATASET":
      return { kind: "DATASET", artifactId: `${subject.namespace}/${subject.name}`, field: "" };
    default:
      return null;
  }
}

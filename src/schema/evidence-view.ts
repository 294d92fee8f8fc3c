import { type Viewer, withheld } from "../auth/pothos";
import { type DocumentSigner, type ServedEvidenceContent, type ServedEvidencePackage, servedEvidencePackage } from "../services/compliance";
import { runSubject } from "./policy-subjects";

/** The runs (of `runIds`) whose params the redaction rule withholds from the viewer (by the run's policy subject, as Execution.params). */
export async function hiddenRuns(viewer: Viewer, runIds: readonly string[]): Promise<string[]> {
  const hidden = await withheld(viewer, runIds.map((runId) => runSubject({ runId })));
  return runIds.filter((_, i) => hidden[i]);
}

/**
 * An evidence package as the viewer may see it (evidencePackage, GET /api/v1/evidence alike): built
 * off the event loop by `build` (a heavy read) with nothing withheld; when the viewer may not see
 * the params of some of its runs, built again without them — so the document, its sha256 and its
 * signature (made here, on the thread that holds the key) are those of what the viewer gets.
 */
export async function evidenceAsViewed(viewer: Viewer, build: (withheld: string[]) => Promise<ServedEvidenceContent>, signer: DocumentSigner): Promise<ServedEvidencePackage> {
  let content = await build([]);
  const hidden = await hiddenRuns(viewer, content.runIds);
  if (hidden.length > 0) content = await build(hidden);
  return servedEvidencePackage(content, signer);
}

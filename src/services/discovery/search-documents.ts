import { openLineageJobNamespace } from "../job-names";
import { mapInTurns, type SearchableWrite } from "../recording";
import { columnKey, datasetKey, type DocumentKind, jobTarget, pipelineTarget, tagTarget } from "./search-kinds";
import { foldText, indexedText } from "./search-text";

/**
 * One entry of the search index: what it is found by (its label, at every rank; its keywords, a
 * second name; a guarded text, found only by a viewer who may read it) and what it opens.
 *   ARTIFACT   label: its original name; keywords: its type (dataset versions are found as their dataset)
 *   DATASET    label: namespace/name; keywords: its name
 *   COLUMN     label: namespace/name.field; keywords: the field; guarded: its description
 *   JOB        label: the operation's or OpenLineage job's name; keywords: the job's namespace
 *   PIPELINE   label: its name
 *   POLICY_TAG label: the tag
 */
export interface SearchDocument {
  kind: DocumentKind;
  /** Unique within its kind: an id, or a name (./search-kinds.ts). */
  key: string;
  label: string;
  keywords: string | null;
  guarded: string | null;
  /** The policy subject whose tags guard `guarded`: the column whose description it is. */
  guard: { artifactId: string; field: string } | null;
  /**
   * What a hit opens (./search-kinds.ts). A dataset's and a column's are resolved when they are found
   * (the newest version, the newest version that has the column); stored is a version that has it.
   */
  target: string;
  /** A dataset's, a column's and an OpenLineage job's namespace (listings page through them by it). */
  namespace: string | null;
  detail: string | null;
}

/**
 * Texts are indexed up to a length: labels and keywords (compared whole, EXACT and PREFIX) in their
 * first 512 characters, which keeps every index entry under PostgreSQL's btree limit; the texts
 * searched for words and substrings in their first 2,000.
 */
export const COMPARED_LENGTH = 512;
export const SEARCHED_LENGTH = 2_000;

/** The first `count` code points (what SQL's substr() and left() count). */
export function leadingCharacters(text: string, count: number): string {
  if (text.length <= count) return text;
  let end = 0;
  for (let n = 0; n < count && end < text.length; n++) end += text.codePointAt(end)! > 0xffff ? 2 : 1;
  return text.slice(0, end);
}

/** How a document's texts are stored: folded for comparison, marked for the trigram index. */
export function comparedText(text: string): string {
  return foldText(leadingCharacters(text, COMPARED_LENGTH));
}
export function searchedText(text: string): string {
  return indexedText(leadingCharacters(text, SEARCHED_LENGTH));
}

/** The dataset an artifact is a version of, for the columns a unit noted without it. */
export type DatasetOf = (artifactId: string) => { namespace: string; name: string } | null;

/**
 * The documents a unit's writes give, one per (kind, key): an artifact that is a dataset version
 * gives its dataset's, a column its dataset column's (the last description a unit reported wins).
 */
export async function documentsOf(writes: readonly SearchableWrite[], datasetOf: DatasetOf): Promise<SearchDocument[]> {
  const documents = new Map<string, SearchDocument>();
  const add = (document: SearchDocument) => {
    const id = `${document.kind}\u0000${document.key}`;
    const known = documents.get(id);
    // A later write of the same column brings its description only when it has one.
    if (known && document.guarded === null) return;
    documents.set(id, known ? { ...known, guarded: document.guarded, guard: document.guard } : document);
  };
  // A big run's 20,000 artifacts, one document each: in turns (mapInTurns), like the statements that write them.
  await mapInTurns(writes, (write) => {
    switch (write.kind) {
      case "ARTIFACT":
        if (write.dataset) add(datasetDocument(write.dataset.namespace, write.dataset.name, write.id));
        else add({ kind: "ARTIFACT", key: write.id, label: write.originalName, keywords: write.artifactType, guarded: null, guard: null, target: write.id, namespace: null, detail: write.artifactType });
        break;
      case "COLUMN": {
        const dataset = datasetOf(write.artifactId);
        if (dataset) add(columnDocument(dataset.namespace, dataset.name, write.field, write.artifactId, write.description));
        break;
      }
      case "OPERATION": {
        const namespace = openLineageJobNamespace(write.version);
        add({
          kind: "JOB",
          key: write.id,
          label: write.name,
          keywords: namespace,
          guarded: null,
          guard: null,
          target: namespace === null ? write.id : jobTarget(namespace, write.name),
          namespace,
          detail: namespace === null ? `${write.operationKind.toLowerCase()} operation, version ${write.version}` : `OpenLineage job in ${namespace}`,
        });
        break;
      }
      case "PIPELINE":
        add({ kind: "PIPELINE", key: write.name, label: write.name, keywords: null, guarded: null, guard: null, target: pipelineTarget(write.name), namespace: null, detail: "pipeline" });
        break;
      case "POLICY_TAG":
        add({ kind: "POLICY_TAG", key: write.tag, label: write.tag, keywords: null, guarded: null, guard: null, target: tagTarget(write.tag), namespace: null, detail: "policy tag" });
        break;
    }
  });
  return [...documents.values()];
}

export function datasetDocument(namespace: string, name: string, versionId: string): SearchDocument {
  return { kind: "DATASET", key: datasetKey(namespace, name), label: `${namespace}/${name}`, keywords: name, guarded: null, guard: null, target: versionId, namespace, detail: `dataset in ${namespace}` };
}

export function columnDocument(namespace: string, name: string, field: string, versionId: string, description: string | null): SearchDocument {
  return {
    kind: "COLUMN",
    key: columnKey(namespace, name, field),
    label: `${namespace}/${name}.${field}`,
    keywords: field,
    guarded: description === null ? null : leadingCharacters(description, SEARCHED_LENGTH),
    guard: description === null ? null : { artifactId: versionId, field },
    target: versionId,
    namespace,
    detail: `column of ${namespace}/${name}`,
  };
}

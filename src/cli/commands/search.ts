import { ApiClient, type RemoteOptions } from "../api-client";
import { CliError, ExitCode } from "../exit-codes";
import type { Output } from "../output";
import { formatTable } from "../table";

export interface SearchOptions extends RemoteOptions {
  kind?: string[];
  first: number;
  json: boolean;
}

interface SearchHit {
  kind: string;
  id: string;
  label: string;
  detail: string | null;
  rank: string;
}

/** The search API's kinds (SearchKind), as the command takes them: lower case, `-` or `_`. */
const KINDS = ["ARTIFACT", "DATASET", "COLUMN", "JOB", "PIPELINE", "RUN", "POLICY_TAG"] as const;

const SEARCH = `query Search($query: String!, $kinds: [SearchKind!], $first: Int) {
  search(query: $query, kinds: $kinds, first: $first) {
    totalCount
    edges { node { kind id label detail rank } }
  }
}`;

/** `provgraph search <text>`: artifacts, datasets, columns, jobs, pipelines, runs and policy tags whose names match, best first. */
export async function search(text: string, options: SearchOptions, out: Output): Promise<number> {
  const client = new ApiClient(options);
  const kinds = options.kind?.flatMap((kind) => kind.split(",")).map((kind) => kind.trim().toUpperCase().replace(/-/g, "_")).filter(Boolean);
  // refused before anything is sent: a usage error, not the server's variable-coercion message
  const unknown = kinds?.find((kind) => !(KINDS as readonly string[]).includes(kind));
  if (unknown) throw new CliError(`--kind '${unknown.toLowerCase()}' is not one of ${KINDS.map((kind) => kind.toLowerCase()).join(", ")}`, ExitCode.USAGE);
  const { search } = await client.graphql<{ search: { totalCount: number | null; edges: { node: SearchHit }[] } }>(SEARCH, { query: text, kinds: kinds?.length ? kinds : null, first: options.first });
  const hits = search.edges.map((edge) => edge.node);
  if (options.json) {
    out.stdout(JSON.stringify({ totalCount: search.totalCount, hits }, null, 2));
    return ExitCode.OK;
  }
  if (hits.length === 0) {
    out.stdout(`nothing matches '${text}'`);
    return ExitCode.OK;
  }
  out.stdout(formatTable(["KIND", "ID", "LABEL", "DETAIL"], hits.map((hit) => [hit.kind, hit.id, hit.label, hit.detail ?? ""])));
  if (search.totalCount !== null && search.totalCount > hits.length) out.stderr(`${hits.length} of ${search.totalCount} matches shown (--first)`);
  return ExitCode.OK;
}

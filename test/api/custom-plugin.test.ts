import { type App, buildApp } from "../../src/app";
import { loadConfig } from "../../src/config";
import { configReferenceLineage, explicitLineage, stemLineageInference } from "../../plugins/lineage-inference";
import { lineageValidation } from "../../plugins/lineage-validation";
import type { CapturePlugin, LineageMapping } from "../../plugins/types";
import { createTestDatabaseUrl } from "../support/test-database";
import type { TestApp } from "../support/test-app";
import { draft, edgesByName, recordExecution, recordOk, registerOperation } from "../support/recording";

/**
 * A user's own inference plugin: outputs whose metadata says `{"derivedFrom": "<input name>"}`
 * derive from that input. It sits before stem matching, so it wins where it applies.
 */
const metadataLineage: CapturePlugin = {
  name: "metadata-lineage",
  stage: "capture",
  capture(draft, { alreadyMapped }) {
    return draft.outputs.flatMap((output): LineageMapping[] => {
      const from = (output.metadata as { derivedFrom?: string } | null)?.derivedFrom;
      const input = draft.inputs.find((i) => i.originalName === from);
      if (alreadyMapped.has(output.originalName) || !input) return [];
      return [{ output: output.originalName, sources: [{ input: input.id }], kind: "INDEPENDENT", capturedBy: "metadata-lineage" }];
    });
  },
};

describe("a custom inference plugin added to the plugin list", () => {
  let t: TestApp;
  let app: App;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const database = await createTestDatabaseUrl();
    drop = database.drop;
    app = await buildApp(loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: "silent" }), {
      plugins: [explicitLineage, metadataLineage, stemLineageInference, configReferenceLineage, lineageValidation],
    });
    t = {
      app,
      gql: async (query, variables) => (await app.yoga.fetch("http://provgraph.test/graphql", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query, variables }) })).json() as never,
      close: async () => undefined,
    };
    await registerOperation(t, { name: "gen", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "raw", artifactType: "csv", inferLineageFrom: { inputs: [] } }] });
    await registerOperation(t, { name: "rename", version: "1", kind: "CREATOR", inputs: [{ role: "data", artifactType: "csv" }], outputs: [{ role: "out", artifactType: "csv", inferLineageFrom: { inputs: ["data"] } }] });
  });
  afterAll(async () => {
    await app.stop();
    await drop();
  });

  test("maps outputs stem matching cannot, and leaves the rest to stem matching", async () => {
    const raw = await recordOk(t, { operation: "gen", operationVersion: "1", inputs: [], outputs: [{ role: "raw", artifacts: [draft("alpha.csv"), draft("beta.csv")] }] });
    const run = await recordOk(t, {
      operation: "rename",
      operationVersion: "1",
      inputs: [{ role: "data", artifactIds: Object.values(raw.outputIds) }],
      outputs: [{ role: "out", artifacts: [{ ...draft("totally_new_name.csv"), metadata: { derivedFrom: "beta.csv" } }, draft("alpha_copy.csv")] }],
    });
    expect((await edgesByName(t)).filter((e) => e.runId === run.runId).map((e) => [e.source, e.target])).toEqual([
      ["alpha.csv", "alpha_copy.csv"],
      ["beta.csv", "totally_new_name.csv"],
    ]);
  });

  test("without it, the same request fails completeness", async () => {
    const raw = await recordOk(t, { operation: "gen", operationVersion: "1", inputs: [], outputs: [{ role: "raw", artifacts: [draft("gamma.csv")] }] });
    const result = await recordExecution(t, {
      operation: "rename",
      operationVersion: "1",
      inputs: [{ role: "data", artifactIds: Object.values(raw.outputIds) }],
      outputs: [{ role: "out", artifacts: [{ ...draft("unrelated.csv"), metadata: { derivedFrom: "not-an-input.csv" } }] }],
    });
    expect(result).toMatchObject({ __typename: "LineageCompletenessError", outputs: ["unrelated.csv"], candidates: ["gamma.csv"] });
  });
});

import type { DraftExecution, LineageMapping, ReadPort } from "../../plugins/types";
import { buildEdges } from "../../src/services/recording/build-edges";
import { turnsWhile } from "../support/event-loop-turns";

/**
 * Building a recording's edges lets other work run every few thousand sources — also when one
 * derivation names them all (a join of 20,000 parts), not only between many small ones.
 */
describe("building edges in turns", () => {
  const port = { artifactsByIds: async () => [] } as unknown as ReadPort;

  test("one derivation of 20,000 sources: the loop turns between slices, and every edge is built", async () => {
    const inputs = Array.from({ length: 20_000 }, (_, i) => ({ id: `art_part_${i}`, artifactType: "csv" }));
    const draft = { runId: "run_join", parentRunId: null, inputs, outputs: [{ originalName: "joined.csv", id: "art_joined", artifactType: "csv" }] } as unknown as DraftExecution;
    const mappings: LineageMapping[] = [{ output: "joined.csv", kind: "DERIVATION", sources: inputs.map((input) => ({ input: input.id })) } as unknown as LineageMapping];
    const { turns, result: edges } = await turnsWhile(() => buildEdges(draft, mappings, port));
    expect(edges).toHaveLength(20_000);
    // 40,000 sources resolved and edges made, 2,000 a turn.
    expect(turns).toBeGreaterThanOrEqual(15);
  });
});

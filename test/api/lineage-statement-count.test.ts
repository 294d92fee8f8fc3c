import { artifactIdFor, newRunId, specIdFrom } from "../../src/services/ids";
import { seedArtifactRow, seedOperation } from "../support/seed";
import { createTestApp, type TestApp } from "../support/test-app";

/**
 * Nested lineage reads are batched: a query's SQL statements depend on its shape, not on how
 * many artifacts it reaches. The store: run i consumed x_i (data) and y_i (aux) and produced
 * x_{i+1}, recording x_i + y_i → x_{i+1} as one joint derivation; 300 runs.
 */
describe("SQL statements per lineage query", () => {
  let t: TestApp;
  const RUNS = 300;
  const x = (i: number) => seedArtifactRow(`x_${i}.csv`);
  const y = (i: number) => seedArtifactRow(`y_${i}.json`, "json");

  beforeAll(async () => {
    t = await createTestApp();
    const db = t.app.database.prisma;
    const operationId = await seedOperation(db, "combine");
    const runIds = Array.from({ length: RUNS }, () => newRunId());
    await db.artifact.createMany({ data: [...Array.from({ length: RUNS + 1 }, (_, i) => x(i)), ...Array.from({ length: RUNS }, (_, i) => y(i))] });
    await db.execution.createMany({
      data: runIds.map((runId, i) => ({ runId, specId: specIdFrom(`combine/${i}`), operationId, status: "COMPLETED", agent: `worker-${i % 7}` })),
    });
    await db.executionArtifact.createMany({
      data: runIds.flatMap((runId, i) => [
        { runId, artifactId: x(i).id, direction: "CONSUMED", role: "data", position: 0 },
        { runId, artifactId: y(i).id, direction: "CONSUMED", role: "aux", position: 0 },
        { runId, artifactId: x(i + 1).id, direction: "PRODUCED", role: "result", position: 0 },
      ]),
    });
    await db.provenanceEdge.createMany({
      data: runIds.flatMap((runId, i) =>
        [x(i), y(i)].map((source) => ({
          sourceId: source.id,
          targetId: x(i + 1).id,
          runId,
          kind: "CO_INPUT",
          groupId: `grp_${i}`,
          sourceType: source.artifactType,
          targetType: "csv",
        })),
      ),
    });
  });
  afterAll(() => t.close());

  /**
   * The statements a query runs: the fewest of three runs. The app's counter is process-wide and a
   * background statement (the feed log's prune reads its head every minute) may land in one run —
   * on a loaded machine a 300-artifact read lasts long enough to catch it — but not in all three.
   */
  async function statementsFor(query: string, variables: Record<string, unknown>) {
    let fewest = Number.POSITIVE_INFINITY;
    let data: any;
    for (let run = 0; run < 3; run++) {
      const before = t.app.database.statementCount();
      const res: any = await t.gql(query, variables);
      expect(res.errors).toBeUndefined();
      fewest = Math.min(fewest, t.app.database.statementCount() - before);
      data = res.data;
    }
    return { statements: fewest, data };
  }

  const ARTIFACT_FIELDS = `id originalName
    parents { id artifactType }
    parentEdges { kind source { id } }
    children { id }
    derivations { groupId sources { id originalName } }
    producedBy { runId agent operation { name } inputs { role artifact { id originalName parents { id } } } }`;

  test("a closure of 300 artifacts with parents, producing executions and their inputs costs as many statements as one of 3", async () => {
    const query = `query($id: ID!, $first: Int) { lineage(artifactId: $id, first: $first) { truncated nodes { depth artifact { ${ARTIFACT_FIELDS} } } } }`;
    const three = await statementsFor(query, { id: x(RUNS).id, first: 3 });
    const threeHundred = await statementsFor(query, { id: x(RUNS).id, first: 300 });
    expect(three.data.lineage.nodes).toHaveLength(3);
    expect(threeHundred.data.lineage.nodes).toHaveLength(300);
    const deepest = threeHundred.data.lineage.nodes.filter((node: any) => node.artifact.originalName.startsWith("x_")).at(-1);
    expect(deepest.depth).toBe(150);
    expect(deepest.artifact.producedBy[0].inputs.map((input: any) => input.role)).toEqual(["aux", "data"]);
    expect(deepest.artifact.derivations[0].sources).toHaveLength(2);
    expect(threeHundred.statements).toBe(three.statements);
    expect(threeHundred.statements).toBeLessThanOrEqual(12);
  });

  test("a provenance map page of 300 entries costs no more statements than one of 3", async () => {
    const query = `query($first: Int) { provenanceMap(direction: UPSTREAM, first: $first) { edges { node { relatedIds related { id } artifact { ${ARTIFACT_FIELDS} } } } } }`;
    const three = await statementsFor(query, { first: 3 });
    const threeHundred = await statementsFor(query, { first: 300 });
    expect(three.data.provenanceMap.edges).toHaveLength(3);
    expect(threeHundred.data.provenanceMap.edges).toHaveLength(300);
    // On a 300-entry page most parents are entries of the same page, already in the request's
    // DataLoader cache, so the big page may even skip a read the small one needs.
    expect(threeHundred.statements).toBeLessThanOrEqual(three.statements);
    expect(three.statements).toBeLessThanOrEqual(12);
  });

  test("only ids selected: a closure of 300 is one statement, no artifact reads", async () => {
    const { statements, data } = await statementsFor(
      `query($id: ID!) { lineage(artifactId: $id, first: 600) { root { id } nodes { artifact { id } depth } edges { source { id } target { id } } } }`,
      { id: x(RUNS).id },
    );
    expect(data.lineage.nodes).toHaveLength(600);
    expect(data.lineage.edges).toHaveLength(600);
    expect(statements).toBe(1);
  });

  test("an unknown root is one statement too", async () => {
    const before = t.app.database.statementCount();
    await t.gql(`query($id: ID!) { lineage(artifactId: $id) { nodes { depth } } }`, { id: artifactIdFor("csv", "nope") });
    expect(t.app.database.statementCount() - before).toBe(1);
  });
});

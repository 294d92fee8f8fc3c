import { draft, generator, recordOk, registerOperation, transform } from "../support/recording";
import { createTestApp, type TestApp } from "../support/test-app";
import { testProvider } from "../support/test-database";


const BIG = 20_000;

// Issue 12 acceptance: reads run on a connection of their own, so a long write never stalls them.
describe(`reads are not blocked by a long write (${testProvider})`, () => {
  let t: TestApp;
  let chain: string[];
  let bigInputs: string[];

  beforeAll(async () => {
    t = await createTestApp();
    await registerOperation(t, generator);
    await registerOperation(t, transform);
    // a.csv → a_1.csv → a_1_2.csv → a_1_2_3.csv: a closure to read while the big write runs
    const a = (await recordOk(t, { operation: "generate", operationVersion: "1", inputs: [], outputs: [{ role: "sample", artifacts: [draft("a.csv")] }] })).outputIds["a.csv"];
    chain = [a];
    for (const name of ["a_1.csv", "a_1_2.csv", "a_1_2_3.csv"]) {
      chain.push((await recordOk(t, { operation: "transform", operationVersion: "1", inputs: [{ role: "data", artifactIds: [chain.at(-1)!] }], outputs: [{ role: "result", artifacts: [draft(name)] }] })).outputIds[name]);
    }
    const names = Array.from({ length: 100 }, (_, i) => `big_${i}.csv`);
    bigInputs = Object.values((await recordOk(t, { operation: "generate", operationVersion: "1", inputs: [], outputs: [{ role: "sample", artifacts: names.map(draft) }] })).outputIds);
    // Closures run in a heavy-read thread: started now, as a server starts them when it starts listening.
    await t.app.services.heavyReads.warm();
  });
  afterAll(() => t.close());

  test(`a closure answers while a ${BIG.toLocaleString()}-output recording is in flight, from what was committed before it`, async () => {
    const statementsBefore = t.app.database.statementCount();
    let bigDone = false;
    const big = t
      .gql(`mutation($input: RecordExecutionInput!) { recordExecution(input: $input) { __typename ... on RecordExecutionPayload { edgeCount } ... on Error { code message } } }`, {
        input: {
          operation: "transform",
          operationVersion: "1",
          inputs: [{ role: "data", artifactIds: bigInputs }],
          outputs: [{ role: "result", artifacts: Array.from({ length: BIG }, (_, i) => draft(`big_${i % 100}_out_${i}.csv`)) }],
        },
      })
      .finally(() => (bigDone = true));
    // Wait until the big recording is writing its rows (inside its transaction).
    while (t.app.database.statementCount() - statementsBefore < 30) {
      if (bigDone) throw new Error("the big recording finished before its writes could be observed");
      await new Promise((resolve) => setImmediate(resolve));
    }
    const closure = await t.gql(`query($id: ID!) { lineage(artifactId: $id) { nodes { artifact { originalName } depth } } } `, { id: chain[3] });
    const answeredDuringWrite = !bigDone;
    const artifactsSeen = await t.app.database.reader.artifact.count();

    expect(closure.errors).toBeUndefined();
    expect(closure.data!.lineage.nodes).toEqual([
      { artifact: { originalName: "a_1_2.csv" }, depth: 1 },
      { artifact: { originalName: "a_1.csv" }, depth: 2 },
      { artifact: { originalName: "a.csv" }, depth: 3 },
    ]);
    expect(answeredDuringWrite).toBe(true);
    // The read side saw the store as committed: none of the big recording's outputs yet.
    expect(artifactsSeen).toBe(104);

    const recorded = await big;
    expect(recorded.errors).toBeUndefined();
    expect(recorded.data!.recordExecution).toEqual({ __typename: "RecordExecutionPayload", edgeCount: BIG });
    expect(await t.app.database.reader.artifact.count()).toBe(104 + BIG);
  }, 60_000);
});

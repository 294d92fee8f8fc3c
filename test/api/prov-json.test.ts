import { artifactIdFor, newRunId, type RunId, specIdFrom } from "../../src/services/ids";
import { type SeededGraph, seedGraph } from "../support/lineage-graph";
import { sha256Of } from "../support/content-hash";
import { draft, recordOk, registerOperation } from "../support/recording";
import { seedOperation } from "../support/seed";
import { createTestApp, errorCodes, type TestApp } from "../support/test-app";

/**
 * PROV-JSON export of a known graph:
 *   clean@1 (run r1, agent "alice"): used raw (data), generated cleaned (result)
 *   train@1 (run r2, agent "ci bot/2"): used cleaned (data) and params (config), generated model (result)
 *   raw → cleaned (r1); cleaned + params → model jointly (r2, CO_INPUT)
 */
describe("provJson", () => {
  let t: TestApp;
  let g: SeededGraph;
  let r1: RunId;
  let r2: RunId;
  const started = new Date("2026-05-01T10:00:00.000Z");
  const ended = new Date("2026-05-01T10:05:00.000Z");
  const recorded = new Date("2026-05-01T10:06:00.000Z");
  const created = new Date("2026-04-01T00:00:00.000Z");

  beforeAll(async () => {
    t = await createTestApp();
    const db = t.app.database.prisma;
    r1 = newRunId();
    r2 = newRunId();
    g = await seedGraph(db, "prov", { raw: "csv", cleaned: "csv", params: "config", model: "model" }, [
      { from: "raw", to: "cleaned", run: r1, group: "r" },
      { from: "cleaned", to: "model", run: r2, kind: "CO_INPUT", group: "cp" },
      { from: "params", to: "model", run: r2, kind: "CO_INPUT", group: "cp" },
    ]);
    await db.artifact.updateMany({ data: { createdAt: created } });
    await db.artifact.update({ where: { id: g.id("model") }, data: { datasetNamespace: "s3://models", datasetName: "churn", datasetVersion: "7" } });
    const clean = await seedOperation(db, "clean");
    const train = await seedOperation(db, "train");
    await db.execution.create({
      data: {
        runId: r1,
        specId: specIdFrom("clean/1"),
        operationId: clean,
        status: "COMPLETED",
        agent: "alice",
        startedAt: started,
        endedAt: ended,
        recordedAt: recorded,
        pipeline: "churn",
        step: 1,
        links: {
          create: [
            { artifactId: g.id("raw"), direction: "CONSUMED", role: "data", position: 0 },
            { artifactId: g.id("cleaned"), direction: "PRODUCED", role: "result", position: 0 },
          ],
        },
      },
    });
    await db.execution.create({
      data: {
        runId: r2,
        specId: specIdFrom("train/1"),
        operationId: train,
        status: "FAILED",
        agent: "ci bot/2",
        recordedAt: recorded,
        links: {
          create: [
            { artifactId: g.id("cleaned"), direction: "CONSUMED", role: "data", position: 0 },
            { artifactId: g.id("params"), direction: "CONSUMED", role: "config", position: 0 },
            { artifactId: g.id("model"), direction: "PRODUCED", role: "result", position: 0 },
          ],
        },
      },
    });
  });
  afterAll(() => t.close());

  const PROV = `query($id: ID!, $direction: LineageDirection, $maxDepth: Int, $first: Int) {
    provJson(artifactId: $id, direction: $direction, maxDepth: $maxDepth, first: $first) }`;
  const q = (name: string) => `provgraph:${g.id(name)}`;
  const entity = (name: string, type: string) => ({
    "prov:label": `prov/${name}`,
    "provgraph:artifactType": type,
    "provgraph:contentHash": sha256Of(`${type}/prov/${name}`),
    "provgraph:createdAt": { $: created.toISOString(), type: "xsd:dateTime" },
  });

  test("the backward closure of the model, field by field", async () => {
    const res = await t.gql(PROV, { id: g.id("model") });
    expect(res.errors).toBeUndefined();
    const doc = res.data!.provJson;
    expect(doc.prefix).toEqual({ prov: "http://www.w3.org/ns/prov#", xsd: "http://www.w3.org/2001/XMLSchema#", provgraph: "urn:provgraph:" });
    expect(doc.entity).toEqual({
      [q("model")]: {
        ...entity("model", "model"),
        "provgraph:datasetNamespace": "s3://models",
        "provgraph:datasetName": "churn",
        "provgraph:datasetVersion": "7",
        "provgraph:closureRoot": true,
        "provgraph:closureDirection": "UPSTREAM",
      },
      ...Object.fromEntries(
        [
          ["cleaned", "csv"],
          ["params", "config"],
        ]
          .sort(([a], [b]) => (g.id(a) < g.id(b) ? -1 : 1))
          .map(([name, type]) => [q(name), { ...entity(name, type), "provgraph:depth": 1 }]),
      ),
      [q("raw")]: { ...entity("raw", "csv"), "provgraph:depth": 2 },
    });
    // entities are listed root first, then nearest first
    expect(Object.keys(doc.entity)[0]).toBe(q("model"));
    expect(Object.keys(doc.entity)[3]).toBe(q("raw"));
    expect(doc.activity).toEqual({
      [`provgraph:${r1}`]: {
        "prov:startTime": started.toISOString(),
        "prov:endTime": ended.toISOString(),
        "prov:label": "clean@1",
        "provgraph:operation": "clean",
        "provgraph:operationVersion": "1",
        "provgraph:specId": specIdFrom("clean/1"),
        "provgraph:status": "COMPLETED",
        "provgraph:recordedAt": { $: recorded.toISOString(), type: "xsd:dateTime" },
        "provgraph:pipeline": "churn",
        "provgraph:step": 1,
      },
      [`provgraph:${r2}`]: {
        "prov:label": "train@1",
        "provgraph:operation": "train",
        "provgraph:operationVersion": "1",
        "provgraph:specId": specIdFrom("train/1"),
        "provgraph:status": "FAILED",
        "provgraph:recordedAt": { $: recorded.toISOString(), type: "xsd:dateTime" },
      },
    });
    expect(doc.agent).toEqual({
      "provgraph:agent_alice": { "prov:label": "alice" },
      "provgraph:agent_ci%20bot%2F2": { "prov:label": "ci bot/2" },
    });
    expect(doc.wasAssociatedWith).toEqual({
      "_:assoc1": { "prov:activity": `provgraph:${r1}`, "prov:agent": "provgraph:agent_alice" },
      "_:assoc2": { "prov:activity": `provgraph:${r2}`, "prov:agent": "provgraph:agent_ci%20bot%2F2" },
    });
    // Each generated entity is attributed to the agent of the activity that generated it.
    expect(doc.wasAttributedTo).toEqual({
      "_:attr1": { "prov:entity": q("cleaned"), "prov:agent": "provgraph:agent_alice" },
      "_:attr2": { "prov:entity": q("model"), "prov:agent": "provgraph:agent_ci%20bot%2F2" },
    });
    expect(doc.used).toEqual({
      "_:use1": { "prov:activity": `provgraph:${r1}`, "prov:entity": q("raw"), "prov:role": "data" },
      "_:use2": { "prov:activity": `provgraph:${r2}`, "prov:entity": q("params"), "prov:role": "config" },
      "_:use3": { "prov:activity": `provgraph:${r2}`, "prov:entity": q("cleaned"), "prov:role": "data" },
    });
    expect(doc.wasGeneratedBy).toEqual({
      "_:gen1": { "prov:entity": q("cleaned"), "prov:activity": `provgraph:${r1}`, "prov:role": "result" },
      "_:gen2": { "prov:entity": q("model"), "prov:activity": `provgraph:${r2}`, "prov:role": "result" },
    });
    expect(doc.wasDerivedFrom).toEqual({
      "_:derivation1": {
        "prov:generatedEntity": q("cleaned"),
        "prov:usedEntity": q("raw"),
        "prov:activity": `provgraph:${r1}`,
        "provgraph:kind": "INDEPENDENT",
        "provgraph:groupId": "grp_prov_r",
        "provgraph:stepBoundary": true,
      },
      "_:derivation2": {
        "prov:generatedEntity": q("model"),
        "prov:usedEntity": q("cleaned"),
        "prov:activity": `provgraph:${r2}`,
        "provgraph:kind": "CO_INPUT",
        "provgraph:groupId": "grp_prov_cp",
        "provgraph:stepBoundary": true,
      },
      "_:derivation3": {
        "prov:generatedEntity": q("model"),
        "prov:usedEntity": q("params"),
        "prov:activity": `provgraph:${r2}`,
        "provgraph:kind": "CO_INPUT",
        "provgraph:groupId": "grp_prov_cp",
        "provgraph:stepBoundary": true,
      },
    });
    expect(Object.keys(doc).sort()).toEqual(["activity", "agent", "entity", "prefix", "used", "wasAssociatedWith", "wasAttributedTo", "wasDerivedFrom", "wasGeneratedBy"]);
  });

  test("every identifier a relation names is declared or a provgraph id, and the document is plain JSON", async () => {
    const doc = (await t.gql(PROV, { id: g.id("model") })).data!.provJson;
    expect(JSON.parse(JSON.stringify(doc))).toEqual(doc);
    const declared = new Set([...Object.keys(doc.entity), ...Object.keys(doc.activity), ...Object.keys(doc.agent)]);
    for (const section of ["used", "wasGeneratedBy", "wasDerivedFrom", "wasAssociatedWith", "wasAttributedTo"]) {
      for (const [id, relation] of Object.entries<Record<string, unknown>>(doc[section])) {
        expect(id).toMatch(/^_:[a-z]+\d+$/);
        for (const key of ["prov:activity", "prov:entity", "prov:agent", "prov:generatedEntity", "prov:usedEntity"]) {
          if (key in relation) expect(declared.has(relation[key] as string)).toBe(true);
        }
      }
    }
  });

  test("a forward export one hop deep: raw, what it became, and the runs that touched them", async () => {
    const doc = (await t.gql(PROV, { id: g.id("raw"), direction: "DOWNSTREAM", maxDepth: 1 })).data!.provJson;
    expect(Object.keys(doc.entity)).toEqual([q("raw"), q("cleaned")]);
    expect(doc.entity[q("raw")]["provgraph:closureDirection"]).toBe("DOWNSTREAM");
    expect(Object.keys(doc.activity)).toEqual([`provgraph:${r1}`, `provgraph:${r2}`]);
    expect(Object.values(doc.used)).toEqual([
      { "prov:activity": `provgraph:${r1}`, "prov:entity": q("raw"), "prov:role": "data" },
      { "prov:activity": `provgraph:${r2}`, "prov:entity": q("cleaned"), "prov:role": "data" },
    ]);
    expect(Object.values(doc.wasGeneratedBy)).toEqual([{ "prov:entity": q("cleaned"), "prov:activity": `provgraph:${r1}`, "prov:role": "result" }]);
    expect(Object.values(doc.wasDerivedFrom).map((d: any) => [d["prov:usedEntity"], d["prov:generatedEntity"]])).toEqual([[q("raw"), q("cleaned")]]);
    // Agents are keyed by their name alone: the same keys as in the backward export, so documents merge.
    expect(doc.agent).toEqual({ "provgraph:agent_alice": { "prov:label": "alice" }, "provgraph:agent_ci%20bot%2F2": { "prov:label": "ci bot/2" } });
    expect(doc.wasAttributedTo).toEqual({ "_:attr1": { "prov:entity": q("cleaned"), "prov:agent": "provgraph:agent_alice" } });
  });

  test("a cut export says so on its root entity", async () => {
    const doc = (await t.gql(PROV, { id: g.id("model"), first: 1 })).data!.provJson;
    expect(Object.keys(doc.entity)).toHaveLength(2);
    expect(doc.entity[q("model")]["provgraph:closureTruncated"]).toBe(true);
  });

  test("bad input", async () => {
    expect(errorCodes(await t.gql(PROV, { id: artifactIdFor("csv", "missing") }))).toEqual(["NOT_FOUND"]);
    expect(errorCodes(await t.gql(PROV, { id: g.id("model"), maxDepth: -2 }))).toEqual(["INVALID_ARGUMENT"]);
    expect(errorCodes(await t.gql(PROV, { id: g.id("model"), first: 1_000_000 }))).toEqual(["PAGE_SIZE"]);
  });
});

describe("provJson of recorded executions: attribution", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    await registerOperation(t, { name: "gen", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "out", artifactType: "csv", inferLineageFrom: { inputs: [] } }] });
  });
  afterAll(() => t.close());

  test("an entity generated three times by two agents is attributed once to each", async () => {
    const record = (agent: string) => recordOk(t, { operation: "gen", operationVersion: "1", agent, inputs: [], outputs: [{ role: "out", artifacts: [draft("shared.csv")] }] });
    const first = await record("alice");
    const second = await record("alice");
    const third = await record("bob");
    const id = first.outputIds["shared.csv"];
    const doc = (await t.gql(`query($id: ID!) { provJson(artifactId: $id) }`, { id })).data!.provJson;
    expect(Object.values(doc.wasGeneratedBy)).toEqual(
      [first, second, third].map((run) => ({ "prov:entity": `provgraph:${id}`, "prov:activity": `provgraph:${run.runId}`, "prov:role": "out" })),
    );
    expect(doc.wasAttributedTo).toEqual({
      "_:attr1": { "prov:entity": `provgraph:${id}`, "prov:agent": "provgraph:agent_alice" },
      "_:attr2": { "prov:entity": `provgraph:${id}`, "prov:agent": "provgraph:agent_bob" },
    });
    expect(doc.agent).toEqual({ "provgraph:agent_alice": { "prov:label": "alice" }, "provgraph:agent_bob": { "prov:label": "bob" } });
  });
});

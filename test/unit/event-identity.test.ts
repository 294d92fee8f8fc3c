import { identifyEvent, identifyEventInTurns } from "../../src/openlineage/event-facts";
import { runEvent } from "../support/openlineage";

/**
 * An event's identity (sha256 of its canonical JSON) is what makes a re-sent event a duplicate: a big
 * event, identified in slices between turns of the event loop, must get the very key a small one would.
 */
describe("an OpenLineage event's identity", () => {
  const wide = (order: "forward" | "backward") => {
    const names = Array.from({ length: 20_000 }, (_, i) => `c_${i}`);
    if (order === "backward") names.reverse();
    const fields = Object.fromEntries(names.map((name) => [name, { inputFields: [{ namespace: "ns", name: "in", field: "id" }] }]));
    return runEvent({
      runId: "3f5e1d2c-9a8b-4c7d-8e6f-5a4b3c2d1e0f",
      inputs: [{ namespace: "ns", name: "in" }],
      outputs: [{ namespace: "ns", name: "out", facets: { columnLineage: { fields } } }],
    });
  };

  test("identified in turns, a wide event (20,000 column-lineage fields) gets the key identifyEvent gives, whatever its key order", async () => {
    let turns = 0;
    const slicer = () => {
      turns += 1;
      return new Promise<void>((resolve) => setImmediate(resolve));
    };
    const event = wide("forward");
    const inTurns = await identifyEventInTurns(event, JSON.stringify(event), undefined, slicer);
    expect(turns).toBeGreaterThan(10);
    expect(inTurns.eventKey).toBe(identifyEvent(event).eventKey);
    const reordered = wide("backward");
    expect((await identifyEventInTurns(reordered, JSON.stringify(reordered), undefined, () => undefined)).eventKey).toBe(inTurns.eventKey);
  });

  test("data-subject keys are hashed before the key is taken, in turns as at once", async () => {
    const event = { ...wide("forward"), inputs: [{ namespace: "ns", name: "in", facets: { provgraph_dataSubjects: { _producer: "p", _schemaURL: "https://example.com/s.json", keys: ["alice@example.com"] } } }] };
    const hashing = (key: string) => ({ hash: `hashed-${key.length}`, legacy: [] });
    const atOnce = identifyEvent(event, JSON.stringify(event), hashing);
    const inTurns = await identifyEventInTurns(event, JSON.stringify(event), hashing, () => undefined);
    expect(inTurns.sent === atOnce.sent).toBe(true);
    expect(inTurns.eventKey).toBe(atOnce.eventKey);
    expect([inTurns.sent.includes("alice@example.com"), inTurns.sent.includes("hashed-17")]).toEqual([false, true]);
  });
});

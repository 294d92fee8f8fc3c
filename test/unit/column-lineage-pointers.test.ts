import { identifyEvent, parseIdentifiedEvent } from "../../src/openlineage/event-facts";

/**
 * What a refusal of a column-lineage facet names (src/openlineage/event-facts.ts): the JSON pointer of
 * the offending value (RFC 6901: "~" as "~0", "/" as "~1") and why — made only when one is refused.
 */
describe("column lineage refusals name the offending value", () => {
  const eventWith = (columnLineage: unknown) => ({
    eventType: "COMPLETE",
    eventTime: "2026-03-11T02:14:07.318Z",
    producer: "p",
    schemaURL: "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
    run: { runId: "3f5e1d2c-9a8b-4c7d-8e6f-5a4b3c2d1e0f", facets: {} },
    job: { namespace: "ns", name: "job" },
    inputs: [],
    outputs: [{ namespace: "ns", name: "out", facets: { columnLineage } }],
  });
  const refusal = (columnLineage: unknown) => {
    try {
      parseIdentifiedEvent(identifyEvent(eventWith(columnLineage)));
    } catch (error) {
      return { pointer: (error as { details: { pointer: string } }).details.pointer, reason: (error as { details: { reason: string } }).details.reason };
    }
    return null;
  };
  const input = (extra: Record<string, unknown> = {}) => ({ namespace: "ns", name: "in", field: "id", ...extra });

  test.each([
    ["a field name with a control character", { fields: { "a/b~\u0001": { inputFields: [input()] } } }, { pointer: "/outputs/0/facets/columnLineage/fields/a~1b~0\u0001", reason: "contains the control character U+0001 at index 4" }],
    ["an input's empty name", { fields: { ok: { inputFields: [input(), input({ name: " " })] } } }, { pointer: "/outputs/0/facets/columnLineage/fields/ok/inputFields/1/name", reason: "must not be empty" }],
    ["an input's namespace", { fields: { ok: { inputFields: [input({ namespace: "n\u0000" })] } } }, { pointer: "/outputs/0/facets/columnLineage/fields/ok/inputFields/0/namespace", reason: "contains the control character U+0000 at index 1" }],
    ["an input's field", { fields: { "x/y": { inputFields: [input({ field: "f\u007f" })] } } }, { pointer: "/outputs/0/facets/columnLineage/fields/x~1y/inputFields/0/field", reason: "contains the control character U+007F at index 1" }],
    ["a transformation's type", { fields: { ok: { inputFields: [input({ transformations: [{ type: "DIRECT" }, { type: "SIDEWAYS" }] })] } } }, { pointer: "/outputs/0/facets/columnLineage/fields/ok/inputFields/0/transformations/1/type", reason: 'must be DIRECT or INDIRECT, got "SIDEWAYS"' }],
    ["a dataset-level dependency's name", { fields: {}, dataset: [input(), input({ name: "\ud800" })] }, { pointer: "/outputs/0/facets/columnLineage/dataset/1/name", reason: "contains a lone surrogate (U+D800) at index 0, which is not valid Unicode" }],
  ])("%s", (_, facet, expected) => {
    expect(refusal(facet)).toEqual(expected);
  });

  test("a wide facet is read field by field, in order", () => {
    const fields = Object.fromEntries(Array.from({ length: 3 }, (_, i) => [`c_${i}`, { inputFields: [input()] }]));
    const parsed = parseIdentifiedEvent(identifyEvent(eventWith({ fields })));
    expect(parsed.kind === "RUN" && parsed.outputs[0].columnLineage).toEqual({
      fields: ["c_0", "c_1", "c_2"].map((field) => ({ field, inputs: [{ namespace: "ns", name: "in", field: "id", transformations: [{ type: "DIRECT", subtype: null, description: null, masking: false }] }] })),
      dataset: [],
    });
  });
});

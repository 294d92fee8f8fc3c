import { LineageIntegrityError } from "../../plugins/errors";
import { configReferenceLineage, stemLineageInference } from "../../plugins/lineage-inference";
import { lineageValidation } from "../../plugins/lineage-validation";
import { pairByPosition } from "../../plugins/pairing";
import type { DraftExecution, ReadPort } from "../../plugins/types";

/** The plugins run against an in-memory read port: no database needed. */
const memoryPort = (artifacts: { id: string; artifactType: string; originalName: string }[]): ReadPort => ({
  artifactsByIds: async (ids) => artifacts.filter((a) => ids.includes(a.id)),
  ancestorsOf: async () => [],
});

/** The draft with its inputs paired by position, as the recorder pairs a ZIP operation's inputs. */
const zipped = (draft: Omit<DraftExecution, "pairing">): DraftExecution => ({
  ...draft,
  pairing: pairByPosition(draft.operation.inputs.map((role) => draft.inputs.filter((input) => input.role === role.role))),
});

const zipDraft: DraftExecution = zipped({
  runId: "run_x",
  specId: "spec_x",
  operation: {
    name: "compare",
    version: "1",
    kind: "CREATOR",
    groupBy: "ZIP",
    inputs: [
      { role: "left", artifactType: "csv", required: true, inferLineageFrom: null },
      { role: "right", artifactType: "csv", required: true, inferLineageFrom: null },
    ],
    outputs: [{ role: "diff", artifactType: "csv", required: true, inferLineageFrom: { from: "INPUTS", roles: ["left"] } }],
  },
  status: "COMPLETED",
  params: null,
  inputs: [
    { id: "art_l0", role: "left", index: 0, artifactType: "csv", originalName: "s_0.csv" },
    { id: "art_l1", role: "left", index: 1, artifactType: "csv", originalName: "s_1.csv" },
    { id: "art_r0", role: "right", index: 0, artifactType: "csv", originalName: "ref_a.csv" },
    { id: "art_r1", role: "right", index: 1, artifactType: "csv", originalName: "ref_b.csv" },
  ],
  configInputs: [],
  outputs: [{ id: "art_d1", role: "diff", index: 0, originalName: "s_1_diff.csv", contentHash: "h", artifactType: "csv", metadata: { model: { weights: [{ $artifact: "art_cfg" }] } } }],
  explicitLineage: [],
  pipeline: null,
  step: null,
  parentRunId: null,
});

test("stem inference with ZIP: the match at index 1 of the primary role pairs with index 1 of every other role", async () => {
  const mappings = await stemLineageInference.capture(zipDraft, { alreadyMapped: new Set(), port: memoryPort([]) });
  expect(mappings).toEqual([{ output: "s_1_diff.csv", sources: [{ input: "art_l1" }, { input: "art_r1" }], kind: "CO_INPUT", capturedBy: "stem-lineage-inference" }]);
});

test("stem inference with ZIP searches the primary role only: a same-stem partner in another role is no rival", async () => {
  const sameStems: DraftExecution = zipped({
    ...zipDraft,
    // Both roles named: the first, left, is the primary one.
    operation: { ...zipDraft.operation, outputs: [{ role: "diff", artifactType: "csv", required: true, inferLineageFrom: { from: "INPUTS", roles: ["left", "right"] } }] },
    inputs: [
      { id: "art_l0", role: "left", index: 0, artifactType: "csv", originalName: "s1.csv" },
      { id: "art_l1", role: "left", index: 1, artifactType: "csv", originalName: "s2.csv" },
      { id: "art_r0", role: "right", index: 0, artifactType: "csv", originalName: "s1.json" },
      { id: "art_r1", role: "right", index: 1, artifactType: "csv", originalName: "s2.json" },
    ],
    outputs: [
      { id: "art_d0", role: "diff", index: 0, originalName: "s1_diff.csv", contentHash: "h0", artifactType: "csv", metadata: null },
      { id: "art_d1", role: "diff", index: 1, originalName: "s2_diff.csv", contentHash: "h1", artifactType: "csv", metadata: null },
    ],
  });
  expect(await stemLineageInference.capture(sameStems, { alreadyMapped: new Set(), port: memoryPort([]) })).toEqual([
    { output: "s1_diff.csv", sources: [{ input: "art_l0" }, { input: "art_r0" }], kind: "CO_INPUT", capturedBy: "stem-lineage-inference" },
    { output: "s2_diff.csv", sources: [{ input: "art_l1" }, { input: "art_r1" }], kind: "CO_INPUT", capturedBy: "stem-lineage-inference" },
  ]);
});

test("stem inference leaves outputs an earlier plugin mapped", async () => {
  expect(await stemLineageInference.capture(zipDraft, { alreadyMapped: new Set(["s_1_diff.csv"]), port: memoryPort([]) })).toEqual([]);
});

test("a config reference in an output's metadata becomes a CONFIG_REFERENCE mapping into that output", async () => {
  expect(await configReferenceLineage.capture(zipDraft, { alreadyMapped: new Set(), port: memoryPort([]) })).toEqual([
    { output: "s_1_diff.csv", sources: [{ stored: "art_cfg" }], kind: "CONFIG_REFERENCE", capturedBy: "config-reference-lineage" },
  ]);
});

test("integrity validation asks the port whether a config reference exists", async () => {
  const mappings = [
    { output: "s_1_diff.csv", sources: [{ input: "art_l1" }], kind: "INDEPENDENT" as const, capturedBy: "test" },
    { output: "s_1_diff.csv", sources: [{ stored: "art_cfg" }], kind: "CONFIG_REFERENCE" as const, capturedBy: "test" },
  ];
  const ok = memoryPort([{ id: "art_cfg", artifactType: "yaml", originalName: "cfg.yaml" }]);
  await expect(lineageValidation.validate(zipDraft, { mappings, edges: [], port: ok })).resolves.toBeUndefined();
  await expect(lineageValidation.validate(zipDraft, { mappings, edges: [], port: memoryPort([]) })).rejects.toThrow(LineageIntegrityError);
});

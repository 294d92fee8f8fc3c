import { artifactIdFor } from "../../src/services/ids";
import { sha256Of } from "./content-hash";

/**
 * The acceptance composite of issue 9: 3 steps with a ZIP co-input join in the middle.
 *
 *   in.a → clean → join.left ┐
 *   in.b ───────── join.right ┴ join → report → out.figure, out.metric (metric derives from figure: output-to-output)
 */

/** Drafts whose content differs per run label, so each run records artifacts of its own. */
export const drafts = (label: string, names: string[]) => names.map((originalName) => ({ originalName, contentHash: sha256Of(`${label}/${originalName}`) }));
export const idOf = (label: string, type: string, name: string) => artifactIdFor(type, sha256Of(`${label}/${name}`));

export const OPERATIONS = [
  { name: "source", version: "1", kind: "CREATOR", inputs: [], outputs: [{ role: "raw", artifactType: "csv", inferLineageFrom: { inputs: [] } }] },
  { name: "clean", version: "1", kind: "CREATOR", inputs: [{ role: "data", artifactType: "csv" }], outputs: [{ role: "cleaned", artifactType: "csv", inferLineageFrom: { inputs: ["data"] } }] },
  {
    name: "join",
    version: "1",
    kind: "CREATOR",
    groupBy: "ZIP",
    inputs: [
      { role: "left", artifactType: "csv" },
      { role: "right", artifactType: "csv" },
    ],
    outputs: [{ role: "joined", artifactType: "csv", inferLineageFrom: { inputs: ["left"] } }],
  },
  {
    name: "report",
    version: "1",
    kind: "CREATOR",
    inputs: [{ role: "data", artifactType: "csv" }],
    outputs: [
      { role: "figure", artifactType: "png", inferLineageFrom: { inputs: ["data"] } },
      { role: "metric", artifactType: "json", inferLineageFrom: { outputs: ["figure"] } },
    ],
  },
];

export const pipelineComposite = (name: string, intermediates: string) => ({
  name,
  version: "1",
  inputs: [
    { role: "a", artifactType: "csv" },
    { role: "b", artifactType: "csv" },
  ],
  outputs: [
    { role: "figure", artifactType: "png" },
    { role: "metric", artifactType: "json" },
  ],
  steps: [
    { name: "clean", operation: "clean", operationVersion: "1" },
    { name: "join", operation: "join", operationVersion: "1" },
    { name: "report", operation: "report", operationVersion: "1" },
  ],
  wires: [
    { from: "in.a", to: "clean.data" },
    { from: "clean.cleaned", to: "join.left" },
    { from: "in.b", to: "join.right" },
    { from: "join.joined", to: "report.data" },
    { from: "report.figure", to: "out.figure" },
    { from: "report.metric", to: "out.metric" },
  ],
  intermediates,
});

/** What the three steps report, each artifact's content labelled (one label per run: distinct artifacts). */
export const stepsOf = (label: string) => [
  { step: "clean", outputs: [{ role: "cleaned", artifacts: drafts(label, ["A0_clean.csv", "A1_clean.csv"]) }] },
  { step: "join", outputs: [{ role: "joined", artifacts: drafts(label, ["A0_clean_joined.csv", "A1_clean_joined.csv"]) }] },
  {
    step: "report",
    outputs: [
      { role: "figure", artifacts: drafts(label, ["A0_clean_joined_fig.png", "A1_clean_joined_fig.png"]) },
      { role: "metric", artifacts: drafts(label, ["A0_clean_joined_fig_metric.json", "A1_clean_joined_fig_metric.json"]) },
    ],
  },
];


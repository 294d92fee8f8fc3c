import { DEFAULT_VIOLATION_SAMPLE, type IntegrityReport, type InvariantReport, MAX_VIOLATION_SAMPLE, type Violation } from "../services/integrity";
import { InvalidArgumentError } from "../services/errors";
import { builder } from "./builder";

/** The store checked against its invariants: admin only (it reads every table). */

const ViolationObject = builder.objectRef<Violation>("IntegrityViolation").implement({
  description: "One row that breaks an invariant.",
  fields: (t) => ({
    subject: t.exposeString("subject", { description: "What breaks it: a runId, an artifact id, 'edge <id>', 'feed <sequence>', '<pipeline>#<step>'." }),
    detail: t.exposeString("detail", { description: "What is wrong with it." }),
  }),
});

const InvariantReportObject = builder.objectRef<InvariantReport>("InvariantReport").implement({
  description: "One invariant: how many rows were checked, how many break it, and the first of those (by subject).",
  fields: (t) => ({
    name: t.exposeString("name", { description: "Stable kebab-case name, e.g. execution-rows, group-ids, openlineage-run-state." }),
    description: t.exposeString("description", { description: "One sentence: what the invariant says holds." }),
    checked: t.exposeInt("checked", { description: "Rows (executions, edges, links, runs, feed entries …) the check looked at." }),
    violations: t.exposeInt("violations", { description: "How many break the invariant (all of them, not only the sample)." }),
    sample: t.field({ type: [ViolationObject], resolve: (report) => report.sample, description: "At most `sample` of the violations." }),
  }),
});

const IntegrityReportObject = builder.objectRef<IntegrityReport>("IntegrityReport").implement({
  description: "The store checked against every invariant of provgraph's data.",
  fields: (t) => ({
    ok: t.exposeBoolean("ok", { description: "True when no invariant has a violation." }),
    checkedAt: t.expose("checkedAt", { type: "DateTime", description: "When the check started." }),
    invariants: t.field({ type: [InvariantReportObject], description: "One report per invariant, in the order they are checked (one after the other).", resolve: (report) => report.invariants }),
  }),
});

builder.queryFields((t) => ({
  integrityReport: t.field({
    type: IntegrityReportObject,
    authScopes: { admin: true },
    description: `Checks the stored provenance against its invariants (read-only; it reads every table, so it takes a while on a big store). Needs the admin scope.`,
    args: { sample: t.arg.int({ defaultValue: DEFAULT_VIOLATION_SAMPLE, description: `Violations listed per invariant, 0–${MAX_VIOLATION_SAMPLE}.` }) },
    resolve: (_root, args, ctx) => {
      const sample = args.sample ?? DEFAULT_VIOLATION_SAMPLE;
      if (sample < 0 || sample > MAX_VIOLATION_SAMPLE) throw new InvalidArgumentError("sample", `must be between 0 and ${MAX_VIOLATION_SAMPLE}, got ${sample}`);
      return ctx.services.integrity.check({ sample });
    },
  }),
}));

import { builder } from "../builder";
import { CLOSURE_DESCRIPTIONS, closureQueryFrom, LineageDirectionEnum } from "./lineage";

builder.queryField("provJson", (t) =>
  t.field({
    type: "JSON",
    description:
      "The closure of an artifact as a W3C PROV-JSON document: artifacts as entities, the executions that used or produced them as activities " +
      "(with used / wasGeneratedBy), their agents (wasAssociatedWith), and the derivation edges as wasDerivedFrom. Ids keep their provgraph " +
      "spelling under the `provgraph:` prefix. A cut closure marks its root entity with `provgraph:closureTruncated: true`.",
    args: {
      artifactId: t.arg.id({ required: true }),
      direction: t.arg({ type: LineageDirectionEnum, defaultValue: "UPSTREAM" }),
      maxDepth: t.arg.int({ description: CLOSURE_DESCRIPTIONS.maxDepth }),
      artifactTypes: t.arg.stringList({ description: CLOSURE_DESCRIPTIONS.artifactTypes }),
      stepBoundaryOnly: t.arg.boolean({ defaultValue: false, description: CLOSURE_DESCRIPTIONS.stepBoundaryOnly }),
      asOf: t.arg({ type: "DateTime", description: CLOSURE_DESCRIPTIONS.asOf }),
      first: t.arg.int({ description: CLOSURE_DESCRIPTIONS.first }),
    },
    resolve: (_root, args, ctx) => ctx.services.lineage.provJson.export(closureQueryFrom(args, true)),
  }),
);

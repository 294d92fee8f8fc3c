import { builder } from "./builder";
import { heavyRead } from "./heavy-read";
import { closureArgs, closureQueryFrom } from "./lineage";

builder.queryField("provJson", (t) =>
  t.field({
    type: "JSON",
    description:
      "The closure of an artifact as a W3C PROV-JSON document: artifacts as entities, the executions that used or produced them as activities " +
      "(with used / wasGeneratedBy), their agents (keyed by name: wasAssociatedWith the activities, wasAttributedTo by what those generated), " +
      "and the derivation edges as wasDerivedFrom. Ids keep their provgraph " +
      "spelling under the `provgraph:` prefix. A cut closure marks its root entity with `provgraph:closureTruncated: true`.",
    args: closureArgs(t.arg),
    resolve: (_root, args, ctx) => heavyRead(ctx, "provJson", closureQueryFrom(args, true), { shared: true }),
  }),
);

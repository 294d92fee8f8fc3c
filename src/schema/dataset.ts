import { assertPageSize, DEFAULT_PAGE_SIZE } from "../services/pagination";
import { NotFoundError } from "../services/errors";
import type { DatasetRef } from "../services/records";
import { ArtifactRef, DatasetRefObject } from "./artifact";
import { builder } from "./builder";
import { ColumnObject } from "./column-lineage";

/**
 * Datasets across their versions (OpenLineage namespace + name): every version is an immutable
 * artifact; `dataset(namespace, name)` reaches them all.
 */

builder.objectFields(DatasetRefObject, (t) => ({
  versions: t.field({
    type: [ArtifactRef],
    description: "Every recorded version of this dataset, newest first (by when provgraph recorded it). `first`: default 50, at most 500.",
    args: { first: t.arg.int({ description: "How many versions to return, newest first: 50 by default, at most 500 (above, or negative, is PAGE_SIZE)." }) },
    resolve: async (dataset, args, ctx) => {
      assertPageSize("first", args.first);
      const [versions] = await ctx.services.columns.datasets.versionsOf([dataset], args.first ?? DEFAULT_PAGE_SIZE);
      return versions;
    },
  }),
  latestVersion: t.field({
    type: ArtifactRef,
    nullable: true,
    description: "The newest recorded version.",
    resolve: (dataset, _args, ctx) => ctx.services.columns.datasets.version(dataset.namespace, dataset.name),
  }),
  columns: t.field({
    type: [ColumnObject],
    description: "The columns of this version (`version`), or of the newest version when this is the dataset itself.",
    resolve: async (dataset, _args, ctx) => {
      const version = await ctx.services.columns.datasets.version(dataset.namespace, dataset.name, dataset.version);
      return version ? (await ctx.services.columns.columns.columnsOf([version.id]))[0] : [];
    },
  }),
}));

builder.queryField("dataset", (t) =>
  t.field({
    type: DatasetRefObject,
    description: "A dataset (OpenLineage namespace and name) across its versions; its `version` is null. One provgraph has no version of is NOT_FOUND.",
    args: {
      namespace: t.arg.string({ required: true, description: "The dataset's namespace, exactly as recorded." }),
      name: t.arg.string({ required: true, description: "The dataset's name within the namespace, exactly as recorded." }),
    },
    resolve: async (_root, args, ctx): Promise<DatasetRef> => {
      if (!(await ctx.services.columns.datasets.version(args.namespace, args.name))) throw new NotFoundError("dataset", `${args.namespace}/${args.name}`, "name");
      return { namespace: args.namespace, name: args.name, version: null };
    },
  }),
);

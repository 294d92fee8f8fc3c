import type { Db } from "../../db/client";
import type { ColumnServices } from "../columns";
import { InvalidArgumentError, InvalidIdError, NotFoundError } from "../errors";
import { type ArtifactId, isIdOfKind } from "../ids";
import type { DatasetColumnTarget, NodeTarget, TagScope } from "./tag-records";

/**
 * A column named by the caller: a version's artifact id, or a dataset (its newest version, or
 * `version`), and the field.
 */
export interface ColumnSelector {
  artifactId?: string | null;
  namespace?: string | null;
  name?: string | null;
  version?: string | null;
  field: string;
}

/** A node named by the caller: a column (with `field`), or an artifact (without). */
export type NodeSelector = Omit<ColumnSelector, "field"> & { field?: string | null };

/** Resolves what a caller names to a stored column or artifact: NOT_FOUND naming the argument otherwise. */
export class TagTargets {
  constructor(
    private readonly db: Db,
    private readonly columns: ColumnServices,
  ) {}

  async column(selector: ColumnSelector): Promise<NodeTarget & { kind: "COLUMN" }> {
    const artifactId = await this.version(selector);
    const [columns] = await this.columns.columns.columnsOf([artifactId]);
    if (!columns.some((c) => c.field === selector.field)) throw new NotFoundError("column", `${selector.field} of ${artifactId}`, "field");
    return { kind: "COLUMN", artifactId, field: selector.field };
  }

  /**
   * The column a tag is given to, in its scope: DATASET (the default for a version of a dataset) —
   * that column of the dataset, every version of it; VERSION — that column of the version named
   * (the newest without `version`). An artifact that is no dataset's version has only VERSION.
   */
  async scopedColumn(selector: ColumnSelector, scope: TagScope | null | undefined): Promise<(NodeTarget & { kind: "COLUMN" }) | DatasetColumnTarget> {
    const column = await this.column(selector);
    if (scope === "VERSION") return column;
    const artifact = await this.db.artifact.findUnique({ where: { id: column.artifactId }, select: { datasetNamespace: true, datasetName: true } });
    if (artifact?.datasetNamespace == null || artifact.datasetName == null) {
      if (scope === "DATASET") throw new InvalidArgumentError("scope", `${column.artifactId} is not a version of a dataset: its column can be tagged with scope VERSION only`);
      return column;
    }
    return { kind: "DATASET_COLUMN", namespace: artifact.datasetNamespace, name: artifact.datasetName, field: column.field };
  }

  async node(selector: NodeSelector): Promise<NodeTarget> {
    if (selector.field != null) return this.column({ ...selector, field: selector.field });
    return { kind: "ARTIFACT", artifactId: await this.version(selector) };
  }

  async artifact(artifactId: string, field = "artifactId"): Promise<NodeTarget & { kind: "ARTIFACT" }> {
    if (!isIdOfKind(artifactId, "artifact")) throw new InvalidIdError(field, artifactId, "artifact (art_…)");
    if (!(await this.db.artifact.findUnique({ where: { id: artifactId }, select: { id: true } }))) throw new NotFoundError("artifact", artifactId, field);
    return { kind: "ARTIFACT", artifactId: artifactId as ArtifactId };
  }

  /** The artifact a selector names: by id, or a dataset's version. */
  private async version(selector: Omit<ColumnSelector, "field">): Promise<ArtifactId> {
    const byId = selector.artifactId != null;
    const byName = selector.namespace != null || selector.name != null;
    if (byId === byName) throw new InvalidArgumentError(byId ? "namespace" : "artifactId", "name the dataset version either by artifactId or by namespace and name (and version), not both or neither");
    if (byId) {
      if (selector.version != null) throw new InvalidArgumentError("version", "goes with namespace and name, not with artifactId");
      return (await this.artifact(selector.artifactId!)).artifactId;
    }
    if (selector.namespace == null || selector.name == null) throw new InvalidArgumentError(selector.namespace == null ? "namespace" : "name", "namespace and name go together");
    const version = await this.columns.datasets.version(selector.namespace, selector.name, selector.version);
    if (version) return version.id;
    if (selector.version != null && (await this.columns.datasets.version(selector.namespace, selector.name))) throw new NotFoundError("dataset version", `${selector.namespace}/${selector.name}@${selector.version}`, "version");
    throw new NotFoundError("dataset", `${selector.namespace}/${selector.name}`, "name");
  }
}

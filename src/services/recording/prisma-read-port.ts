import type { ReadPort } from "../../../plugins/types";
import type { DbTx } from "../../db/client";

/** The ReadPort plugins get, reading through the recording's own transaction. */
export function prismaReadPort(tx: DbTx): ReadPort {
  return {
    artifactsByIds: (ids) =>
      ids.length === 0
        ? Promise.resolve([])
        : tx.artifact.findMany({ where: { id: { in: [...ids] } }, select: { id: true, artifactType: true, originalName: true } }),
  };
}

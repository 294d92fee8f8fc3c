import type { Database } from "../db/client";
import { ArtifactReader } from "./artifact-reader";
import { ExecutionReader } from "./execution-reader";
import { OperationReader } from "./operation-reader";

/** The core, as the GraphQL layer sees it: one object per concern, all over one database. */
export interface Services {
  database: Database;
  artifacts: ArtifactReader;
  executions: ExecutionReader;
  operations: OperationReader;
}

export function createServices(database: Database): Services {
  const db = database.prisma;
  return {
    database,
    artifacts: new ArtifactReader(db),
    executions: new ExecutionReader(db),
    operations: new OperationReader(db),
  };
}

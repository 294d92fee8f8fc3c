import type { DbTx } from "../db/client";
import type { AuthServices } from "./auth-services";
import type { Principal } from "./principal";

/** What auth needs of the GraphQL context (src/schema/context.ts extends it). */
export interface AuthContext {
  /** Who this request acts as: authenticated before the request is parsed (HTTP) or at connection (graphql-ws). */
  principal: Principal;
  auth: AuthServices;
  requestId: string;
  transport: "http" | "ws";
  /**
   * Set while an audited mutation runs: a service that writes in one transaction may call it inside
   * that transaction with the ids it wrote, and the successful mutation's audit entry then commits
   * with them (no second commit). Otherwise the entry is written after the mutation.
   */
  auditInTransaction?: (tx: DbTx, ...targets: string[]) => Promise<void>;
  /**
   * The policy tags guarding a subject (a column, an artifact, an event's runs), batched per request:
   * what the redaction plugin compares with the principal's clearances. Absent: guarded fields redact.
   */
  policyTagsOf?: (subject: object) => Promise<readonly string[]>;
  /**
   * The purpose this request states (X-Provgraph-Purpose; over graphql-ws connectionParams.purpose),
   * one its token carries; null: none. Tags that declare purposes let a value through only under one of them.
   */
  purpose?: string | null;
  /** For each of the tags that declare the purposes their data may serve, those purposes (batched per request). Absent: every tag withholds (fail closed). */
  tagPurposesOf?: (tags: readonly string[]) => Promise<ReadonlyMap<string, readonly string[]>>;
  /** Notes a tagged value the redaction rule let through (the purpose audit: who, under which purpose, what). */
  noteTaggedRead?: (subject: object, tags: readonly string[]) => void;
}

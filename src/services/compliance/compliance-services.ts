import type { Database } from "../../db/client";
import type { ColumnServices } from "../columns";
import type { CommitPath, UnitWrites } from "../recording";
import type { DbTx } from "../../db/client";
import { Catalogue } from "./catalogue";
import { ColumnDetailsReader } from "./column-details";
import { Erasure } from "./erasure";
import { EvidenceReader } from "./evidence";
import { PolicyTagReader } from "./policy-tag-reader";
import { PolicyTagService } from "./policy-tag-service";
import { SubjectKeys } from "./subject-keys";
import { SubjectLedger } from "./subject-ledger";
import { TagFlow } from "./tag-flow";
import { TagTargets } from "./tag-targets";

/** What the commit path needs of compliance at the end of every unit, made before the commit path exists. */
export interface ComplianceEngines {
  tagFlow: TagFlow;
  subjectKeys: SubjectKeys;
  subjects: SubjectLedger;
}

export function createComplianceEngines(database: Database, options: { erasureSecret: string | null }): ComplianceEngines {
  const subjectKeys = new SubjectKeys(options.erasureSecret);
  return { tagFlow: new TagFlow(database.provider), subjectKeys, subjects: new SubjectLedger(subjectKeys) };
}

/** The suppression check of the subjects a unit declares, first (a refusal before any derivation work). */
export async function settleUnitSubjects(engines: ComplianceEngines, tx: DbTx, writes: UnitWrites): Promise<void> {
  await engines.subjects.settle(tx, writes.subjects);
}

/** Compliance as the GraphQL layer sees it: policy tags (write and read), evidence packages, erasure. */
export interface ComplianceServices extends ComplianceEngines {
  targets: TagTargets;
  tags: PolicyTagService;
  tagReader: PolicyTagReader;
  columnDetails: ColumnDetailsReader;
  evidence: EvidenceReader;
  catalogue: Catalogue;
  erasure: Erasure;
}

export function createComplianceServices(engines: ComplianceEngines, database: Database, commits: CommitPath, columns: ColumnServices): ComplianceServices {
  // Queries read the read client; what a mutation checks or plans from reads the primary's commits.
  const primary = database.primaryReader;
  const catalogue = new Catalogue(primary, commits);
  return {
    ...engines,
    targets: new TagTargets(primary, columns),
    tags: new PolicyTagService(commits, engines.tagFlow),
    tagReader: new PolicyTagReader(database.reader),
    columnDetails: new ColumnDetailsReader(database.reader),
    evidence: new EvidenceReader(database, columns),
    catalogue,
    erasure: new Erasure(database, commits, catalogue, engines.subjectKeys),
  };
}

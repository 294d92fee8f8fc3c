import type { Database } from "../../db/client";
import type { ColumnServices } from "../columns";
import type { CommitPath, UnitWrites } from "../recording";
import type { DbTx } from "../../db/client";
import { Catalogue } from "./catalogue";
import { ColumnDetailsReader } from "./column-details";
import { DocumentSigner, type SigningKeys } from "./document-signer";
import { Erasure } from "./erasure";
import { EvidenceReader } from "./evidence";
import { PolicyTagReader } from "./policy-tag-reader";
import { PolicyTagService } from "./policy-tag-service";
import { PurposeAccessLog } from "./purpose-access";
import { settleRunPurposes } from "./run-purposes";
import { SubjectKeys, type SubjectKeyRules } from "./subject-keys";
import { SubjectLedger } from "./subject-ledger";
import { TagFlow } from "./tag-flow";
import { TagPurposes } from "./tag-purposes";
import { TagTargets } from "./tag-targets";

/** What the commit path needs of compliance at the end of every unit, made before the commit path exists. */
export interface ComplianceEngines {
  tagFlow: TagFlow;
  subjectKeys: SubjectKeys;
  subjects: SubjectLedger;
}

export function createComplianceEngines(database: Database, options: { erasureSecret: string | null; subjectKeyRules?: SubjectKeyRules }): ComplianceEngines {
  const subjectKeys = new SubjectKeys(options.erasureSecret, options.subjectKeyRules);
  return { tagFlow: new TagFlow(database.provider), subjectKeys, subjects: new SubjectLedger(subjectKeys) };
}

/** The suppression check of the subjects a unit declares, first (a refusal before any derivation work). */
export async function settleUnitSubjects(engines: ComplianceEngines, tx: DbTx, writes: UnitWrites): Promise<void> {
  await engines.subjects.settle(tx, writes.subjects);
}

/** Runs that declared a purpose: checked against the tags on what they read, after the unit's tags have flowed (a refusal fails the unit). */
export async function settleUnitRunPurposes(tx: DbTx, writes: UnitWrites): Promise<void> {
  await settleRunPurposes(tx, writes.runPurposes);
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
  /** Signs what the server files (evidence packages, erasure plans) and checks signatures offline. */
  signer: DocumentSigner;
  /** The purposes tags' data may serve (declared by admins). */
  purposes: TagPurposes;
  /** Tagged values read under a purpose: who, which purpose, what. */
  purposeAudit: PurposeAccessLog;
}

export function createComplianceServices(engines: ComplianceEngines, database: Database, commits: CommitPath, columns: ColumnServices, signingKeys: SigningKeys = { current: null, previous: [] }): ComplianceServices {
  // Queries read the read client; what a mutation checks or plans from reads the primary's commits.
  const primary = database.primaryReader;
  const catalogue = new Catalogue(primary, commits);
  const signer = new DocumentSigner(signingKeys);
  return {
    ...engines,
    targets: new TagTargets(primary, columns),
    tags: new PolicyTagService(commits, engines.tagFlow),
    tagReader: new PolicyTagReader(database.reader, database.provider, database),
    columnDetails: new ColumnDetailsReader(database.reader),
    evidence: new EvidenceReader(database, columns, signer),
    catalogue,
    erasure: new Erasure(database, commits, catalogue, engines.subjectKeys, signer),
    signer,
    purposes: new TagPurposes(commits, primary),
    purposeAudit: new PurposeAccessLog(commits, primary),
  };
}

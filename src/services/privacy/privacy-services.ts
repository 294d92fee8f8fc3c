import type { Database, DbTx } from "../../db/client";
import type { CommitPath, UnitWrites } from "../recording";
import { PrivacyBudgets } from "./budgets";
import { PrivacyLedger } from "./ledger";

/** What the commit path needs of the privacy engine at the end of every unit, made before the commit path exists. */
export interface PrivacyEngines {
  ledger: PrivacyLedger;
}

export function createPrivacyEngines(database: Database): PrivacyEngines {
  return { ledger: new PrivacyLedger(database.provider) };
}

/** The releases a unit recorded debit their protected datasets' budgets, before it commits (a refusal fails the unit). */
export async function settleUnitReleases(engines: PrivacyEngines, tx: DbTx, writes: UnitWrites): Promise<void> {
  await engines.ledger.settle(tx, writes.privacyReleases);
}

/** The privacy engine as the GraphQL layer sees it: budgets (admin) and their ledgers. */
export interface PrivacyServices extends PrivacyEngines {
  budgets: PrivacyBudgets;
}

export function createPrivacyServices(engines: PrivacyEngines, database: Database, commits: CommitPath): PrivacyServices {
  return { ...engines, budgets: new PrivacyBudgets(commits, database.reader) };
}

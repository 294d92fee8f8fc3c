import { type Invariant, sqlInvariant } from "../integrity";

/**
 * Every budget's spend is its ledger's (basic sequential composition: the sums of the entries' ε and
 * δ), no budget has spent more than its totals, and every ledger entry names a recorded release.
 */
export const privacyLedger: Invariant = sqlInvariant({
  name: "privacy-ledger",
  description: "every privacy budget's spent ε and δ are the sums of its ledger entries and within its totals, and every entry is a recorded release's",
  checked: `SELECT COUNT(*) AS n FROM "PrivacyBudget"`,
  violations:
    `SELECT CAST(b.namespace AS TEXT) || '/' || CAST(b.name AS TEXT) AS "subject", ` +
    `'spent ε ' || CAST(b."epsilonSpent" AS TEXT) || ', δ ' || CAST(b."deltaSpent" AS TEXT) || ' (units of 1e-12); its ledger sums ε ' || CAST(COALESCE(l.e, 0) AS TEXT) || ', δ ' || CAST(COALESCE(l.d, 0) AS TEXT) AS "detail" ` +
    `FROM "PrivacyBudget" b LEFT JOIN (SELECT namespace, name, SUM(epsilon) AS e, SUM(delta) AS d FROM "PrivacyLedgerEntry" GROUP BY namespace, name) l ON l.namespace = b.namespace AND l.name = b.name ` +
    `WHERE b."epsilonSpent" <> COALESCE(l.e, 0) OR b."deltaSpent" <> COALESCE(l.d, 0) ` +
    `UNION ALL SELECT CAST(b.namespace AS TEXT) || '/' || CAST(b.name AS TEXT), 'spent more than its totals' FROM "PrivacyBudget" b ` +
    `WHERE b."epsilonSpent" > b."epsilonTotal" OR (b."deltaTotal" IS NOT NULL AND b."deltaSpent" > b."deltaTotal") ` +
    `UNION ALL SELECT CAST(e."runId" AS TEXT), 'debited from ' || CAST(e.namespace AS TEXT) || '/' || CAST(e.name AS TEXT) || ' but no release of it is recorded' FROM "PrivacyLedgerEntry" e ` +
    `WHERE NOT EXISTS (SELECT 1 FROM "PrivacyRelease" r WHERE r."runId" = e."runId")`,
});

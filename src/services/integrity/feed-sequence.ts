import { sqlInvariant, text } from "./sql-invariant";

/**
 * The feed log hands out sequences in commit order (src/services/feeds/feed-log.ts): each is unique
 * and positive, and an entry logged later never has a smaller sequence than one logged before it.
 */
export const feedSequence = sqlInvariant({
  name: "feed-sequence",
  description: "Feed log sequences are unique and increase with the time each entry was logged.",
  checked: `SELECT COUNT(*) AS "n" FROM "FeedEvent"`,
  violations: [
    `SELECT 'feed ' || ${text(`f."sequence"`)} AS "subject", 'sequence is not positive' AS "detail" FROM "FeedEvent" f WHERE f."sequence" < 1`,
    `SELECT 'feed ' || ${text(`f."sequence"`)} AS "subject", 'sequence is used ' || ${text(`COUNT(*)`)} || ' times' AS "detail" FROM "FeedEvent" f GROUP BY f."sequence" HAVING COUNT(*) > 1`,
    `SELECT 'feed ' || ${text(`o."sequence"`)} AS "subject", 'logged before the entry ahead of it (sequence ' || ${text(`o."previous"`)} || ')' AS "detail"
       FROM (SELECT f."sequence", f."createdAt", LAG(f."sequence") OVER (ORDER BY f."sequence") AS "previous", LAG(f."createdAt") OVER (ORDER BY f."sequence") AS "previousAt" FROM "FeedEvent" f) o
      WHERE o."previousAt" > o."createdAt"`,
  ].join(" UNION ALL "),
});

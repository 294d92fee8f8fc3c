import path from "node:path";
import { openDatabase } from "../src/db/client";
import { searchPage } from "../src/services/discovery";
import { quantile, round } from "./interleave";
import { pgSearchStore, sqliteSearchStore } from "./search-store";

/**
 * Search's slowest queries among those a user would type, on the benchmark's 1M store (npx tsx
 * bench/search-sweep.ts [--pg <url>] [--queries N] [--seed S]): queries cut from the store's own names —
 * a whole name, its start, a piece of it, one of its words, two neighbouring words, a word and the start
 * of another — each run twice in this process through the search core, the faster kept. Prints the
 * distribution and the slowest queries, to find what the fixed mix of the search bench does not ask.
 */
async function main() {
  const argument = (name: string) => (process.argv.indexOf(name) >= 0 ? process.argv[process.argv.indexOf(name) + 1] : undefined);
  const pgUrl = argument("--pg");
  const count = Number(argument("--queries") ?? 300);
  const store = pgUrl ? await pgSearchStore(pgUrl, console.log) : await sqliteSearchStore(path.join(__dirname, ".data"), console.log);
  const database = openDatabase(store.url);
  // A small linear congruential generator: the same queries for the same seed.
  let state = Number(argument("--seed") ?? 7);
  const random = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)];
  const { rows } = await database.readRows(`SELECT "label" FROM "SearchEntry" WHERE "id" % 997 = 3 LIMIT 2000`, []);
  const labels = rows.map(([label]) => String(label));
  const queries = new Set<string>();
  while (queries.size < count) {
    const label = pick(labels);
    const words = label.split(/[^A-Za-z0-9]+/).filter(Boolean);
    const at = Math.floor(random() * label.length);
    const cuts = [
      () => label,
      () => label.slice(0, 2 + Math.floor(random() * (label.length - 2))),
      () => label.slice(at, at + 3 + Math.floor(random() * 12)),
      () => pick(words) ?? "",
      () => (words.length > 1 ? words.slice(Math.min(words.length - 2, Math.floor(random() * words.length))).slice(0, 2).join(" ") : ""),
      () => (words.length > 1 ? `${pick(words)} ${pick(words).slice(0, 1 + Math.floor(random() * 5))}` : ""),
    ];
    const query = pick(cuts)().trim();
    if (query.length > 0) queries.add(query);
  }
  const timed: { query: string; ms: number }[] = [];
  for (const query of queries) {
    let best = Infinity;
    for (let run = 0; run < 2 && (run === 0 || best < 300); run++) {
      const start = performance.now();
      await searchPage(database, { query, first: 20, canRead: async (subjects) => subjects.map(() => true) });
      best = Math.min(best, performance.now() - start);
    }
    timed.push({ query, ms: best });
  }
  const sorted = timed.map(({ ms }) => ms).sort((a, b) => a - b);
  console.log(`${store.url.startsWith("file:") ? "sqlite" : "postgres"}, ${timed.length} queries: p50 ${round(quantile(sorted, 0.5), 1)} ms, p90 ${round(quantile(sorted, 0.9), 1)} ms, p99 ${round(quantile(sorted, 0.99), 1)} ms, max ${round(sorted[sorted.length - 1], 1)} ms`);
  for (const { query, ms } of timed.sort((a, b) => b.ms - a.ms).slice(0, 15)) console.log(`${round(ms, 1).toString().padStart(8)} ms  ${JSON.stringify(query)}`);
  await database.close();
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);

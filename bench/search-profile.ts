import { openDatabase } from "../src/db/client";
import { searchPage, type SearchReader } from "../src/services/discovery";
import { quantile, round } from "./interleave";
import { AUTOCOMPLETE_MIX, SEARCH_MIX } from "./search-bench";
import { pgSearchStore, sqliteSearchStore } from "./search-store";
import path from "node:path";

/**
 * Where a search request's time goes, on the benchmark's 1M store (npx tsx bench/search-profile.ts
 * [--pg <url>]): the search core run in this process through the server's own read connection, each
 * statement timed on its own, the rest of the core's time being its JavaScript (planning, checking
 * candidates, building hits). The HTTP and GraphQL share is what the search bench measures minus this.
 */
async function main() {
  const rounds = 5;
  const pgAt = process.argv.indexOf("--pg");
  const store = pgAt >= 0 ? await pgSearchStore(process.argv[pgAt + 1], console.log) : await sqliteSearchStore(path.join(__dirname, ".data"), console.log);
  const database = openDatabase(store.url);
  const all = { autocomplete: AUTOCOMPLETE_MIX.map((q) => [q, 10] as const), search: SEARCH_MIX.map((q) => [q, 20] as const) };
  for (const [name, mix] of Object.entries(all)) {
    const totals: number[] = [];
    const sqls: number[] = [];
    const counts: number[] = [];
    const worst: { q: string; total: number; statements: { ms: number; sql: string }[] }[] = [];
    for (let round_ = 0; round_ < rounds; round_++) {
      for (const [q, first] of mix) {
        const statements: { ms: number; sql: string }[] = [];
        const reader: SearchReader = {
          provider: database.provider,
          readRows: async (sql, params) => {
            const start = performance.now();
            const rows = await database.readRows(sql, params);
            statements.push({ ms: performance.now() - start, sql });
            return rows;
          },
        };
        const start = performance.now();
        await searchPage(reader, { query: q, first, canRead: async (subjects) => subjects.map(() => true) });
        const total = performance.now() - start;
        if (round_ === 0) continue; // warm-up
        totals.push(total);
        sqls.push(statements.reduce((sum, s) => sum + s.ms, 0));
        counts.push(statements.length);
        worst.push({ q, total, statements });
      }
    }
    const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
    const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
    console.log(
      `${name}: core p50 ${round(quantile(sorted(totals), 0.5), 2)} ms, p99 ${round(quantile(sorted(totals), 0.99), 2)} ms; SQL ${round((100 * sum(sqls)) / sum(totals), 1)}% of core time; statements per request mean ${round(sum(counts) / counts.length, 2)}, max ${Math.max(...counts)}`,
    );
    for (const w of worst.sort((a, b) => b.total - a.total).slice(0, 6)) {
      console.log(`  ${JSON.stringify(w.q)} ${round(w.total, 2)} ms: ${w.statements.map((s) => `${round(s.ms, 2)} ms ${s.sql.slice(0, 90).replace(/\s+/g, " ")}`).join("\n      ")}`);
    }
  }
  await database.close();
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);

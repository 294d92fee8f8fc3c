import type { Transaction } from "@prisma/driver-adapter-utils";
import pg from "pg";
import { serializeStatements } from "../../src/db/serialized-transaction";
import { seedArtifactRow, seedExecution } from "../support/seed";
import { createTestDatabase, type TestDatabase, testProvider } from "../support/test-database";

/** A stand-in transaction that records how many statements are in flight at once. */
function fakeTransaction() {
  let inFlight = 0;
  const stats = { maxInFlight: 0, order: [] as string[] };
  const statement = async (sql: string) => {
    inFlight += 1;
    stats.maxInFlight = Math.max(stats.maxInFlight, inFlight);
    await new Promise((resolve) => setTimeout(resolve, 5));
    inFlight -= 1;
    stats.order.push(sql);
    if (sql === "FAIL") throw new Error("statement failed");
    return 1;
  };
  const transaction = {
    provider: "postgres",
    adapterName: "fake",
    options: { usePhantomQuery: false },
    queryRaw: async (query: { sql: string }) => ({ columnNames: [], columnTypes: [], rows: [[await statement(query.sql)]] }),
    executeRaw: (query: { sql: string }) => statement(query.sql),
    // like PgTransaction: a savepoint is a statement sent through the transaction's own executeRaw
    async createSavepoint(name: string) {
      await this.executeRaw({ sql: `SAVEPOINT ${name}` });
    },
    commit: async () => void stats.order.push("commit"),
    rollback: async () => void stats.order.push("rollback"),
  };
  return { transaction: transaction as unknown as Transaction, stats };
}

const query = (sql: string) => ({ sql, args: [], argTypes: [] });

describe("a transaction sends one statement at a time", () => {
  test("parallel statements run one after another, in call order", async () => {
    const { transaction, stats } = fakeTransaction();
    const tx = serializeStatements(transaction);
    const results = await Promise.all([tx.executeRaw(query("A")), tx.queryRaw(query("B")), tx.executeRaw(query("C")), tx.createSavepoint!("s1")]);
    await tx.commit();
    expect(stats.maxInFlight).toBe(1);
    expect(stats.order).toEqual(["A", "B", "C", "SAVEPOINT s1", "commit"]);
    expect(results[0]).toBe(1);
    expect(results[1].rows).toEqual([[1]]);
  });

  test("a failed statement rejects its caller and does not hold up the next", async () => {
    const { transaction, stats } = fakeTransaction();
    const tx = serializeStatements(transaction);
    const [failed, next] = await Promise.allSettled([tx.executeRaw(query("FAIL")), tx.executeRaw(query("D"))]);
    expect(failed.status).toBe("rejected");
    expect((failed as PromiseRejectedResult).reason.message).toBe("statement failed");
    expect(next).toEqual({ status: "fulfilled", value: 1 });
    expect(stats.order).toEqual(["FAIL", "D"]);
  });
});

/**
 * Counts client.query() calls made while the same pg client still has a query in flight: what
 * node-postgres deprecates ("client.query() when the client is already executing a query").
 * Counted directly because its warning is printed once per process and never reaches a test.
 */
function watchOverlappingQueries() {
  const original = pg.Client.prototype.query;
  const inFlight = new WeakMap<object, number>();
  const overlaps: string[] = [];
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const busy = inFlight.get(this) ?? 0;
    if (busy > 0) overlaps.push(String((args[0] as { text?: string })?.text ?? args[0]).slice(0, 60));
    const result = (original as (...a: unknown[]) => unknown).apply(this, args);
    if (result instanceof Promise) {
      inFlight.set(this, busy + 1);
      const done = () => inFlight.set(this, (inFlight.get(this) ?? 1) - 1);
      result.then(done, done);
    }
    return result;
  } as typeof original;
  return { overlaps, restore: () => (pg.Client.prototype.query = original) };
}

describe(`no overlapping statements on one connection (${testProvider})`, () => {
  let db: TestDatabase;
  let watch: ReturnType<typeof watchOverlappingQueries>;

  beforeAll(async () => {
    watch = watchOverlappingQueries();
    db = await createTestDatabase();
  });
  afterAll(async () => {
    watch.restore();
    await db.drop();
  });

  test("chunked createMany, parallel reads in a transaction and nested includes never overlap on a client", async () => {
    const prisma = db.database.prisma;
    // 10,000 rows × 4 columns is more bind values than one PostgreSQL statement takes: Prisma
    // splits the insert into chunks and sends them in parallel inside one transaction.
    const rows = Array.from({ length: 10_000 }, (_, i) => seedArtifactRow(`chunk_${i}.csv`));
    expect(await prisma.artifact.createMany({ data: rows })).toEqual({ count: 10_000 });

    const seeded = await seedExecution(prisma, { operation: "overlap", label: "overlap", inputs: 3, outputs: 2 });
    const [artifacts, executions, nested] = await prisma.$transaction(async (tx) =>
      Promise.all([
        tx.artifact.count(),
        tx.execution.count(),
        // two sibling relations are loaded in parallel by Prisma's interpreter
        tx.execution.findUnique({ where: { runId: seeded.runId }, include: { links: true, operation: { include: { roles: true } } } }),
      ]),
    );
    expect(artifacts).toBe(10_005);
    expect(executions).toBe(1);
    expect(nested!.links).toHaveLength(5);
    expect(nested!.operation.roles).toHaveLength(2);
    expect(watch.overlaps).toEqual([]);
  });
});

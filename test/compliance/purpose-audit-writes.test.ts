import { type CommitPath, type RecordingUnit } from "../../src/services/recording";
import { PurposeAccessLog, type PurposeAccessEntry } from "../../src/services/compliance";
import { createTestApp, type TestApp } from "../support/test-app";

/**
 * The purpose audit's writes: reads noted on the read path are written in batches (one unit of the
 * commit path each). A batch whose write fails is not dropped: it waits, first in line, and is
 * written by the next attempt, and reads noted after it are written too.
 */

const read = (artifactId: string, field: string): PurposeAccessEntry => ({
  principal: "analyst",
  tokenId: null,
  purpose: "fraud-investigation",
  kind: "COLUMNS",
  artifactId,
  field: "",
  tags: [],
  columns: new Map([[field, ["PII"]]]),
  via: "READ",
  runId: null,
  requestId: null,
  at: new Date(),
});

describe("the purpose audit's batches", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  test("a batch that fails to write is kept and written by the next attempt, with the reads noted after it", async () => {
    const commits = t.app.services.commits;
    let failures = 1;
    // The commit path, refusing its first unit (as a database that is briefly unavailable would).
    const flaky: CommitPath = {
      run: <T>(unit: RecordingUnit<T>) => (failures-- > 0 ? Promise.reject(new Error("the database is unavailable")) : commits.run(unit)),
      onCommitted: (listener) => commits.onCommitted(listener),
    };
    const audit = new PurposeAccessLog(flaky, t.app.database.primaryReader, 60_000);
    audit.note([read("art_flaky", "tax_id"), read("art_flaky", "email")]);
    await expect(audit.flush()).rejects.toThrow("the database is unavailable");
    audit.note([read("art_flaky", "phone")]);
    await audit.flush();
    const written = await t.app.database.primaryReader.purposeAccess.findMany({ where: { artifactId: "art_flaky" }, orderBy: { id: "asc" } });
    expect(written.map((row) => [row.columns, row.tags])).toEqual([
      ['{"tax_id":["PII"]}', '["PII"]'],
      ['{"email":["PII"]}', '["PII"]'],
      ['{"phone":["PII"]}', '["PII"]'],
    ]);
  });

  test("a request's columns of one artifact are one access while it waits to be written; columns read after it is written go to a new one, each column still counted once", async () => {
    const audit = new PurposeAccessLog(t.app.services.commits, t.app.database.primaryReader, 60_000);
    const access = read("art_grouped", "tax_id");
    audit.note([access]);
    expect(audit.addColumn(access, "email", ["PII", "CONTACT"])).toBe(true);
    await audit.flush();
    // Written: the request's next column is a new access.
    expect(audit.addColumn(access, "phone", ["PII"])).toBe(false);
    audit.note([read("art_grouped", "phone")]);
    await audit.flush();
    const written = await t.app.database.primaryReader.purposeAccess.findMany({ where: { artifactId: "art_grouped" }, orderBy: { id: "asc" } });
    expect(written.map((row) => [row.kind, row.columns, row.tags])).toEqual([
      ["COLUMNS", '{"email":["CONTACT","PII"],"tax_id":["PII"]}', '["CONTACT","PII"]'],
      ["COLUMNS", '{"phone":["PII"]}', '["PII"]'],
    ]);
    const served = (field: string) => audit.served({ artifactId: "art_grouped", field });
    expect(await served("email")).toEqual([expect.objectContaining({ purpose: "fraud-investigation", principal: "analyst", via: "READ", accesses: 1, tags: ["CONTACT", "PII"] })]);
    expect((await served("phone")).map((s) => s.accesses)).toEqual([1]);
    // A column no access holds, whatever its name, has served nothing.
    expect(await served("constructor")).toEqual([]);
  });

  test("a failed batch is tried again on its own a moment later", async () => {
    const commits = t.app.services.commits;
    let failures = 1;
    const flaky: CommitPath = {
      run: <T>(unit: RecordingUnit<T>) => (failures-- > 0 ? Promise.reject(new Error("the database is unavailable")) : commits.run(unit)),
      onCommitted: (listener) => commits.onCommitted(listener),
    };
    const audit = new PurposeAccessLog(flaky, t.app.database.primaryReader, 20);
    audit.note([read("art_retried", "tax_id")]);
    const count = () => t.app.database.primaryReader.purposeAccess.count({ where: { artifactId: "art_retried" } });
    for (let waited = 0; (await count()) === 0 && waited < 5_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await count()).toBe(1);
    expect(failures).toBeLessThan(0);
  });
});

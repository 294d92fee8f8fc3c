import { AuditLog, TokenStore } from "../../src/auth";
import { GroupCommit } from "../../src/services/recording";
import { createTestDatabase, type TestDatabase, testProvider } from "../support/test-database";

// Writes outside the commit path (tokens, audit entries) must not join a recording transaction that
// happens to be open: on SQLite the writer is one connection, and a bare statement would run inside it.
describe(`writes beside the commit path (${testProvider})`, () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

  test("a token created and revoked and an audit entry written while a unit is open survive that unit's rollback", async () => {
    const commits = new GroupCommit(db.database);
    const tokens = new TokenStore(db.database.prisma);
    const audit = new AuditLog(db.database.prisma);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let opened!: () => void;
    const isOpen = new Promise<void>((resolve) => (opened = resolve));
    const unit = commits.run(async (tx) => {
      await tx.$executeRawUnsafe(`INSERT INTO "Operation" (id, name, version, kind, declaration, "createdAt") VALUES ('op_doomed', 'doomed', '1', 'CREATOR', '{}', CURRENT_TIMESTAMP)`);
      opened();
      await held;
      throw new Error("the recording is refused");
    });
    await isOpen;
    const writes = Promise.all([
      tokens.create({ name: "beside", scopes: ["read"], createdBy: "test" }),
      audit.append({ actor: "test", tokenId: null, via: "HTTP", action: "registerOperation", targets: [], outcome: "OK", requestId: "req-beside" }),
    ]);
    // Give the writes every chance to run inside the open transaction before it is rolled back.
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    await expect(unit).rejects.toThrow("the recording is refused");
    const [{ token }] = await writes;
    await tokens.revoke(token.id);
    const reader = db.database.prisma;
    expect(await reader.operation.count({ where: { id: "op_doomed" } })).toBe(0);
    expect((await reader.apiToken.findMany({ where: { name: "beside" } })).map((row) => row.revokedAt !== null)).toEqual([true]);
    expect(await reader.auditEvent.count({ where: { requestId: "req-beside" } })).toBe(1);
  });
});

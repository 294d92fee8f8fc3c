import { Writable } from "node:stream";
import { generateTokenSecret, grants, hashTokenSecret, isScope, isWellFormedTokenSecret } from "../../src/auth";
import { ConfigError, loadConfig } from "../../src/config";
import { hostAllowed, isLoopbackAddress, originAllowed } from "../../src/http/browser-safety";
import { createLogger } from "../../src/logger";
import { maskSecrets } from "../../src/secret-masking";

describe("scopes", () => {
  test.each([
    [["admin"], ["read", "write", "admin"], ["clearance:PII"]],
    [["write"], ["read", "write"], ["admin", "clearance:PII"]],
    [["read"], ["read"], ["write", "admin"]],
    [["read", "clearance:PII"], ["read", "clearance:PII"], ["clearance:PHI", "write"]],
    [["clearance:PII"], ["clearance:PII"], ["read"]],
  ] as const)("%j grants %j and not %j (admin ⊇ write ⊇ read; clearances only when granted)", (held, granted, refused) => {
    for (const scope of granted) expect([scope, grants(held, scope)]).toEqual([scope, true]);
    for (const scope of refused) expect([scope, grants(held, scope)]).toEqual([scope, false]);
  });

  test.each(["read", "write", "admin", "clearance:PII", "clearance:eu.health-2"])("%s is a scope", (scope) => expect(isScope(scope)).toBe(true));
  test.each(["Read", "superuser", "clearance:", "clearance:a b", `clearance:${"x".repeat(65)}`, "admin "])("%j is not a scope", (scope) => expect(isScope(scope)).toBe(false));
});

describe("token secrets", () => {
  test("pgt_ + 43 base64url characters (256 random bits), distinct every time; stored as hex SHA-256", () => {
    const secrets = new Set(Array.from({ length: 1000 }, generateTokenSecret));
    expect(secrets.size).toBe(1000);
    for (const secret of secrets) expect(secret).toMatch(/^pgt_[A-Za-z0-9_-]{43}$/);
    // sha256sum of the string, as printed by `printf %s pgt_AAAAAAAAAAAAAAAAAAAAAA | sha256sum`
    expect(hashTokenSecret("pgt_AAAAAAAAAAAAAAAAAAAAAA")).toBe("9201a12c688af3e191d4764d53e22531a78c96b2a4cd54f4265de1c239562c39");
  });

  test.each([
    ["pgt_" + "a".repeat(22), true],
    ["pgt_" + "a".repeat(21), false], // under 128 bits
    ["pgt_" + "a".repeat(22) + "=", false],
    ["ghp_" + "a".repeat(36), false],
    ["pgt_" + "a".repeat(257), false],
  ])("%s well-formed: %s", (secret, wellFormed) => expect(isWellFormedTokenSecret(secret)).toBe(wellFormed));
});

describe("Host and Origin checks", () => {
  test.each([
    ["127.0.0.1", true],
    ["127.1.2.3", true],
    ["::1", true],
    ["[::1]", true],
    ["localhost", true],
    ["0.0.0.0", false],
    ["::", false],
    ["192.168.1.10", false],
    ["example.org", false],
  ])("HOST %s is loopback: %s", (host, loopback) => expect(isLoopbackAddress(host)).toBe(loopback));

  const loopback = { loopback: true, allowedHosts: ["provgraph.internal"] };
  const publicListed = { loopback: false, allowedHosts: ["prov.example.com"] };
  const publicOpen = { loopback: false, allowedHosts: [] };
  test.each([
    [loopback, "127.0.0.1:4000", true],
    [loopback, "localhost:4000", true],
    [loopback, "[::1]:4000", true],
    [loopback, "provgraph.internal:4000", true],
    [loopback, "attacker.example:4000", false],
    [loopback, "10.0.0.5:4000", false],
    [loopback, "localhost.attacker.example", false],
    [loopback, undefined, true],
    [publicListed, "prov.example.com", true],
    [publicListed, "PROV.EXAMPLE.COM:443", true],
    [publicListed, "attacker.example", false],
    [publicListed, "203.0.113.7:4000", true],
    [publicOpen, "anything.example", true],
  ])("%j: Host %s allowed: %s", (policy, host, allowed) => expect(hostAllowed(host, policy)).toBe(allowed));

  test.each([
    [undefined, "127.0.0.1:4000", [], true],
    ["http://127.0.0.1:4000", "127.0.0.1:4000", [], true],
    ["http://example.org", "example.org:80", [], true],
    ["https://prov.example.com", "prov.example.com", [], true],
    ["http://evil.example", "127.0.0.1:4000", [], false],
    ["http://127.0.0.1:4001", "127.0.0.1:4000", [], false],
    ["null", "127.0.0.1:4000", [], false],
    ["chrome-extension://abc", "127.0.0.1:4000", [], false],
    ["https://app.example.com", "127.0.0.1:4000", ["https://app.example.com"], true],
    ["https://APP.example.com", "127.0.0.1:4000", ["https://app.example.com"], true],
    ["http://app.example.com", "127.0.0.1:4000", ["https://app.example.com"], false],
  ] as const)("Origin %s to Host %s with CORS_ORIGINS %j allowed: %s", (origin, host, cors, allowed) => expect(originAllowed(origin, host, cors)).toBe(allowed));
});

describe("secrets never leave in text", () => {
  test.each([
    ["token pgt_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG used", "token pgt_**** used"],
    ["postgresql://prov:s3cret@db:5432/prov", "postgresql://prov:****@db:5432/prov"],
    ["redis://:redispass@cache:6379/0", "redis://:****@cache:6379/0"],
    ["rediss://user:p%40ss@cache:6380", "rediss://user:****@cache:6380"],
    ['{"url":"postgres://a:b@h/d","x":1}', '{"url":"postgres://a:****@h/d","x":1}'],
    ["postgresql://prov@db/prov and http://example.org:8080/x", "postgresql://prov@db/prov and http://example.org:8080/x"],
  ])("%s → %s", (text, masked) => expect(maskSecrets(text)).toBe(masked));

  test("log lines are masked before they are written, whatever field holds the secret", () => {
    let written = "";
    const sink = new Writable({ write: (chunk, _encoding, done) => ((written += chunk), done()) });
    const logger = createLogger("info", sink);
    const token = generateTokenSecret();
    logger.info({ authorization: `Bearer ${token}`, nested: { url: "redis://:hunter2@cache:6379" }, token }, `saw ${token} and postgresql://u:pw123@db/x`);
    logger.error({ err: new Error(`failed with ${token}`) }, "boom");
    expect(written).not.toContain(token);
    expect(written).not.toContain(token.slice(4));
    expect(written).not.toContain("hunter2");
    expect(written).not.toContain("pw123");
    expect(written).toContain("pgt_****");
  });
});

describe("configuration of access control", () => {
  test("unset: CORS off, no extra hosts, GraphiQL and introspection by bind, no bootstrap token", () => {
    expect(loadConfig({})).toMatchObject({ corsOrigins: undefined, allowedHosts: undefined, graphiql: undefined, introspection: undefined, bootstrapToken: undefined });
  });

  test("values are parsed and normalised", () => {
    const secret = generateTokenSecret();
    expect(
      loadConfig({ CORS_ORIGINS: "https://App.Example.com, http://localhost:5173 https://app.example.com:443", ALLOWED_HOSTS: "Prov.Internal,[::1] 10.0.0.5", GRAPHIQL: "true", INTROSPECTION: "off", PROVGRAPH_BOOTSTRAP_TOKEN: ` ${secret} ` }),
    ).toMatchObject({ corsOrigins: ["https://app.example.com", "http://localhost:5173"], allowedHosts: ["prov.internal", "::1", "10.0.0.5"], graphiql: true, introspection: false, bootstrapToken: secret });
  });

  test.each([
    [{ CORS_ORIGINS: "*" }, "invalid configuration: CORS_ORIGINS entry '*' is not an origin: expected scheme://host[:port], e.g. https://app.example.com"],
    [{ CORS_ORIGINS: "https://app.example.com/path" }, "invalid configuration: CORS_ORIGINS entry 'https://app.example.com/path' is not an origin: expected scheme://host[:port], e.g. https://app.example.com"],
    [{ CORS_ORIGINS: "ftp://files.example.com" }, "invalid configuration: CORS_ORIGINS entry 'ftp://files.example.com' is not an origin: expected scheme://host[:port], e.g. https://app.example.com"],
    [{ ALLOWED_HOSTS: "https://prov.example.com" }, "invalid configuration: ALLOWED_HOSTS entry 'https://prov.example.com' is not a host name: list names or addresses only, without scheme or port"],
    [{ ALLOWED_HOSTS: "prov.example.com:443" }, "invalid configuration: ALLOWED_HOSTS entry 'prov.example.com:443' is not a host name: list names or addresses only, without scheme or port"],
    [{ GRAPHIQL: "sometimes" }, "invalid configuration: GRAPHIQL must be true or false, got 'sometimes'"],
    [{ INTROSPECTION: "2" }, "invalid configuration: INTROSPECTION must be true or false, got '2'"],
  ])("%j is refused with one clear line", (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  test("a malformed PROVGRAPH_BOOTSTRAP_TOKEN is refused without echoing it", () => {
    const attempt = "pgt_tooShortButSecret";
    let message = "";
    try {
      loadConfig({ PROVGRAPH_BOOTSTRAP_TOKEN: attempt });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe("invalid configuration: PROVGRAPH_BOOTSTRAP_TOKEN must be pgt_ followed by at least 22 letters, digits, '-' or '_' (make one with: provgraph token generate)");
    expect(message).not.toContain("tooShort");
  });
});

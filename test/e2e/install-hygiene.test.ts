import fs from "node:fs";
import path from "node:path";
import semver from "semver";

/**
 * What `npm ci` installs (package-lock.json, the tree as npm lays it out) agrees with what provgraph says
 * it runs on: every package's `engines.node` accepts the oldest Node the `engines` field allows (npm's
 * EBADENGINE warning), and every peer dependency is met by the package npm resolves for it (npm's
 * ERESOLVE "overriding peer dependency" warning). A new dependency that breaks either fails here, not in
 * a user's install log.
 */
const ROOT = path.join(__dirname, "..", "..");
/**
 * The one package that wants a newer Node: part of the Prisma CLI's `prisma dev` (a local database server
 * provgraph never runs), a development dependency of a development dependency that no version supports
 * Node 20 in. `npm ci` prints its EBADENGINE warning; nothing provgraph runs, and nothing the package
 * installs (production dependencies), needs it.
 */
const KNOWN_DEV_ONLY = ["node_modules/@prisma/streams-local"];
const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { engines: { node: string }; overrides: Record<string, string | Record<string, string>> };
const lock = JSON.parse(fs.readFileSync(path.join(ROOT, "package-lock.json"), "utf8")) as {
  packages: Record<string, { version?: string; dev?: boolean; devOptional?: boolean; engines?: Record<string, string> | string[]; peerDependencies?: Record<string, string>; peerDependenciesMeta?: Record<string, { optional?: boolean }>; link?: boolean }>;
};

/** The package `name` as Node resolves it from the package at `from` (its own node_modules, then each parent's). */
function resolveFrom(from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const candidate = `${base ? `${base}/` : ""}node_modules/${name}`;
    if (lock.packages[candidate]) return candidate;
    if (!base) return undefined;
    const at = base.lastIndexOf("/node_modules/");
    base = at === -1 ? "" : base.slice(0, at);
  }
}

describe("install hygiene (package-lock.json against package.json)", () => {
  const oldest = semver.minVersion(manifest.engines.node)!.version;

  test(`engines: every installed package runs on Node ${oldest}, the oldest the engines field (${manifest.engines.node}) allows`, () => {
    const refusing = Object.entries(lock.packages)
      .filter(([location, entry]) => location !== "" && !KNOWN_DEV_ONLY.includes(location) && entry.engines && !Array.isArray(entry.engines) && entry.engines.node)
      .filter(([, entry]) => !semver.satisfies(oldest, (entry.engines as Record<string, string>).node))
      .map(([location, entry]) => `${location}@${entry.version} wants node ${(entry.engines as Record<string, string>).node}`);
    expect(refusing).toEqual([]);
    // the exception stays what it is said to be: installed for development only
    for (const location of KNOWN_DEV_ONLY) expect([location, lock.packages[location]?.dev || lock.packages[location]?.devOptional]).toEqual([location, true]);
  });

  test("peers: every required peer dependency is met by the package npm resolves for it", () => {
    const unmet: string[] = [];
    for (const [location, entry] of Object.entries(lock.packages)) {
      const name = location.slice(location.lastIndexOf("node_modules/") + "node_modules/".length);
      const overridden = manifest.overrides[name];
      for (const [peer, range] of Object.entries(entry.peerDependencies ?? {})) {
        // a peer package.json overrides for this package is decided (npm warns no more): graphiql-explorer's React 16
        // and GraphQL 15, inside @graphql-yoga/graphiql, whose prebuilt page provgraph serves without running them
        if (typeof overridden === "object" && overridden[peer]) continue;
        const resolved = resolveFrom(location, peer);
        if (!resolved) {
          if (!entry.peerDependenciesMeta?.[peer]?.optional) unmet.push(`${location} wants ${peer}@${range}: missing`);
          continue;
        }
        const version = lock.packages[resolved].version;
        if (version && !semver.satisfies(version, range, { includePrerelease: true })) unmet.push(`${location} wants ${peer}@${range}, gets ${version}`);
      }
    }
    expect(unmet).toEqual([]);
  });
});

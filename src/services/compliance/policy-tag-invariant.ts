import type { DbTx } from "../../db/client";
import { type Invariant, ViolationSample } from "../integrity";
import type { CommitPath } from "../recording";
import { rederiveAllHoldings } from "./policy-tag-service";
import type { TagFlow } from "./tag-flow";

interface Holding {
  nodeKind: string;
  artifactId: string;
  field: string;
  tag: string;
  originId: number;
  depth: number;
  opaque: boolean;
}

/** Thrown out of the checking unit so that the recomputation it wrote is rolled back, carrying what it found. */
class Derived {
  constructor(
    readonly kept: Holding[],
    readonly derived: Holding[],
  ) {}
}

const keyOf = (h: Holding) => `${h.tag} ${h.nodeKind} ${h.artifactId}${h.field ? `.${h.field}` : ""}`;

async function holdings(tx: DbTx): Promise<Holding[]> {
  return tx.policyTagHolding.findMany({ select: { nodeKind: true, artifactId: true, field: true, tag: true, originId: true, depth: true, opaque: true } });
}

/**
 * Inherited policy tags equal what their origins give: every holding kept (tag, node, origin,
 * depth, through an opaque step or not) is what the propagation rule derives afresh from the assignments, the downgrades and the
 * lineage, and none is missing. The derivation runs in a unit of the commit path — the statements
 * of the propagate stage, on the writer, so it sees exactly the committed store — and that unit is
 * always rolled back: checking writes nothing.
 */
export function inheritedPolicyTags(commits: CommitPath, flow: TagFlow): Invariant {
  return {
    name: "inherited-policy-tags",
    description: "every policy-tag holding (origin, depth and opaque step included) is what the propagation rule derives from the assignments, downgrades and lineage, and none is missing",
    async check(_db, { sample }) {
      let found: Derived | undefined;
      try {
        await commits.run(async (tx) => {
          const kept = await holdings(tx);
          await rederiveAllHoldings(tx, flow);
          throw new Derived(kept, await holdings(tx));
        });
      } catch (error) {
        if (!(error instanceof Derived)) throw error;
        found = error;
      }
      const { kept, derived } = found!;
      const expected = new Map(derived.map((h) => [keyOf(h), h]));
      const violations = new ViolationSample(sample);
      for (const holding of kept) {
        const key = keyOf(holding);
        const want = expected.get(key);
        expected.delete(key);
        const how = (h: Holding) => `origin ${h.originId} at depth ${h.depth}${h.opaque ? " through an opaque step" : ""}`;
        if (!want) violations.add({ subject: key, detail: `held (origin ${holding.originId}, depth ${holding.depth}) but the rule derives nothing there` });
        else if (want.originId !== holding.originId || want.depth !== holding.depth || want.opaque !== holding.opaque) {
          violations.add({ subject: key, detail: `held from ${how(holding)}; the rule derives ${how(want)}` });
        }
      }
      for (const [key, want] of expected) violations.add({ subject: key, detail: `missing: the rule derives it from origin ${want.originId} at depth ${want.depth}` });
      return violations.result(kept.length);
    },
  };
}
